#!/bin/bash
# Builds kforge's libFuzzer targets (ninja/fuzz.ninja, into build-fuzz/) and
# runs each one for SECONDS (default 20) on a temp copy of its seed corpus
# (tests/fuzz/corpus/<target>/), then the Lua fuzzer of the generator's
# loaders (tests/fuzz/fuzz_specs.lua) for as long. One check per target run;
# ends with "N passed, M failed".
#
#   bash tests/fuzz/run_fuzz.sh [SECONDS]
#
# A crash, leak, UB report, timeout (10 s per input) or out-of-memory
# (2 GB) fails the target; the input that did it is copied to
# build-fuzz/artifacts/ (reproduce: build-fuzz/<target> <file>). Longer runs:
# see docs/hardening.md.
set -u
cd "$(dirname "$0")/../.." || exit 1
SECONDS_PER_TARGET=${1:-20}
PASSED=0
FAILED=0
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kforge-fuzz.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
ART=build-fuzz/artifacts
mkdir -p "$ART"

result() { # ok|FAIL text
  if [ "$1" = ok ]; then PASSED=$((PASSED + 1)); echo "ok - $2"; else FAILED=$((FAILED + 1)); echo "FAIL - $2"; fi
}

if ! lua5.4 generator/kforge-gen.lua --quiet --set specs/sets/small.lua --out build-fuzz/gen >"$WORK/build.log" 2>&1 ||
   ! ninja -f ninja/fuzz.ninja fuzz >>"$WORK/build.log" 2>&1; then
  tail -30 "$WORK/build.log"
  result FAIL "build the fuzz targets (ninja -f ninja/fuzz.ninja fuzz)"
  echo "$PASSED passed, $FAILED failed"
  exit 1
fi
result ok "build the fuzz targets"

for target in fuzz_api fuzz_npy fuzz_cli; do
  corpus="$WORK/corpus-$target"
  mkdir -p "$corpus" "$WORK/art-$target"
  cp tests/fuzz/corpus/$target/* "$corpus"/ 2>/dev/null
  # the CLI prints one error line per input: keep its stdout/stderr closed
  extra=()
  [ "$target" = fuzz_cli ] && extra=(-close_fd_mask=3)
  build-fuzz/$target -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$WORK/art-$target/" "${extra[@]}" "$corpus" \
    >"$WORK/$target.log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$WORK/$target.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$WORK/$target.log" | tail -1)
  if [ "$rc" -eq 0 ] && ! ls "$WORK/art-$target"/* >/dev/null 2>&1; then
    result ok "$target: ${SECONDS_PER_TARGET} s, ${execs:-?} executions (${rate:-?}/s), no crash, leak or UB"
  else
    cp "$WORK/art-$target"/* "$ART"/ 2>/dev/null
    grep -a -E 'ERROR|runtime error|SUMMARY|^fuzz_|Test unit written' "$WORK/$target.log" | head -10 | sed 's/^/    /'
    result FAIL "$target: exit $rc after ${execs:-?} executions (artifacts in $ART/)"
  fi
done

lua5.4 tests/fuzz/fuzz_specs.lua --seconds "$SECONDS_PER_TARGET" >"$WORK/specs.log" 2>&1
rc=$?
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/specs.log" | tail -1)
if [ "$rc" -eq 0 ]; then
  result ok "fuzz_specs.lua: ${SECONDS_PER_TARGET} s, $(sed -n 's/^# \([0-9]*\) iterations/\1/p' "$WORK/specs.log") iterations ($line)"
else
  grep -E '^FAIL|^#   failing' "$WORK/specs.log" | head -10 | sed 's/^/    /'
  [ -z "$line" ] && tail -5 "$WORK/specs.log" | sed 's/^/    /'
  result FAIL "fuzz_specs.lua: exit $rc ($line)"
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
