#!/bin/sh
# `ninja bench`: the kforge benchmark, which asks the op families' PyTorch
# scripts (if /usr/bin/python3 has torch) for each row's timing right after
# kforge's (bench/torch_timing.py). BENCH_ARGS passes options to kforge_bench
# (e.g. BENCH_ARGS="--reps 11", which PyTorch follows); BENCH_FILTER selects cases; PYTHON names the
# interpreter that has torch (Debian's /usr/bin/python3 by default).
set -e
py=${PYTHON:-/usr/bin/python3}
b=${1:-build}
# the op families' PyTorch scripts (their specs' sources.bench_py), from ninja
[ $# -gt 0 ] && shift
pys=${*:-bench/bench_torch.py}
mkdir -p "$b/bench"
filter=${BENCH_FILTER:-}

# One section per ISA class: the host's best, then (on an AVX-512 host) the
# same run with kforge, oneDNN and PyTorch all capped at AVX2, so AVX2-only
# users' figures are measured too. (An AVX-512 machine capped at AVX2 is not
# an AVX2 machine -- clocks, caches and store buffers differ -- so each
# section names its host.) oneDNN 2.6 reads DNNL_MAX_CPU_ISA, newer ones
# ONEDNN_MAX_CPU_ISA; PyTorch reads ATEN_CPU_CAPABILITY.
section() {
  name=$1
  echo "==== $name ===="
  set --
  if "$py" -c 'import torch' 2>/dev/null; then
    echo "PyTorch $("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)${ATEN_CPU_CAPABILITY:+ (ATEN_CPU_CAPABILITY=$ATEN_CPU_CAPABILITY)}: its scripts serve kforge_bench row by row"
    set -- --torch-py "$py"
    for pyf in $pys; do set -- "$@" --torch-script "$pyf"; done
  else
    echo "(PyTorch not found: $py -c 'import torch' failed; torch columns empty)"
    set -- --torch /dev/null
  fi
  # oneDNN's OpenMP threads must not spin while kforge's pool runs
  OMP_WAIT_POLICY=passive "$b/bench/kforge_bench" "$@" ${filter:+--filter "$filter"} ${BENCH_ARGS:-}
}

if grep -qw avx512f /proc/cpuinfo 2>/dev/null && [ -z "${KFORGE_ISA:-}" ]; then
  section "AVX-512 (this host's best ISA)"
  KFORGE_ISA=avx2 DNNL_MAX_CPU_ISA=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 \
    section "AVX2 (kforge, oneDNN and PyTorch capped at AVX2 on this AVX-512 host)"
elif grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  section "AVX2 (this host's best ISA${KFORGE_ISA:+; KFORGE_ISA=$KFORGE_ISA})"
else
  section "this host's best ISA"
fi
