#!/bin/bash
# tests/tf/run_train.sh -- a tf-keras training step with kforge's gradients
# (kforge.tf.enable()) against TF's own (tests/tf/test_train.py): toy
# gradients eager and in tf.function, then MobileNetV2 0.35/96 trained 10
# steps with TF's and with kforge's gradients under float32 and
# mixed_bfloat16 (20 steps, and mixed_float16 too, with KFORGE_TESTS_LONG=1).
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
# train in), 10 steps each; with KFORGE_TESTS_LONG=1 mixed_float16 too, and
# 20 steps (each policy is three trainings, one of them eager: the test
# command's time budget; the trajectories part from TF's own by step 4, so
# 10 steps already bound kforge's divergence where it is chaotic).
# --policies and --steps arguments win.
policies=float32,mixed_bfloat16 steps=10
[ "${KFORGE_TESTS_LONG:-0}" = 1 ] && policies=float32,mixed_float16,mixed_bfloat16 steps=20
# TF's and Keras' chatter (absl, retracing and mixed-precision warnings) is not part of the result
"$KFORGE_TF_PY" tests/tf/test_train.py --policies "$policies" --steps "$steps" "$@" 2> >(grep -v "^WARNING\|cudart_stub\|^I0000\|^The dtype policy\|^If you will use\|retracing" >&2)
exit $?
