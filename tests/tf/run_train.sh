#!/bin/bash
# tests/tf/run_train.sh -- a tf-keras training step with kforge's gradients
# (kforge.tf.enable()) against TF's own (tests/tf/test_train.py): toy
# gradients eager and in tf.function, then MobileNetV2 0.35/96 trained 20
# steps with TF's and with kforge's gradients under float32 and
# mixed_bfloat16 (and mixed_float16 with KFORGE_TESTS_LONG=1).
#
#   bash tests/tf/run_train.sh [test_train.py options: --steps N --batch B --policies P,Q --verbose]
#
# Creates or reuses the pinned TensorFlow venv (tests/tf/venv.sh),
# pip-installs ./python into it (--no-deps; about 4 s: it links build/'s
# objects), builds the custom-op library (cached) and runs the test (about
# 2.5 minutes on 2 cores). Ends with "N passed, M failed"; non-zero exit on
# any failure.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tf/venv.sh

fail() { echo "tf-train: $*"; echo "0 passed, 1 failed"; exit 1; }

kforge_tf_venv || fail "no TensorFlow venv (see the tf-venv lines above)"
kforge_tf_with_kforge || fail "kforge is not installed in the TensorFlow venv (see above)"
export TF_CPP_MIN_LOG_LEVEL=3
# float32 and one reduced-precision policy, mixed_bfloat16 (the one CPUs
# train in); mixed_float16 too with KFORGE_TESTS_LONG=1 (each policy is
# three 20-step trainings: the test command's time budget). A --policies
# argument wins.
policies=float32,mixed_bfloat16
[ "${KFORGE_TESTS_LONG:-0}" = 1 ] && policies=float32,mixed_float16,mixed_bfloat16
# TF's and Keras' chatter (absl, retracing and mixed-precision warnings) is not part of the result
"$KFORGE_TF_PY" tests/tf/test_train.py --policies "$policies" "$@" 2> >(grep -v "^WARNING\|cudart_stub\|^I0000\|^The dtype policy\|^If you will use\|retracing" >&2)
exit $?
