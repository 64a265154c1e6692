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

for m in kws_dscnn resnet8_cifar mobilenet_v2_96 mobilenet_v2_224 mobilenet_v3_small efficientnet_b0; do
  build $m host
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
     -I"$TMP/amal" -Itools/model "$TMP/amal/kforge_all.c" tools/model/runner.c $d/gen/kfg_model.c mcu/main.c \
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
