#!/bin/bash
# kforge's whole test suite: `bash tests/run.sh` from anywhere.
# Installs what the tests need when it is missing (Debian packages only),
# then runs every suite: generator, reproducibility of generated/, the C
# tests with clang, gcc and clang+ASan+UBSan (the clang ones again under
# KFORGE_ISA=avx2 and KFORGE_ISA=scalar, the paths of CPUs without AVX-512
# and without AVX2, where the cap takes an ISA away from this CPU), the CLI,
# the PyTorch oracles, and the differential tests against TensorFlow 2.21's
# CPU kernels (tests/tf/run.sh: its pinned venv lives in ~/.cache/kforge,
# made once) and the Keras-traced manifests
# against TF (tests/tf/run_keras.sh), the Python package (tests/python/run.sh:
# pip install into a fresh venv, pytest), kforge's TensorFlow custom ops
# (tests/tf/run_tfop.sh) and a Keras training run on them (tests/tf/run_train.sh). Ends with
# "N passed, M failed, K skipped" (K: cases that do not apply on this CPU,
# such as forced AVX-512 kernels on a CPU without AVX-512); exits non-zero
# on any failure. Each suite's line gives its wall and CPU seconds (user +
# system, children included): CI's budget is CPU time on 2 cores.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/kforge-tests.XXXXXX")
LANE2= LANE3=
trap 'for l in $LANE2 $LANE3; do kill "$l" 2>/dev/null; done; rm -rf "$LOGDIR"' EXIT

