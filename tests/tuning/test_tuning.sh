#!/bin/sh
# Auto-tuning: every knob variant the tuner can pick is correct (test_bngrad,
# test_dwbpi and test_dwbpf against a library of all of them), tuning
# records are applied only where they belong, microcontroller tuning lowers
# the instruction count, the joint knob search finds optima within its
# budgets (tests/tuning/test_search.lua), and the host tuner runs it end to
# end on a model's calls within a budget, its picks checked against the
# reference.
# Prints "ok/FAIL" lines and "N passed, M failed, K skipped" (K: cases of
# kernels whose ISA this CPU does not run, counted by the C tests).
cd "$(dirname "$0")/../.." || exit 1
P=0 F=0 S=0
ok() { P=$((P + 1)); echo "ok - $*"; }
fail() { F=$((F + 1)); echo "FAIL - $*"; }
count() { # adds a sub-run's "N passed, M failed[, K skipped]"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -1)
  if [ -n "$line" ]; then
    P=$((P + ${line%% passed*})); f=${line#*, }; F=$((F + ${f%% failed*}))
    case $line in *" skipped"*) s=${line##*failed, }; S=$((S + ${s%% skipped*})) ;; esac
  else
    fail "$2 printed no result"; tail -20 "$1"
  fi
  grep '^FAIL' "$1" | head -20
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# 1. Every knob variant this CPU runs against the reference: the variants of
# the ISAs it lacks would only be compiled and skipped (on an AVX2 host the
# AVX-512 ones are over half of the library); a host with AVX-512 builds and
# runs them all.
# The kernels at -O0, the rest at -O1: the suite checks what each knob
# value computes, and without fast-math every -O level computes the same
# IEEE results (the ASan build runs every default kernel at -O0 too; the
# defaults run at -O2 in build/, build-gcc/ and build-aarch64/). Clang
# compiles the unrolled kernels at -O0 in a third of -O1's time, more than
# the slower runs cost (docs/testing.md, "Back under the line").
K=build/knobs
isas=$(sh tests/host_isas.sh $K) || fail "tests/host_isas.sh (tools/cpu_isas.c)"
lua5.4 generator/kforge-gen.lua --quiet --set specs/sets/knobs.lua --isas "${isas:-scalar}" --out $K/gen ||
  fail "knob set generates (ISAs $isas)"
cat > $K/build.ninja <<EON
builddir = $K/obj
gen = $K/gen
cc = clang
target_cflags = -O1
kernel_opt = -O0
target_ldflags = -lpthread -lm
include ninja/model.ninja
build $K/obj/t/test_bngrad.o: cc tests/test_bngrad.c
build $K/obj/t/bngrad_ref.o: cc tests/ref/bngrad_ref.c
build $K/obj/t/harness.o: cc tests/harness.c
build $K/obj/t/th_pool.o: cc tests/th_pool.c
build $K/test_bngrad: link $K/obj/t/test_bngrad.o $K/obj/t/bngrad_ref.o $K/obj/t/harness.o $K/obj/t/th_pool.o $K/obj/libkforge.a
build $K/obj/t/test_dwbpi.o: cc tests/test_dwbpi.c
build $K/obj/t/dwbpi_ref.o: cc tests/ref/dwbpi_ref.c
build $K/test_dwbpi: link $K/obj/t/test_dwbpi.o $K/obj/t/dwbpi_ref.o $K/obj/t/harness.o $K/obj/libkforge.a
build $K/obj/t/test_dwbpf.o: cc tests/test_dwbpf.c
build $K/obj/t/dwbpf_ref.o: cc tests/ref/dwbpf_ref.c
build $K/test_dwbpf: link $K/obj/t/test_dwbpf.o $K/obj/t/dwbpf_ref.o $K/obj/t/dwbpi_ref.o $K/obj/t/harness.o $K/obj/t/th_pool.o $K/obj/libkforge.a
EON
if ninja -f $K/build.ninja > "$TMP/b" 2>&1; then
  ok "the knob-variant library builds ($(grep -c '__' $K/gen/FILES) kernels of $isas)"
  $K/test_bngrad > "$TMP/k" 2>&1
  count "$TMP/k" "test_bngrad on every knob variant"
  KFORGE_TEST_EVERY_KERNEL_ONLY=1 $K/test_dwbpi > "$TMP/d" 2>&1
  count "$TMP/d" "test_dwbpi on every depthwise knob variant"
  KFORGE_TEST_EVERY_KERNEL_ONLY=1 $K/test_dwbpf > "$TMP/f" 2>&1
  count "$TMP/f" "test_dwbpf on every filter-gradient knob variant"
else
  fail "the knob-variant library builds"; tail -20 "$TMP/b"
fi

# 2. Records apply where they belong.
fp=$(lua5.4 generator/kforge-gen.lua --fingerprint --cc arm-none-eabi-gcc)
# the kernel of the record: what a scalar build runs for the model's first call
# (kws_dscnn's conv1/bn), named by the runtime's metadata (kforge plan)
k=$(KFORGE_ISA=scalar build/kforge plan FusedBatchNormGradV3 --attr T=float --attr data_format=NHWC \
  --attr is_training=true --input y_backprop=float:1,25,5,64 --input x=float:1,25,5,64 --input scale=float:64 \
  --input reserve_space_1=float:64 --input reserve_space_2=float:64 --input reserve_space_3=float: |
  sed -n 's/.*kernel = "\([^"]*\)".*/\1/p')
[ -n "$k" ] || fail "kforge plan names the kernel of kws_dscnn's conv1/bn"
rec() { # FILE CPU FINGERPRINT
  printf 'return {\n  cpu = "%s",\n  fingerprint = "%s",\n  records = {\n    { kernel = "%s", knobs = { L1_ELEMS = 8192 } },\n  },\n}\n' \
    "$2" "$3" "$k" > "$1"
}
gen() { lua5.4 generator/kforge-gen.lua --quiet --model specs/models/kws_dscnn.lua --target specs/targets/cortex-m4.lua \
  --cc arm-none-eabi-gcc --cpu armv7em:scalar:cortex-m4f-mps2-an386 --tuning "$1" --out "$TMP/g" 2>&1; }
rec "$TMP/exact.lua" armv7em:scalar:cortex-m4f-mps2-an386 "$fp"
m=$(gen "$TMP/exact.lua")
echo "$m" | grep -q "exact CPU armv7em:scalar:cortex-m4f-mps2-an386" && grep -q "tuned L1_ELEMS=8192" "$TMP/g/kfg_registry.c" &&
  ok "a record for this CPU is applied (tuned L1_ELEMS=8192)" || fail "exact record: $m"
rec "$TMP/isa.lua" armv7em:scalar:another-board "$fp"
m=$(gen "$TMP/isa.lua")
echo "$m" | grep -q "same ISA set armv7em:scalar" && grep -q "tuned L1_ELEMS=8192" "$TMP/g/kfg_registry.c" &&
  ok "a record of the same ISA set on another board is the fallback, and says so" || fail "same-ISA record: $m"
rec "$TMP/other.lua" x86_64:scalar+avx2:GenuineIntel-6-85 "$fp"
m=$(gen "$TMP/other.lua")
echo "$m" | grep -q "other CPUs, not applied" && ! grep -q "tuned" "$TMP/g/kfg_registry.c" &&
  ok "a record from another CPU is reported and not applied" || fail "foreign record: $m"
rec "$TMP/stale.lua" armv7em:scalar:cortex-m4f-mps2-an386 0123456789abcdef
m=$(gen "$TMP/stale.lua")
echo "$m" | grep -q "stale, not applied" && ! grep -q "tuned" "$TMP/g/kfg_registry.c" &&
  ok "a stale record (fingerprint differs) is reported and not applied" || fail "stale record: $m"

# 3. Microcontroller tuning by instruction count.
# Cortex-M4 (SysTick, 5 instructions a tick) and Cortex-M55 with Helium (a
# tick 1/32.768 instruction; MVE kernels held to the tolerance): the same
# tuner, no per-architecture code. The M55 varies L1_ELEMS only (the knob
# that lowers its count; 6 images instead of 9). rv32imac (minstret) with
# KFORGE_TESTS_LONG=1: the test command must stay within CI's budget.
mcu_targets="cortex-m4:L1_ELEMS,BLOCK cortex-m55:L1_ELEMS"
[ "${KFORGE_TESTS_LONG:-0}" = 1 ] && mcu_targets="$mcu_targets rv32imac:L1_ELEMS,BLOCK"
for tk in $mcu_targets; do
  t=${tk%%:*}
  lua5.4 tools/tune_mcu.lua kws_dscnn "$t" --knobs "${tk#*:}" --out "$TMP/mcu-$t.lua" > "$TMP/m" 2>&1
  count "$TMP/m" "tune_mcu $t"
  grep '^|' "$TMP/m"
done

# 4. The joint search itself, on fake cost functions (deterministic).
lua5.4 tests/tuning/test_search.lua > "$TMP/s" 2>&1
count "$TMP/s" "test_search.lua"

# 5. The host tuner, end to end: the joint search on the calls a traced
# model makes (kws_dscnn's batch norms), within tiny budgets; every point
# it picks is then checked against the float64 reference; wisdom is
# written for the plan-time choices.
if lua5.4 tools/tune.lua --only kfg_bngrad_f32_nhwc_train --manifest specs/models/kws_dscnn.lua --max-shapes 2 \
    --budget-seconds 60 --max-candidates 5 --reps 3 --out "$TMP/host.lua" --wisdom "$TMP/host.wisdom" \
    > "$TMP/h" 2>&1 && lua5.4 -e "assert(dofile('$TMP/host.lua').records[1].kernel)" &&
    grep -q "default build ns" "$TMP/h"; then
  ok "the joint search writes a record and verifies the tuned build ($(grep -c '^| |' "$TMP/h") rows)"
else
  fail "host tuner"; tail -20 "$TMP/h"
fi
pts=$(sed -n 's/.*search: \([0-9]*\) points.*/\1/p' "$TMP/h" | head -1)
[ -n "$pts" ] && [ "$pts" -le 5 ] && grep -q "aggregate (all shapes" "$TMP/h" &&
  ok "the search honours --max-candidates 5 ($pts points) and reports per shape and in aggregate" ||
  fail "candidate budget: '$pts' points"
[ -s "$TMP/host.wisdom" ] && ok "the tuner writes wisdom for the plan-time choices" || fail "no wisdom written"
# Every point the search timed, its picks among them, against the
# reference (forced kernels, test_bngrad).
Q=build/knobs-picked
cat > "$TMP/q.ninja" <<EON
builddir = $Q/obj
gen = $Q/gen
cc = clang
target_cflags = -O1
target_ldflags = -lpthread -lm
include ninja/model.ninja
build $Q/obj/t/test_bngrad.o: cc tests/test_bngrad.c
build $Q/obj/t/bngrad_ref.o: cc tests/ref/bngrad_ref.c
build $Q/obj/t/harness.o: cc tests/harness.c
build $Q/obj/t/th_pool.o: cc tests/th_pool.c
build $Q/test_bngrad: link $Q/obj/t/test_bngrad.o $Q/obj/t/bngrad_ref.o $Q/obj/t/harness.o $Q/obj/t/th_pool.o $Q/obj/libkforge.a
EON
# the points, beside a specialized scalar kernel of every configuration
# (test_bngrad checks that selection finds one)
{ echo 'return { name = "picked", summary = "the points the tuner timed", kernels = {'
  echo '  { family = "bngrad", kind = "specialized", isa = { "scalar" }, T = "*", layout = "*", mode = "*" },'
  grep '^    { ' build/tune/searched_set.lua
  echo '} }'; } > "$TMP/picked.lua"
if lua5.4 generator/kforge-gen.lua --quiet --set "$TMP/picked.lua" --out $Q/gen &&
    ninja -f "$TMP/q.ninja" > "$TMP/qb" 2>&1; then
  $Q/test_bngrad > "$TMP/q" 2>&1
  count "$TMP/q" "test_bngrad on the points the tuner timed ($(grep -c '__' $Q/gen/FILES) kernels)"
else
  fail "the library of the points the tuner timed builds"; tail -20 "$TMP/qb"
fi
# The time budget: with none left, no configuration is searched.
lua5.4 tools/tune.lua --only kfg_bngrad_f32_nhwc_train --manifest specs/models/kws_dscnn.lua --budget-seconds 0 \
  --out "$TMP/none.lua" --wisdom "$TMP/none.wisdom" > "$TMP/n" 2>&1
grep -q "budget reached" "$TMP/n" && lua5.4 -e "assert(#dofile('$TMP/none.lua').records == 0)" &&
  ok "the search honours --budget-seconds (0: nothing timed)" || { fail "time budget"; tail -5 "$TMP/n"; }

echo "$P passed, $F failed, $S skipped"
[ "$F" -eq 0 ]
