#!/bin/sh
# The AArch64 build: the library (NEON kernels included) and the tests,
# cross-compiled with clang, run under qemu-aarch64 (user-mode emulation).
# Prints the tests' results and a total "N passed, M failed, K skipped".
cd "$(dirname "$0")/.." || exit 1
if ! ninja -f ninja/aarch64.ninja lib aarch64_tests > build-aarch64.log 2>&1; then
  tail -20 build-aarch64.log
  echo "0 passed, 1 failed"
  exit 1
fi
P=1 F=0 S=0
echo "ok - the aarch64 library and tests cross-compile (NEON variants: $(grep -c '__neon' generated/FILES))"
for t in test_api test_bngrad test_dwbpi test_dwbpf test_nonfinite test_consistency; do
  out=$(qemu-aarch64 -L /usr/aarch64-linux-gnu build-aarch64/tests/$t 2>&1 | tail -1)
  echo "$t under qemu-aarch64: $out"
  case $out in
    *" passed, 0 failed"*)
      P=$((P + ${out%% passed*}))
      case $out in *" skipped") s=${out##*failed, }; S=$((S + ${s%% skipped})) ;; esac ;;
    *) F=$((F + 1)) ;;
  esac
done
echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
