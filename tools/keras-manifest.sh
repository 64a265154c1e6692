#!/bin/bash
# tools/keras-manifest.sh -- a kforge model manifest from a tf-keras model:
# traces one training step in TensorFlow 2.21 (tf-keras 2.21) and writes
# every batch-norm and depthwise gradient call it makes, with static shapes
# and attrs (tools/models/keras_manifest.py; its --help lists the options).
#
#   bash tools/keras-manifest.sh --app MobileNetV2 --arg alpha=0.35 --input-shape 96,96,3 \
#       --batch 1 --name my_mnv2 --out my_mnv2.lua
#   bash tools/keras-manifest.sh --saved-model PATH --batch 8 --name my_model --out my_model.lua
#
# Creates or reuses the pinned TensorFlow venv of the tests (tests/tf/venv.sh,
# outside the checkout); the kforge build itself never needs TensorFlow.
# Paths given (--out, --check, --saved-model) are relative to the current
# directory.
set -u
root=$(cd "$(dirname "$0")/.." && pwd) || exit 1
. "$root/tests/tf/venv.sh"
kforge_tf_venv >&2 || { echo "keras-manifest: no TensorFlow venv (see the tf-venv lines above)" >&2; exit 1; }
exec "$KFORGE_TF_PY" "$root/tools/models/keras_manifest.py" "$@"
