#!/bin/sh
# The AArch64 build: the library (NEON kernels included) and the tests,
# cross-compiled with clang, run under qemu-aarch64 (user-mode emulation).
# Runs every tests/test_*.c (by glob) except those that need Debian's
# libpthreadpool, which has no AArch64 package here (a test's source may aim
# its run, "aarch64.sh: TH_FILTER=x", or opt out with its reason,
# "aarch64.sh: not under qemu"); prints each test's result and a
# total "N passed, M failed, K skipped". --no-build: only run
# (ninja -f ninja/aarch64.ninja check has built them).
cd "$(dirname "$0")/.." || exit 1
B=build-aarch64
if [ "${1-}" != --no-build ] && ! ninja -f ninja/aarch64.ninja lib aarch64_tests > $B.log 2>&1; then
  tail -20 $B.log
  echo "0 passed, 1 failed"
  exit 1
fi
P=1 F=0 S=0
echo "ok - the aarch64 library and tests cross-compile (NEON variants: $(grep -c '__neon' generated/FILES))"
for src in tests/test_*.c; do
  t=$(basename "$src" .c)
  if grep -q '<pthreadpool.h>' "$src"; then
    echo "$t: not built for aarch64 (needs libpthreadpool)"
    continue
  fi
  if [ ! -x $B/tests/$t ]; then
    echo "FAIL - $t: no $B/tests/$t (add it to tests_portable in tests/tests.ninja)"
    F=$((F + 1))
    continue
  fi
  if grep -q 'aarch64\.sh: not under qemu' "$src"; then
    echo "$t: not run under qemu (its source says why)"
    continue
  fi
  # a test may aim its qemu run ("aarch64.sh: TH_FILTER=x" in its source)
  f=$(sed -n 's/.*aarch64\.sh: TH_FILTER=\([^ ]*\).*/\1/p' "$src" | head -1)
  out=$(TH_FILTER=$f qemu-aarch64 -L /usr/aarch64-linux-gnu $B/tests/$t 2>&1 | tail -1)
  echo "$t under qemu-aarch64${f:+ (TH_FILTER=$f)}: $out"
  case $out in
    *" passed, 0 failed"*)
      P=$((P + ${out%% passed*}))
      case $out in *" skipped") s=${out##*failed, }; S=$((S + ${s%% skipped})) ;; esac ;;
    *) F=$((F + 1)) ;;
  esac
done
echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
