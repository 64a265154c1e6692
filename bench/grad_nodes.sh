#!/bin/bash
# bench/grad_nodes.sh -- each gradient call of a model in model order, TF's kernel against
# kforge's, split per graph node by TF's profiler (bench/grad_nodes.py; its options).
# Reuses the pinned TF venv (tests/tf/venv.sh) and installs this checkout's ./python
# into it first, as bench/train_targets.sh does.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/tf/venv.sh
kforge_tf_venv || exit 1
kforge_tf_with_kforge || exit 1
export TF_CPP_MIN_LOG_LEVEL=3
"$KFORGE_TF_PY" bench/grad_nodes.py "$@" 2> >(grep -v "^WARNING\|cudart_stub\|^I0000\|^To enable" >&2)
