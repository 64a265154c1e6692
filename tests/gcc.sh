#!/bin/sh
# The gcc build (ninja/gcc.ninja, into build-gcc/) as the test command runs
# it: the whole default set, with the kernels of the ISAs this CPU cannot run
# (tests/host_isas.sh) at -Og instead of -O2. Those only prove here that gcc
# compiles them without a warning, and on an AVX2 host the AVX-512 kernels
# were half of the build's time; a CPU that runs them builds and tests them
# at -O2. The kernels' edges take $kopt_<isa> after their options
# (generator/emit.lua), set in build-gcc/host.ninja before the build file.
# Prints "1 passed, 0 failed" when it builds, else "0 passed, 1 failed".
cd "$(dirname "$0")/.." || exit 1
no() { echo "gcc: $*"; echo "0 passed, 1 failed"; exit 1; }
mkdir -p build-gcc || no "cannot create build-gcc/"
isas=$(sh tests/host_isas.sh build-gcc) || no "tests/host_isas.sh (tools/cpu_isas.c) failed"
others=$(sh tests/host_isas.sh build-gcc --others) || no "tests/host_isas.sh --others failed"
{
  echo "# written by tests/gcc.sh: this CPU runs $isas"
  for isa in $others; do echo "kopt_$isa = \$ -Og"; done
  echo "include ninja/gcc.ninja"
} > build-gcc/host.ninja
echo "gcc: kernels of the ISAs this CPU runs ($isas) at -O2, the others at -Og"
if ninja -f build-gcc/host.ninja; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
