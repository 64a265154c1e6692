#!/bin/sh
# The runtime called from many threads at once, under ThreadSanitizer
# (tests/test_threads.c, with the small kernel set). Prints its result line.
cd "$(dirname "$0")/.." || exit 1
lua5.4 generator/kforge-gen.lua --quiet --set specs/sets/small.lua --out build-tsan/gen || exit 1
ninja -f ninja/tsan.ninja build-tsan/tests/test_threads > build-tsan.log 2>&1 || { tail -20 build-tsan.log; exit 1; }
TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/test_threads
