#!/bin/sh
# Builds one model's kernel set for one target:
#   sh tools/build-model.sh MODEL TARGET [--no-fallback] [--run] [--tuning FILE] [--tag NAME]
#                           [--kopt ISA=FLAGS]...
# MODEL names specs/models/MODEL.lua, TARGET specs/targets/TARGET.lua.
# Output: build/models/MODEL/TARGET[-nofallback]/
#   gen/          the generated set: only the model's kernels, its registry,
#                 kfg_model.c (the instance table)
#   host/check    plans every instance with the set (TF's rules, at build
#                 time), proves each gets its own kernel, compares with the
#                 double references, plans the training step's arena
#                 (kfm_step.c: offsets and chained inputs, for the image)
#   image.elf     (microcontroller targets) bare-metal image, no heap: the
#                 link fails if malloc, free or sbrk are pulled in
#   report.txt    kernels, code size per kernel, arena and scratch bytes,
#                 and with --run the instruction count under qemu
# --run runs the image under the target's qemu (the spec's mcu.qemu, with
# -icount) and requires every output to be bit-identical to the host's run
# of the same (portable C) kernels; on a target with vector kernels (isas
# beyond scalar, e.g. cortex-m55's mve) outputs whose bits differ are held
# to the tolerances of tools/model/compare.c instead (the image writes them
# over semihosting).
# --tuning FILE applies a tuning record for the target (docs/tuning.md);
# --tag NAME appends -NAME to the build folder (tuning candidates).
# --kopt ISA=FLAGS compiles the host half's ISA kernels with FLAGS after the
# others (the test suite: -O0 for the ISAs this CPU cannot run, whose
# kernels the host check only links).
set -eu
cd "$(dirname "$0")/.."
usage="usage: sh tools/build-model.sh MODEL TARGET [--no-fallback] [--run] [--tuning FILE] [--tag NAME] [--kopt ISA=FLAGS]..."
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
model=$1 target=$2
shift 2
nofb= run= tuning= tag= kopts=
while [ $# -gt 0 ]; do
  case $1 in
    --tuning|--tag|--kopt) [ $# -ge 2 ] || { echo "build-model: $1 takes a value; $usage" >&2; exit 2; } ;;
  esac
  case $1 in
    --no-fallback) nofb=--no-fallback ;;
    --run) run=1 ;;
    --tuning) tuning=$2; shift ;;
    --tag) tag=$2; shift ;;
    --kopt)
      case $2 in
        [a-z]*=*) kopts="${kopts}kopt_${2%%=*} = \$ ${2#*=}
" ;;
        *) echo "build-model: --kopt takes ISA=FLAGS" >&2; exit 2 ;;
      esac
      shift ;;
    *) echo "build-model: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
