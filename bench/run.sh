#!/bin/sh
# `ninja bench`: PyTorch timings (if /usr/bin/python3 has torch), then the
# kforge benchmark, which reads them. BENCH_ARGS passes options to both
# (e.g. BENCH_ARGS="--reps 11"); BENCH_FILTER selects cases; PYTHON names the
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
  if "$py" -c 'import torch' 2>/dev/null; then
    echo "PyTorch $("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)${ATEN_CPU_CAPABILITY:+ (ATEN_CPU_CAPABILITY=$ATEN_CPU_CAPABILITY)} timings (bench/bench_torch.py) ..."
    rm -f "$b/bench/torch_results.txt" # each script appends to it
    for pyf in $pys; do
      "$py" "$pyf" "$b/bench/torch_results.txt" ${filter:+--filter "$filter"} ${BENCH_ARGS:-}
    done
  else
    echo "(PyTorch not found: $py -c 'import torch' failed; torch columns empty)"
    rm -f "$b/bench/torch_results.txt"
  fi
  # oneDNN's OpenMP threads must not spin while kforge's pool runs
  OMP_WAIT_POLICY=passive "$b/bench/kforge_bench" --torch "$b/bench/torch_results.txt" \
    ${filter:+--filter "$filter"} ${BENCH_ARGS:-}
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
