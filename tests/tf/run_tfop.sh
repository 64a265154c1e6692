#!/bin/bash
# tests/tf/run_tfop.sh -- kforge's TensorFlow custom ops (python/kforge/tf)
# against tf.raw_ops (tests/tf/test_tf_ops.py).
#
#   bash tests/tf/run_tfop.sh [test_tf_ops.py options: --seed S --calls N --verbose]
#
# Creates or reuses the pinned TensorFlow venv (tests/tf/venv.sh),
# pip-installs ./python into it (--no-deps: the venv has numpy and
# ml_dtypes), builds the custom-op library against that TF (cached under
# ~/.cache/kforge/tfop, or $KFORGE_TF_CACHE) and runs the tests. Ends with
# "N passed, M failed"; non-zero exit on any failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tf/venv.sh

fail() { echo "tf-ops: $*"; echo "0 passed, 1 failed"; exit 1; }

kforge_tf_venv || fail "no TensorFlow venv (see the tf-venv lines above)"
kforge_tf_with_kforge || fail "kforge is not installed in the TensorFlow venv (see above)"
export TF_CPP_MIN_LOG_LEVEL=3
# AutoGraph/absl chatter is not part of the result
"$KFORGE_TF_PY" tests/tf/test_tf_ops.py "$@" 2> >(grep -v "^WARNING: All log messages\|cudart_stub\|^I0000" >&2)
rc=$?
exit "$rc"