# A model is named (specs/models/NAME.lua) or given as a path to a manifest.
case $model in
  */*|*.lua) mfile=$model; model=$(basename "$model" .lua) ;;
  *) mfile=specs/models/$model.lua ;;
esac
tfile=specs/targets/$target.lua
out=build/models/$model/$target${nofb:+-nofallback}${tag:+-$tag}
mkdir -p "$out"

# The target's build settings, from its spec.
eval "$(lua5.4 tools/model/target_env.lua "$tfile")"

# The generator asks the host CLI for each instance's kernel key
# (generator/model.lua: `kforge plan --batch`): build it unless given.
if [ -z "${KFORGE_CLI:-}" ]; then
  ninja build/kforge >/dev/null || { echo "build-model: the host CLI build/kforge does not build" >&2; exit 1; }
fi

if [ -n "$tuning" ]; then
  [ "$t_mcu" = 1 ] || { echo "build-model: --tuning is for microcontroller targets here; host sets: docs/tuning.md" >&2; exit 2; }
  lua5.4 generator/kforge-gen.lua --quiet --model "$mfile" --target "$tfile" $nofb --out "$out/gen" \
    --tuning "$tuning" --cpu "$t_cpu" --cc "$t_cc"
else
  lua5.4 generator/kforge-gen.lua --quiet --model "$mfile" --target "$tfile" $nofb --out "$out/gen"
fi

# ---- host half: validate every instance, check kernels and results -------
# The references: every tests/ref/*.c (ref_ops.c reaches them by op).
h=$out/host
refs= ref_edges=
for f in tests/ref/*.c; do
  o=$h/obj/model/ref/$(basename "$f" .c).o
  refs="$refs $o"
  ref_edges="${ref_edges}build $o: cc $f
"
done
cat > "$out/host.ninja" <<EOF
builddir = $h
gen = $out/gen
cc = clang
target_cflags = -O2
target_ldflags = -lm
${kopts}include ninja/model.ninja
build $h/obj/model/kfg_model.o: cc $out/gen/kfg_model.c
build $h/obj/model/runner.o: cc tools/model/runner.c
build $h/obj/model/check.o: cc tools/model/check.c
build $h/obj/model/plan.o: cc tools/model/plan.c
build $h/obj/model/arena.o: cc tools/model/arena.c
build $h/obj/model/compare.o: cc tools/model/compare.c
build $h/obj/model/dump.o: cc tools/model/dump.c
build $h/compare: link $h/obj/model/compare.o
${ref_edges}build $h/check: link $h/obj/model/check.o $h/obj/model/dump.o $h/obj/model/plan.o $h/obj/model/arena.o $refs $h/obj/model/kfg_model.o $h/obj/model/runner.o $h/libkforge.a
EOF
ninja -f "$out/host.ninja" >/dev/null
dump=
if [ "$t_vector" = 1 ] && [ -n "$run" ]; then
  rm -rf "$out/dump-host" "$out/dump-mcu"
  mkdir -p "$out/dump-host" "$out/dump-mcu"
  dump="--dump $out/dump-host"
fi
# shellcheck disable=SC2086
if ! "$h/check" --hashes "$out/host-hashes.txt" --plan "$out/kfm_step.c" $dump > "$out/check.txt"; then
  grep -E '^FAIL' "$out/check.txt" >&2 || true
  echo "build-model: $model for $target: the host check failed (see $out/check.txt)" >&2
  exit 1
fi
# The arena: the step's planned peak (tools/model/plan.c); for comparison
# the lower bound, the plan without in-place outputs, each call alone.
arena=$(sed -n 's/.* arena_bytes \([0-9]*\).*/\1/p' "$out/check.txt")
lower=$(sed -n 's/.* lower_bound \([0-9]*\).*/\1/p' "$out/check.txt")
noinpl=$(sed -n 's/.* arena_noinplace \([0-9]*\).*/\1/p' "$out/check.txt")
percall=$(sed -n 's/.* per_call_arena \([0-9]*\).*/\1/p' "$out/check.txt")
chained=$(sed -n 's/.* chained \([0-9]*\),.*/\1/p' "$out/check.txt")
peak=$(sed -n 's/.* peak_call \([0-9]*\) \([^,]*\),.*/#\1 \2/p' "$out/check.txt")
scratch=$(sed -n 's/.*scratch_bytes \([0-9]*\).*/\1/p' "$out/check.txt")
nkern=$(grep -c '^[^/]*/kfg_' "$out/gen/FILES" || true)

{
  echo "model $model, target $target${nofb:+, no generic fallback}"
  echo "kernels: $nkern"
  sed 's/^/  /' "$out/gen/FILES" | grep '/kfg_' | sed 's|  [a-z]*/||; s|\.c$||'
  echo "arena (the training step's planned peak; lower bound $lower at call $peak): $arena bytes; largest scratch: $scratch bytes"
  echo "  chained inputs: $chained; without in-place outputs: $noinpl bytes; each call alone (largest call): $percall bytes"
} > "$out/report.txt"

if [ "$t_mcu" = 1 ]; then
  # ---- microcontroller half -----------------------------------------------
  m=$out/mcu
  pico="--specs=picolibc.specs --oslib=semihost --crt0=semihost"
  trap_heap="-Wl,--wrap=malloc,--wrap=_malloc_r,--wrap=calloc,--wrap=_calloc_r,--wrap=realloc,--wrap=_realloc_r"
  trap_heap="$trap_heap,--wrap=free,--wrap=_free_r,--wrap=_sbrk,--wrap=sbrk"
  cat > "$out/mcu.ninja" <<EOF
