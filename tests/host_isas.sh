#!/bin/sh
# Prints the ISAs the runtime detects on this CPU (tools/cpu_isas.c, built
# into DIR), as kforge-gen's --isas takes them: "scalar,avx2" on an AVX2
# host. Test builds of kernels that only this CPU would run use it. With
# --others: the ISAs of the default set's kernels (generated/FILES) that
# this CPU does not run, one a line (test builds that only compile those).
#   sh tests/host_isas.sh DIR [--others]
cd "$(dirname "$0")/.." || exit 1
mkdir -p "$1" || exit 1
clang -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -Wall -Wextra -Werror -ffunction-sections -Wl,--gc-sections \
  -Iruntime -Igenerated tools/cpu_isas.c runtime/kf_cpu.c runtime/kf_core.c -o "$1/cpu_isas" || exit 1
isas=$(env -u KFORGE_ISA "$1/cpu_isas") || exit 1
if [ "${2-}" != --others ]; then echo "$isas"; exit 0; fi
for isa in $(sed -n 's/.*__\([a-z0-9]*\)\.c$/\1/p' generated/FILES | sort -u); do
  case ",$isas," in *",$isa,"*) ;; *) echo "$isa" ;; esac
done
