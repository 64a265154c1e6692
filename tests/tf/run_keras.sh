#!/bin/bash
# tests/tf/run_keras.sh -- the Keras-traced manifests against TensorFlow
# (tests/tf/test_keras_models.py): re-tracing MobileNetV2 0.35/96 gives
# exactly the checked-in specs/models/mobilenet_v2_96.lua, and every call it
# records (and those of the same model under mixed_bfloat16) gives the same
# results in kforge (build/kforge) and TF 2.21.
#
#   bash tests/tf/run_keras.sh [--seed S] [--jobs J]
#   KFORGE_TF_SEED=S bash tests/tf/run_keras.sh     rerun a seed
#
# Creates or reuses the pinned TensorFlow venv (tests/tf/venv.sh). Ends with
# "N passed, M failed"; a venv that cannot be built is one failed check.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tf/venv.sh

fail() { echo "tf-keras: $*"; echo "0 passed, 1 failed"; exit 1; }

[ -x build/kforge ] || fail "build/kforge is missing (build first: ninja)"
kforge_tf_venv || fail "no TensorFlow venv (see the tf-venv lines above)"
exec "$KFORGE_TF_PY" tests/tf/test_keras_models.py --kforge build/kforge "$@"
