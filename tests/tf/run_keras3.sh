#!/bin/bash
# tests/tf/run_keras3.sh -- Keras 3 (TF 2.21's default Keras) with kforge.tf.enable():
# its BatchNormalization through the fused op and kforge's gradient against
# Keras' own code (tests/tf/test_keras3.py).
#
#   bash tests/tf/run_keras3.sh [test_keras3.py options: --quick --verbose]
#
# Creates or reuses the pinned TensorFlow venv (tests/tf/venv.sh), pip-installs
# ./python into it and builds the custom-op library (cached), like
# run_tfop.sh. tests/run.sh runs it once whole and, with --quick, under
# KFORGE_ISA=avx2 and scalar. Ends with "N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tf/venv.sh

fail() { echo "tf-keras3: $*"; echo "0 passed, 1 failed"; exit 1; }

kforge_tf_venv || fail "no TensorFlow venv (see the tf-venv lines above)"
kforge_tf_with_kforge || fail "kforge is not installed in the TensorFlow venv (see above)"
export TF_CPP_MIN_LOG_LEVEL=3
unset TF_USE_LEGACY_KERAS
# TF's and Keras' chatter is not part of the result
"$KFORGE_TF_PY" tests/tf/test_keras3.py "$@" 2> >(grep -v "^WARNING\|cudart_stub\|^I0000\|^The dtype policy\|retracing\|UserWarning\|warnings.warn" >&2)
exit $?
