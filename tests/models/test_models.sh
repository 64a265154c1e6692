#!/bin/sh
# Per-model kernel sets and microcontroller builds (tools/build-model.sh):
# every shipped model for the host (TF rules at build time, its own kernels,
# the references), the microcontroller images under qemu (bit-identical to
# the host; Cortex-M55's Helium kernels within tolerance), no-fallback sets, bad manifests, and recording.
# Prints "ok/FAIL" lines and "N passed, M failed".
cd "$(dirname "$0")/../.." || exit 1
P=0 F=0
ok() { P=$((P + 1)); echo "ok - $*"; }
fail() { F=$((F + 1)); echo "FAIL - $*"; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# build MODEL TARGET [options]: one check, and the report's lines.
build() {
  m=$1 t=$2
  shift 2
  if sh tools/build-model.sh "$m" "$t" "$@" > "$TMP/out" 2>&1; then
    # the host check's own checks (each instance: its kernel, the reference)
    d=build/models/$(basename "$m" .lua)/$t; case " $* " in *" --no-fallback "*) d=$d-nofallback ;; esac
    P=$((P + $(sed -n 's/^\([0-9]*\) passed, 0 failed$/\1/p' "$d/check.txt")))
    ok "build-model $m $t $*: $(grep -E '^kernels:' "$TMP/out"), $(grep -E 'qemu run|does not fit' "$TMP/out" | cut -c1-90)"
  else
    fail "build-model $m $t $*"
    sed 's/^/    /' "$TMP/out" | tail -15
  fi
}

# The host sets' kernels of ISAs this CPU cannot run at -O0: the host check
# only links them (build-model.sh --kopt; the default set's build/ and
# build-gcc/ compile them optimized).
others=$(sh tests/host_isas.sh "$TMP" --others) || fail "tests/host_isas.sh --others (tools/cpu_isas.c)"
kopts=
for isa in $others; do kopts="$kopts --kopt $isa=-O0"; done
for m in kws_dscnn resnet8_cifar mobilenet_v2_96 mobilenet_v2_224 mobilenet_v3_small efficientnet_b0; do
  # shellcheck disable=SC2086
  build $m host $kopts
done
build kws_dscnn cortex-m4 --run
build kws_dscnn cortex-m0 --run
build resnet8_cifar cortex-m4 --run
build mobilenet_v2_96 cortex-m4 --no-fallback --run
build mobilenet_v2_224 cortex-m4 --no-fallback
# the other Keras-traced manifests: MobileNetV3-Small fits the board's RAM
# (2.7 MB arena) and runs; EfficientNet-B0 (14 MB) is built for its code size
build mobilenet_v3_small cortex-m4 --no-fallback --run
build efficientnet_b0 cortex-m4 --no-fallback
# RISC-V under qemu-system-riscv32 -M virt (2 MiB RAM): soft and hard float
for t in rv32imac rv32imafc; do
  build kws_dscnn $t --run
  build mobilenet_v2_96 $t --no-fallback --run
done

# The RISC-V counter is exact: a loop of 2 instructions per turn (addi,
# bnez), run for n and n + 100000 turns through the same code, counts
# exactly 200000 more, under the spec's own qemu command line.
cat > "$TMP/loop.c" <<'EOF'
#include <stdio.h>
#include "ticks.h"
static volatile uint32_t turns[2] = { 1000, 101000 };
__attribute__((noinline)) static uint32_t spin(uint32_t n) {
  uint32_t t0 = kfm_ticks();
  __asm__ volatile("mv t0, %0\n1: addi t0, t0, -1\nbnez t0, 1b" : : "r"(n) : "t0");
  return kfm_ticks() - t0;
}
int main(void) {
  uint32_t a, b;
  kfm_ticks_start();
  a = spin(turns[0]);
  b = spin(turns[1]);
  printf("%lu\n", (unsigned long)(b - a));
  return 0;
}
EOF
for t in rv32imac rv32imafc; do
  eval "$(lua5.4 tools/model/target_env.lua specs/targets/$t.lua)"
  n=
  # shellcheck disable=SC2086
  if $t_cc $t_cflags -std=c11 -Wall -Wextra -Werror --specs=picolibc.specs --oslib=semihost --crt0=semihost \
       -DPICOLIBC_INTEGER_PRINTF_SCANF -Imcu "$TMP/loop.c" "$t_ticks_src" $t_mem -o "$TMP/loop.elf" 2> "$TMP/cc" &&
     n=$(timeout 60 $t_qemu -display none -chardev stdio,id=sh0 -semihosting-config enable=on,target=native,chardev=sh0 \
       -kernel "$TMP/loop.elf") && [ "$((n * t_insn_per_tick))" = 200000 ]; then
    ok "$t: the instruction count is exact (200000 more for 100000 more turns of a 2-instruction loop)"
  else
    fail "$t: instruction count of a known loop: ${n:-none} ticks x $t_insn_per_tick, not 200000"; head "$TMP/cc"
  fi
