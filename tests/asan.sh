#!/bin/sh
# The ASan+UBSan build (ninja/asan.ninja, into build-asan/) of the kernels
# this CPU can run: the default set narrowed to the ISAs the runtime detects
# here (tests/host_isas.sh), generated into build-asan/gen. The kernels of
# other ISAs would never run under the sanitizers here, and on an AVX2 host
# the AVX-512 ones are a third of the build's time. The tests then run from
# build-asan/tests/ (tests/run.sh). Prints "1 passed, 0 failed" when it
# builds, else the build's last lines and "0 passed, 1 failed".
cd "$(dirname "$0")/.." || exit 1
no() { echo "asan: $*"; echo "0 passed, 1 failed"; exit 1; }
mkdir -p build-asan || no "cannot create build-asan/"
isas=$(sh tests/host_isas.sh build-asan) || no "tests/host_isas.sh (tools/cpu_isas.c) failed"
echo "asan: kernels of the ISAs this CPU runs: $isas"
lua5.4 generator/kforge-gen.lua --quiet --isas "$isas" --out build-asan/gen || no "kforge-gen --isas $isas failed"
if ninja -f ninja/asan.ninja; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; exit 1; fi
