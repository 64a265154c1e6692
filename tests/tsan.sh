#!/bin/sh
# The runtime called from many threads at once (tests/test_threads.c, with
# the small kernel set) and the Python package's pool (tests/test_pool.c:
# its lock-free task claims), under ThreadSanitizer. Prints their counts
# summed as one result line.
cd "$(dirname "$0")/.." || exit 1
lua5.4 generator/kforge-gen.lua --quiet --set specs/sets/small.lua --out build-tsan/gen || exit 1
ninja -f ninja/tsan.ninja build-tsan/tests/test_threads build-tsan/tests/test_pool > build-tsan.log 2>&1 ||
  { tail -20 build-tsan.log; exit 1; }
out=$(mktemp) || exit 1
rc=0
for t in test_pool test_threads; do
  TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/$t > "$out.$t" 2>&1 || rc=1
  grep -v ' passed, ' "$out.$t" | tail -20
  tail -1 "$out.$t" | grep ' passed, ' >> "$out" || { echo "$t: no result line (exit status above)"; echo "0 passed, 1 failed" >> "$out"; }
done
awk '{ p += $1; f += $3; s += $5 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' "$out"
rm -f "$out" "$out".*
exit $rc
