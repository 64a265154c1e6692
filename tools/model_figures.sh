#!/bin/sh
# Prints the README's table of per-model figures: builds every shipped model
# for each microcontroller target (running it under qemu where it fits).
#   sh tools/model_figures.sh
set -eu
cd "$(dirname "$0")/.."
echo "| model | target | kernels | kernel code (.text) | runtime code | largest scratch | arena | instructions (qemu -icount) |"
echo "|---|---|---|---|---|---|---|---|"
for spec in "kws_dscnn cortex-m4 --run" "kws_dscnn cortex-m0 --run" "resnet8_cifar cortex-m4 --run" \
            "mobilenet_v2_96 cortex-m4 --no-fallback --run" "mobilenet_v2_224 cortex-m4 --no-fallback" \
            "kws_dscnn rv32imac --run" "mobilenet_v2_96 rv32imac --no-fallback --run" \
            "kws_dscnn rv32imafc --run" "mobilenet_v2_96 rv32imafc --no-fallback --run"; do
  # shellcheck disable=SC2086
  set -- $spec
  sh tools/build-model.sh "$@" > /dev/null
  d=build/models/$1/$2; case "$spec" in *--no-fallback*) d=$d-nofallback ;; esac
  r=$d/report.txt
  k=$(sed -n 's/^kernels: //p' "$r")
  kc=$(sed -n 's/^kernel code total: \([0-9]*\) bytes/\1/p' "$r")
  rc=$(sed -n 's/^runtime code (kf_\*, kfi_\*): \([0-9]*\) bytes.*/\1/p' "$r")
  sc=$(sed -n 's/.*largest scratch: \([0-9]*\) bytes/\1/p' "$r")
  ar=$(sed -n 's/^arena .*: \([0-9]*\) bytes;.*/\1/p' "$r")
  ic=$(sed -n 's/.*instructions of one training step.s calls: \([0-9]*\)/\1/p' "$r")
  ram=$(lua5.4 tools/model/target_env.lua "specs/targets/$2.lua" | sed -n 's/^t_ram=//p')
  [ -n "$ic" ] || ic="does not fit the board's $((ram / 1048576)) MiB RAM"
  echo "| $1 | $2${3:+ $3} | $k | $kc B | $rc B | $sc B | $ar B | $ic |" | sed 's/ --run//'
done