# ---- dependencies ----------------------------------------------------------
need=()
command -v lua5.4 >/dev/null 2>&1 || need+=(lua5.4)
command -v ninja >/dev/null 2>&1 || need+=(ninja-build)
command -v clang >/dev/null 2>&1 || need+=(clang)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
[ -e /usr/include/pthreadpool.h ] || need+=(libpthreadpool-dev)
[ -x /usr/bin/python3 ] || need+=(python3)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || need+=(python3-torch)
# the TF venv (tests/tf/venv.sh) and the Python package's fresh venv
# (tests/python/run.sh) are made with `python3 -m venv`, which Debian's
# python3 can do only with python3-venv
python3 -c 'import ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
# microcontroller builds under emulation
command -v arm-none-eabi-gcc >/dev/null 2>&1 || need+=(gcc-arm-none-eabi)
[ -e /usr/lib/picolibc/arm-none-eabi/picolibc.specs ] || need+=(picolibc-arm-none-eabi)
command -v qemu-system-arm >/dev/null 2>&1 || need+=(qemu-system-arm)
command -v riscv64-unknown-elf-gcc >/dev/null 2>&1 || need+=(gcc-riscv64-unknown-elf)
[ -e /usr/lib/picolibc/riscv64-unknown-elf/picolibc.specs ] || need+=(picolibc-riscv64-unknown-elf)
command -v qemu-system-riscv32 >/dev/null 2>&1 || need+=(qemu-system-misc)
# the AArch64 cross build (NEON variants) under user-mode emulation
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need+=(gcc-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || need+=(libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null 2>&1 || need+=(qemu-user)
# clang's sanitizer runtimes (a separate package on Debian)
if command -v clang >/dev/null 2>&1; then
  echo 'int main(void){return 0;}' | clang -fsanitize=address,undefined -x c - -o /dev/null >/dev/null 2>&1 ||
    need+=(libclang-rt-dev)
else
  need+=(libclang-rt-dev)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "tests: installing ${need[*]}"
  SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null ||
    { echo "tests: could not install ${need[*]}"; echo "0 passed, 1 failed"; exit 1; }
fi

PY=/usr/bin/python3
unset KFORGE_ISA # the plain runs use every ISA the CPU has; the capped reruns below set it
# The TF op library (python/kforge/tf/_build.py) and setup.py's own compile
# path (tests/python/test_build.py) use $CC: clang, which compiles the
# unrolled kernels in two thirds of gcc's time; build-gcc proves that gcc
# compiles them. The Python package itself links build/'s objects (ninja pylib).
export CC=clang

# run_suite NAME CMD...: runs CMD, shows its failures, records its counts
# (the last "N passed, M failed[, K skipped]" line it prints) in
# $LOGDIR/counts. A suite that exits non-zero without such a line counts as
# one failure. Its report is written at once, so the two lanes below do not
# interleave within it.
run_suite() {
  local name=$1; shift
  local log="$LOGDIR/${name//\//_}.log" rc p f s line msg wall u sy cpu TIMEFORMAT='%R %U %S'
  # in a subshell: this shell's own children include the lanes, whose whole
  # CPU time would count for the suite that runs when one of them ends
  ( time "$@" >"$log" 2>&1 ) 2>"$log.time"
  rc=$?
  read -r wall u sy < "$log.time"
  cpu=$(awk -v u="$u" -v s="$sy" 'BEGIN { printf "%.0f", u + s }')
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  p=0; f=0; s=0
  if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
    p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}; s=${BASH_REMATCH[4]:-0}
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  echo "$p $f $s $cpu" >>"$LOGDIR/counts"
  msg=$(printf '%-30s %6d passed, %d failed, %d skipped  (%.0fs, %s CPU s)' "$name" "$p" "$f" "$s" "$wall" "$cpu")
  if [ "$f" -ne 0 ]; then
    msg+=$'\n'$(grep -E '^FAIL|error|Error|ERROR' "$log" | head -40 | sed 's/^/    /')
    [ -z "$line" ] && msg+=$'\n'$(tail -20 "$log" | sed 's/^/    /')
  fi
  printf '%s\n' "$msg"
}

# A build is one check: it passes when ninja succeeds (warnings are errors).
build() {
  if ninja "$@"; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; return 1; fi
}

# The C tests: every tests/test_*.c, which each configuration builds as
# $cfg/tests/test_<name> (its edges in tests/tests.ninja); nothing else lists
# them. A test's source opts out of runs with a marker line:
#   "run.sh: optimized builds only"  not under ASan (too slow there)
#   "run.sh: no capped reruns"       not rerun under KFORGE_ISA=avx2/scalar
#                                    (it runs no kernels, or only long ones)
C_TESTS=()
for src in tests/test_*.c; do C_TESTS+=("$(basename "$src" .c)"); done
marked() { grep -q "run.sh: $2" "tests/$1.c"; }
c_tests() { # CFG: every C test of one build
  local cfg=$1 t
  for t in "${C_TESTS[@]}"; do
    [ "$cfg" = build-asan ] && marked "$t" "optimized builds only" && continue
    [ -e "$cfg/tests/$t" ] || { run_suite "$cfg/$t" false; continue; }
    run_suite "$cfg/$t" "$cfg/tests/$t"
  done
}

# Three lanes run side by side: most suites use one core (Python,
# TensorFlow's small calls, qemu), so the gcc and ASan builds and their
# tests (lane 2) and the AArch64 cross build with its qemu runs, the
# per-model builds and the tuners (lane 3) fill the cores beside the rest
# (56.8 minutes one after the other on a 2-core machine in 2026-11;
# docs/testing.md). They write to different places: lane 2 to build-gcc/
# and build-asan/; lane 3 to build-aarch64/, build/models/, and the tuners'
# build/knobs/, build/knobs-picked/ and build/tune/; lane 1 to the rest.
# Lane 3 reads build/'s library and CLI, which lane 1 builds first: it
# waits for $LOGDIR/built.
wait_built() { while [ ! -e "$LOGDIR/built" ]; do sleep 2; done; }
lane2() {
  run_suite build-gcc sh tests/gcc.sh
  c_tests build-gcc
  run_suite build-asan sh tests/asan.sh
  c_tests build-asan
  run_suite cli-asan $PY tests/cli/test_cli.py build-asan/kforge
}
lane3() {
  run_suite aarch64 sh tests/aarch64.sh
  wait_built
  run_suite models sh tests/models/test_models.sh
  run_suite tuning sh tests/tuning/test_tuning.sh
}
lane2 &
LANE2=$!
lane3 &
LANE3=$!

run_suite generator lua5.4 tests/gen/test_gen.lua
run_suite build-clang build
touch "$LOGDIR/built" # even if it failed: the lanes waiting on it then fail too
# `ninja bench` needs libdnnl and a quiet machine, so it is not run here; its
# graph is checked (a dry run) so that it stays buildable.
run_suite bench-graph build -n bench
# the bench's PyTorch servers (bench/bench_torch_serve.c): scripted and real
run_suite bench-serve sh tests/bench/test_serve.sh
c_tests build
# The kernel tests again with the ISAs capped, as on a CPU without AVX-512
# and on one without AVX2 (test_api checks that default selection then picks
# the capped kernels). The clang build only: the code paths are the same in
# every build, and the gcc and ASan builds would add minutes. A cap that
# takes no ISA away from this CPU (avx2 on an AVX2 host) would repeat the
# plain runs exactly: it is said, not run.
HOST_ISAS=$(sh tests/host_isas.sh "$LOGDIR") || HOST_ISAS=
caps() { # of `avx2 scalar`, the caps that take an ISA away here (all if none was detected)
  local cap allowed i
  for cap in avx2 scalar; do
    case $cap in avx2) allowed=,scalar,avx2, ;; *) allowed=,scalar, ;; esac
    for i in ${HOST_ISAS//,/ }; do
      case $allowed in *",$i,"*) ;; *) echo "$cap"; continue 2 ;; esac
    done
    if [ -n "$HOST_ISAS" ]; then echo "KFORGE_ISA=$cap: not rerun, this CPU runs only $HOST_ISAS" >&2; else echo "$cap"; fi
  done
}
CAPS=$(caps)
for cap in $CAPS; do
  for t in "${C_TESTS[@]}"; do
    marked "$t" "no capped reruns" && continue
    [ -e "build/tests/$t" ] || { run_suite "build/$t@$cap" false; continue; }
    run_suite "build/$t@$cap" env KFORGE_ISA=$cap "build/tests/$t"
  done
