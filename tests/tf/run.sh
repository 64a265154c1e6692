#!/bin/bash
# tests/tf/run.sh -- differential tests of build/kforge against TensorFlow
# 2.21's own CPU kernels (tests/tf/differential.py).
#
#   bash tests/tf/run.sh [differential.py options: --calls N --seed S --only I ...]
#   KFORGE_TF_SEED=S bash tests/tf/run.sh     rerun a seed
#
# Creates or reuses the pinned TensorFlow venv (tests/tf/venv.sh), then runs
# differential.py with it. Ends with "N passed, M failed". A venv that cannot
# be built is one failed check with its reason, never a skip.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tf/venv.sh

fail() { echo "tf-differential: $*"; echo "0 passed, 1 failed"; exit 1; }

[ -x build/kforge ] || fail "build/kforge is missing (build first: ninja)"
kforge_tf_venv || fail "no TensorFlow venv (see the tf-venv lines above)"
"$KFORGE_TF_PY" tests/tf/differential.py --kforge build/kforge "$@"
rc=$?
if [ "$rc" -eq 3 ]; then
  # the venv exists but cannot import tensorflow: rebuild it once
  echo "tf-differential: the venv cannot import tensorflow; rebuilding it"
  kforge_tf_venv --rebuild || fail "no TensorFlow venv (see the tf-venv lines above)"
  "$KFORGE_TF_PY" tests/tf/differential.py --kforge build/kforge "$@"
  rc=$?
fi
exit "$rc"
