#!/bin/bash
# bench/grad_nodes.sh -- each gradient call of a model in model order, TF's kernel against
# kforge's, split per graph node by TF's profiler (bench/grad_nodes.py; its options), in the
# pinned TF venv with this checkout's ./python installed (bench/tf_py.sh).
exec bash "$(dirname "$0")/tf_py.sh" bench/grad_nodes.py "$@"
