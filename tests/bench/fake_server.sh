#!/bin/sh
# The protocol of bench/torch_timing.py --serve, scripted for
# tests/bench/test_serve.c: the family's prefix is this file's name before
# "_server.sh"; each answer says something the client must have passed.
prefix=$(basename "$0" _server.sh)
case "$1" in
  --prefix) echo "$prefix" ;;
  --serve)
    echo "ready $prefix"
    while read -r reps key; do
      case "$key" in
        "$prefix reps") echo "$reps" ;;                # the client's reps
        "$prefix cpus") nproc ;;                       # the CPUs it was pinned to
        "$prefix env") # the environment the client sets
          if [ "$OMP_WAIT_POLICY" = passive ] && [ "$MALLOC_MMAP_THRESHOLD_" = 33554432 ] &&
             [ "$ATEN_CPU_CAPABILITY" = avx2 ]; then echo 1; else echo 0; fi ;;
        "$prefix half") echo "- \"slow_conv2d_cpu\" not implemented for 'Half'" ;;
        "$prefix die") exit 0 ;;
        *) echo "- no such case: $reps $key" ;;
      esac
    done ;;
  *) exit 2 ;;
esac