builddir = $m
gen = $out/gen
cc = $t_cc
target_cflags = $t_cflags $pico -DPICOLIBC_INTEGER_PRINTF_SCANF
target_ldflags = $t_mem $trap_heap -Wl,--gc-sections -lm
include ninja/model.ninja
build $m/obj/model/kfg_model.o: cc $out/gen/kfg_model.c
build $m/obj/model/runner.o: cc tools/model/runner.c
build $m/obj/model/kfm_step.o: cc $out/kfm_step.c
build $m/obj/mcu/main.o: cc mcu/main.c
  cflags = \$cflags -DKFM_ARENA_BYTES=$arena${dump:+ -DKFM_DUMP=\\\"$out/dump-mcu\\\"}
build $m/obj/mcu/ticks.o: cc $t_ticks_src
build $m/obj/model/dump.o: cc tools/model/dump.c
build $out/image.elf: link $m/obj/mcu/main.o $m/obj/mcu/ticks.o $m/obj/model/kfg_model.o $m/obj/model/runner.o $m/obj/model/kfm_step.o ${dump:+$m/obj/model/dump.o} $m/libkforge.a
EOF
  # A model whose arena does not fit the board's RAM (with room for stack
  # and libc) still gets its image linked with a token arena, for the code
  # size; it cannot run there.
  fits=1
  if [ "$arena" -gt $((t_ram - 65536)) ]; then
    fits=0
    sed -i "s/-DKFM_ARENA_BYTES=$arena/-DKFM_ARENA_BYTES=16/" "$out/mcu.ninja"
    echo "does not fit: the arena ($arena bytes) exceeds the board's RAM ($t_ram bytes); code size only" \
      >> "$out/report.txt"
  fi
  ninja -f "$out/mcu.ninja" >/dev/null
  size=${t_cc%gcc}size
  nm=${t_cc%gcc}nm
  {
    $nm -S "$out/image.elf" | lua5.4 tools/model/size_report.lua
    echo "image (text data bss):"
    $size "$out/image.elf" | tail -1 | awk '{ printf "  %d %d %d\n", $1, $2, $3 }'
    echo
  } >> "$out/report.txt"
  if [ -n "$run" ] && [ "$fits" = 1 ]; then
    # shellcheck disable=SC2086
    timeout 600 $t_qemu -display none -chardev stdio,id=sh0 \
      -semihosting-config enable=on,target=native,chardev=sh0 -kernel "$out/image.elf" > "$out/mcu-run.txt" || {
      echo "build-model: $model on $target: the image failed under qemu (see $out/mcu-run.txt)" >&2
      exit 1
    }
    awk '/^[0-9]+ kfg_/ { print $1, $2, $3 }' "$out/mcu-run.txt" > "$out/mcu-hashes.txt"
    # Instructions per instance: ticks times the target's instructions per
    # tick (tools/model/target_env.lua), rounded: exact where a tick is a
    # whole number of instructions (mps2: 5, rv32 minstret: 1) or much finer
    # than one (an547: 32.768 ticks an instruction).
    awk -v per="$t_insn_per_tick" '/^[0-9]+ kfg_/ && $4 == "ticks" {
      n = int($5 * per + 0.5); t += n; print $1, $2, n } END { printf "total %.0f\n", t }' \
      "$out/mcu-run.txt" > "$out/mcu-instructions.txt"
    insns=$(sed -n 's/^total //p' "$out/mcu-instructions.txt")
    if [ "$t_vector" = 1 ]; then
      # Same instance, same hash: bit-identical; else a vector kernel's
      # outputs within tolerance (a portable C kernel must still match bits).
      what=$(awk 'NR == FNR { h[$1] = $3; next } { print $1, $2, ($3 == h[$1] ? "same" : "differs") }' \
        "$out/host-hashes.txt" "$out/mcu-hashes.txt")
      [ "$(echo "$what" | grep -c .)" = "$(grep -c . "$out/host-hashes.txt")" ] || {
        echo "build-model: $model on $target: the image ran $(echo "$what" | grep -c .) of $(grep -c . "$out/host-hashes.txt") instances" >&2
        exit 1
      }
      names=$(echo "$what" | awk '$3 == "differs" { print $1 }' | while read -r i; do
        (cd "$out/dump-host" && ls "${i}"_*); done)
      if echo "$what" | awk '$3 == "differs" && $2 ~ /__scalar$/ { bad = 1 } END { exit !bad }'; then
        echo "build-model: $model on $target: a portable C kernel's outputs differ from the host's" >&2
        echo "$what" | grep 'differs' >&2
        exit 1
      fi
      # shellcheck disable=SC2086
      if ! "$h/compare" "$out/dump-host" "$out/dump-mcu" $names > "$out/compare.txt"; then
        echo "build-model: $model on $target: outputs beyond the tolerance (see $out/compare.txt)" >&2
        grep FAIL "$out/compare.txt" >&2 || true
        exit 1
      fi
      nsame=$(echo "$what" | grep -c ' same$' || true) nall=$(echo "$what" | grep -c .)
      worst=$(awk '{ if ($5 > w) w = $5 } END { printf "%.3g", w + 0 }' "$out/compare.txt")
      if [ "$nsame" = "$nall" ]; then
        agree="every output bit-identical to the host"
      else
        agree="$nsame of $nall instances bit-identical to the host, the others within tolerance (worst $worst of max|host|, tools/model/compare.c)"
      fi
      echo "qemu run: $agree; instructions of one training step's calls: $insns" >> "$out/report.txt"
    else
      if ! cmp -s "$out/mcu-hashes.txt" "$out/host-hashes.txt"; then
        echo "build-model: $model on $target: outputs differ from the host's (diff below)" >&2
        diff "$out/host-hashes.txt" "$out/mcu-hashes.txt" >&2 || true
        exit 1
      fi
      echo "qemu run: every output bit-identical to the host; instructions of one training step's calls: $insns" \
        >> "$out/report.txt"
    fi
  fi
fi
cat "$out/report.txt"