done

run_suite cli $PY tests/cli/test_cli.py build/kforge
run_suite tsan sh tests/tsan.sh
run_suite fuzz bash tests/fuzz/run_fuzz.sh 10
# one PyTorch oracle per op family: tests/oracle/<family>_torch.py
for o in tests/oracle/*_torch.py; do
  f=$(basename "$o" _torch.py)
  run_suite "oracle-$f" $PY "$o" build/kforge
done
run_suite tf-differential bash tests/tf/run.sh
run_suite tf-keras bash tests/tf/run_keras.sh
# The Python package: `pip install ./python[test]` into a fresh venv (made
# here, in this run's log folder), its pytest suite, then again under the
# capped ISAs in the same venv.
run_suite python env KFORGE_PY_VENV="$LOGDIR/pyvenv" bash tests/python/run.sh
for cap in $CAPS; do
  run_suite "python@$cap" env KFORGE_ISA=$cap KFORGE_PY_VENV="$LOGDIR/pyvenv" bash tests/python/run.sh
done
# TensorFlow custom ops (python/kforge/tf, built against the venv's TF) vs tf.raw_ops
run_suite tf-ops bash tests/tf/run_tfop.sh
# a tf-keras MobileNetV2 trained 20 steps with TF's and with kforge's gradients
run_suite tf-train bash tests/tf/run_train.sh
# Keras 3's batch norm through the fused op and kforge's gradient, against Keras' own
run_suite tf-keras3 bash tests/tf/run_keras3.sh
for cap in $CAPS; do
  run_suite "tf-keras3@$cap" env KFORGE_ISA=$cap bash tests/tf/run_keras3.sh --quick
done

wait "$LANE2" || true
wait "$LANE3" || true
read -r PASSED FAILED SKIPPED CPU < <(awk '{p += $1; f += $2; s += $3; c += $4} END {print p + 0, f + 0, s + 0, c + 0}' "$LOGDIR/counts")
# the budget CI holds the command to (docs/testing.md): its wall time, and
# the CPU time of all suites together (user + system, as each suite's line)
awk -v w="$SECONDS" -v c="$CPU" 'BEGIN { printf "tests: %.1f minutes wall, %.1f CPU minutes in the suites\n", w / 60, c / 60 }'
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
