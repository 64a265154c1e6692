#!/bin/bash
# bench/tf_py.sh SCRIPT [ARGS] -- runs a bench script under the pinned TF venv's python
# (tests/tf/venv.sh), with this checkout's ./python installed into it first, as
# tests/tf/run_train.sh does; TF's start-up chatter is filtered from stderr.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/tf/venv.sh
kforge_tf_venv || exit 1
kforge_tf_with_kforge || exit 1
export TF_CPP_MIN_LOG_LEVEL=3
"$KFORGE_TF_PY" "$@" 2> >(grep -v "^WARNING\|cudart_stub\|^I0000\|^To enable" >&2)
