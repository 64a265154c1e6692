#!/bin/sh
# `ninja bench`: PyTorch timings (if /usr/bin/python3 has torch), then the
# kforge benchmark, which reads them. BENCH_ARGS passes options to both
# (e.g. BENCH_ARGS="--reps 11"); BENCH_FILTER selects cases.
set -e
b=${1:-build}
mkdir -p "$b/bench"
filter=${BENCH_FILTER:-}
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "PyTorch timings (bench/bench_torch.py) ..."
  /usr/bin/python3 bench/bench_torch.py "$b/bench/torch_results.txt" ${filter:+--filter "$filter"} ${BENCH_ARGS:-}
  # op scripts after the first append to the same file
  if [ -f bench/bench_torch_dwbpi.py ]; then
    /usr/bin/python3 bench/bench_torch_dwbpi.py "$b/bench/torch_results.txt" ${filter:+--filter "$filter"} ${BENCH_ARGS:-}
  fi
else
  echo "(PyTorch not found: /usr/bin/python3 -c 'import torch' failed; torch columns empty)"
  rm -f "$b/bench/torch_results.txt"
fi
# oneDNN's OpenMP threads must not spin while kforge's pool runs
OMP_WAIT_POLICY=passive "$b/bench/kforge_bench" --torch "$b/bench/torch_results.txt" \
  ${filter:+--filter "$filter"} ${BENCH_ARGS:-}