done
# Cortex-M55 with Helium: the MVE kernels within tolerance of the host
# (tools/model/compare.c), and the same model with portable C kernels only,
# bit-identical; MVE must take at least 2.5x fewer instructions than scalar
# on the f32 depthwise and batch-norm gradients (issue 15).
build kws_dscnn cortex-m55 --run
build kws_dscnn cortex-m55-scalar --run
build resnet8_cifar cortex-m55 --run
# half and bfloat16 through the Helium layer's 16-bit loads and stores:
# kws_dscnn with T = half / bfloat16 (U = float) must match the host
for t in half bfloat16; do
  sed "s/T = \"float\"/T = \"$t\"/g; s/name = \"kws_dscnn\"/name = \"kws_dscnn_$t\"/" specs/models/kws_dscnn.lua \
    > "$TMP/kws_dscnn_$t.lua"
  build "$TMP/kws_dscnn_$t.lua" cortex-m55 --run
done
# kv_pair (multiplier 2), 5x5 stride 2 and predicated channel tails on Helium
build tests/models/mve_tails.lua cortex-m55 --run
v=build/models/kws_dscnn/cortex-m55/mcu-instructions.txt s=build/models/kws_dscnn/cortex-m55-scalar/mcu-instructions.txt
if [ -s "$v" ] && [ -s "$s" ]; then
  for fam in bngrad dwbpi dwbpf; do
    r=$(awk -v f="kfg_$fam" 'NR == FNR { if (index($2, f) == 1) a += $3; next } index($2, f) == 1 { b += $3 }
      END { if (b > 0) printf "%.2f", a / b; else print 0 }' "$s" "$v")
    if awk -v r="$r" 'BEGIN { exit !(r >= 2.5) }'; then
      ok "kws_dscnn on Cortex-M55: $fam takes ${r}x fewer instructions with MVE than scalar"
    else
      fail "kws_dscnn on Cortex-M55: $fam MVE/scalar instruction ratio ${r}x (want >= 2.5x)"
    fi
  done
fi

# The one-file amalgamation builds the same image: same outputs, bit for bit.
d=build/models/kws_dscnn/cortex-m4
if lua5.4 tools/amalgamate.lua $d/gen "$TMP/amal" > /dev/null &&
   arm=$(sed -n 's/^arena .*: \([0-9]*\) bytes;.*/\1/p' $d/report.txt) &&
   arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -Os -std=c11 -ffp-contract=off \
     -Wall -Wextra -Werror --specs=picolibc.specs --oslib=semihost --crt0=semihost -DKFM_ARENA_BYTES="$arm" \
     -I"$TMP/amal" -Itools/model -Imcu "$TMP/amal/kforge_all.c" tools/model/runner.c $d/gen/kfg_model.c $d/kfm_step.c \
     mcu/main.c mcu/ticks_arm.c \
     -Wl,--defsym=__flash=0x0 -Wl,--defsym=__flash_size=0x400000 -Wl,--defsym=__ram=0x20000000 \
     -Wl,--defsym=__ram_size=0x400000 -Wl,--wrap=malloc,--wrap=free,--wrap=_sbrk,--wrap=sbrk -lm \
     -o "$TMP/amal.elf" 2> "$TMP/cc" &&
   timeout 120 qemu-system-arm -M mps2-an386 -display none -icount shift=3 -chardev stdio,id=sh0 \
     -semihosting-config enable=on,target=native,chardev=sh0 -kernel "$TMP/amal.elf" > "$TMP/amal.txt" &&
   awk '/^[0-9]+ kfg_/ { print $1, $2, $3 }' "$TMP/amal.txt" | cmp -s - $d/host-hashes.txt; then
  ok "the one-file amalgamation (kforge.h + kforge_all.c) of kws_dscnn runs on Cortex-M4, bit-identical"
else
  fail "amalgamation build/run"; cat "$TMP/cc" 2>/dev/null | head; head "$TMP/amal.txt" 2>/dev/null
fi

# The training step (tools/model/plan.c): the planner alone on random
# lifetimes; then every shipped model's plan, checked by its host check
# (sound placement, chained inputs bit-identical to their producer's
# output), and its figures: chains where the manifest is in TF's backward
# order (each depthwise layer's two gradients read its batch-norm
# gradient's x_backprop), planned peak <= each call alone.
if cc -std=c11 -Wall -Wextra -Werror -Itools/model tests/models/test_plan.c tools/model/arena.c -o "$TMP/plan" 2> "$TMP/cc"; then
  "$TMP/plan" | grep -E '^(ok|FAIL)' > "$TMP/plan.out"
  P=$((P + $(grep -c '^ok' "$TMP/plan.out"))); F=$((F + $(grep -c '^FAIL' "$TMP/plan.out")))
  cat "$TMP/plan.out"
else
  fail "test_plan builds"; cat "$TMP/cc"
fi
for m in kws_dscnn:0 resnet8_cifar:0 mobilenet_v2_96:34 mobilenet_v2_224:34 mobilenet_v3_small:22 efficientnet_b0:32; do
  c=build/models/${m%:*}/host/check.txt
  line=$(grep '^model .* arena_bytes' "$c" 2>/dev/null)
  ch=$(echo "$line" | sed -n 's/.* chained \([0-9]*\),.*/\1/p')
  ar=$(echo "$line" | sed -n 's/.* arena_bytes \([0-9]*\),.*/\1/p')
  lb=$(echo "$line" | sed -n 's/.* lower_bound \([0-9]*\),.*/\1/p')
  pc=$(echo "$line" | sed -n 's/.* per_call_arena \([0-9]*\),.*/\1/p')
  if grep -q '^ok - arena plan of the .* (sound)$' "$c" && grep -q '^ok - every chained input is its producer' "$c" &&
     [ "$ch" = "${m#*:}" ] && [ "$ar" -ge "$lb" ] && [ "$ar" -le "$pc" ]; then
    ok "${m%:*} step: $ch chained inputs, planned arena $ar bytes (lower bound $lb, each call alone $pc)"
  else
    fail "${m%:*} step plan: $line"
  fi
done
# Against each call run alone (every input synthesized): exactly the calls
# with a chained input differ; and in place changes no bit (every
# batch-norm gradient kernel reads an element before it writes it).
h=build/models/mobilenet_v2_96/host
if $h/host/check --alone --hashes "$TMP/alone" > /dev/null && $h/host/check --no-inplace --hashes "$TMP/noin" > /dev/null &&
   [ "$(diff $h/host-hashes.txt "$TMP/alone" | grep -c '^<')" = 34 ] &&
   [ -z "$(diff $h/host-hashes.txt "$TMP/alone" | grep '^<' | grep -v ' kfg_dwbp[fi]_')" ] &&
   cmp -s $h/host-hashes.txt "$TMP/noin"; then
  ok "mobilenet_v2_96 step: exactly its 34 chained depthwise calls differ from running alone; in place is bit-identical"
else
  fail "mobilenet_v2_96 step vs alone / in place"
fi
# The step table the image runs: a chained input's offset is its producer's output's.
if awk '/^  \{ \/\*/ { n++ } END { exit !(n == 86) }' build/models/mobilenet_v2_96/cortex-m4-nofallback/kfm_step.c &&
   grep -q 'block_16_depthwise \*/.*\.from = { -1, -1, 2,' build/models/mobilenet_v2_96/cortex-m4-nofallback/kfm_step.c; then
  ok "mobilenet_v2_96 step table: 86 calls, block_16_depthwise's out_backprop from call 2 (block_16_depthwise_BN)"
else
  fail "mobilenet_v2_96 step table"
fi

# No fallback: only the model's kernels, and a clear error for anything else.
build kws_dscnn host-scalar --no-fallback
d=build/models/kws_dscnn/host-scalar-nofallback
if clang -std=c11 -Wall -Wextra -Werror -Iruntime -I"$d/gen" tests/models/test_nofallback.c "$d/host/libkforge.a" -lm \
    -o "$TMP/nofb" 2> "$TMP/cc"; then
  "$TMP/nofb" | grep -E '^(ok|FAIL)' | while read -r line; do echo "$line"; done > "$TMP/nofb.out"
  P=$((P + $(grep -c '^ok' "$TMP/nofb.out"))); F=$((F + $(grep -c '^FAIL' "$TMP/nofb.out")))
  cat "$TMP/nofb.out"
else
  fail "test_nofallback builds"; cat "$TMP/cc"
fi

# Options without their value: a usage error (exit 2), nothing built.
for args in "--kopt" "--kopt avx512" "--tag"; do
  # shellcheck disable=SC2086
  sh tools/build-model.sh kws_dscnn host-usage $args > "$TMP/out" 2>&1
  rc=$?
  if [ "$rc" = 2 ] && grep -q "^build-model: ${args%% *} takes" "$TMP/out" && [ ! -e build/models/kws_dscnn/host-usage ]; then
    ok "build-model.sh kws_dscnn host-usage $args: a usage error, nothing built"
  else
    fail "build-model.sh $args: exit $rc, $(head -1 "$TMP/out")"
  fi
done

# A manifest the generator rejects, with the model, instance and field named.
sed 's/attrs = { T = "float", strides = "1,1,1,1", padding = "SAME"/attrs = { T = "float", strides = "1,1,1,1", padding = "SAME", bogus = "1"/' \
  specs/models/kws_dscnn.lua > "$TMP/kws_badattr.lua"
if sh tools/build-model.sh "$TMP/kws_badattr.lua" host > "$TMP/out" 2>&1; then
  fail "a manifest with an unknown attr is rejected"
else
  grep -q "model kws_dscnn, instance 'ds1/depthwise' (instances\[2\]): attr bogus: DepthwiseConv2dNativeBackpropInput has no such attr" "$TMP/out" &&
    ok "a manifest with an unknown attr is rejected naming model, instance and attr" ||
    { fail "unknown attr message"; cat "$TMP/out"; }
fi
# A manifest that breaks a TF rule: caught when the generator plans it (kforge plan).
sed '0,/filter = { 3, 3, 64, 1 }/s//filter = { 3, 3, 32, 1 }/' specs/models/kws_dscnn.lua > "$TMP/kws_badrule.lua"
if sh tools/build-model.sh "$TMP/kws_badrule.lua" host > "$TMP/out" 2>&1; then
  fail "a manifest breaking a TF rule is rejected"
else
  grep -q "model kws_dscnn, instance 'ds1/depthwise' (instances\[2\]): rule dwbpi.in_depth: DepthwiseConv2DBackpropInput: input and filter must have the same in_depth" "$TMP/out" &&
    ok "a manifest breaking a TF rule is rejected naming model, instance and rule" ||
    { fail "TF rule message"; cat "$TMP/out"; }
fi
# No specialization and no fallback: a build-time error naming the configuration.
sed '0,/filter = { 3, 3, 64, 1 }/s//filter = { 9, 9, 64, 1 }/' specs/models/kws_dscnn.lua > "$TMP/kws_k9.lua"
if lua5.4 generator/kforge-gen.lua --model "$TMP/kws_k9.lua" --target specs/targets/cortex-m4.lua --no-fallback \
    --out "$TMP/k9" > "$TMP/out" 2>&1; then
  fail "a call with no specialization is a build error with --no-fallback"
else
  grep -q "instance 'ds1/depthwise' (instances\[2\]): no specialization (axis kh has no value 9)" "$TMP/out" &&
    [ ! -e "$TMP/k9" ] && ok "a call with no specialization is a build error with --no-fallback (nothing written)" ||
    { fail "no-fallback message"; cat "$TMP/out"; }
fi

# Recording.
lua5.4 tests/models/test_record.lua build/kforge > "$TMP/rec" 2>&1
P=$((P + $(grep -c '^ok' "$TMP/rec"))); F=$((F + $(grep -c '^FAIL' "$TMP/rec")))
grep -E '^(ok|FAIL)' "$TMP/rec"

echo "$P passed, $F failed"
[ "$F" -eq 0 ]
