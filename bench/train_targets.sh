#!/bin/bash
# bench/train_targets.sh -- every training-step target line in one run: issue 26's
# (tf-keras MobileNetV2 0.35/96: gradient ops and whole steps), issue 27's (build/kforge
# tune --manifest of that model, cold, then its gradient ops with that wisdom against
# the rule's plans and their DRAM floor; needs `ninja` first) and issue 29's (Keras 3 +
# kforge against Keras 3's own and against tf-keras + kforge), each miss named, the
# last lines "targets missed: ..." and the run's seconds.
#
#   bash bench/train_targets.sh [bench_train_step.py options: --rounds R --steps N --threads 1,all]
#
# Reuses the pinned TF venv (tests/tf/venv.sh) and installs this checkout's
# ./python into it first, as tests/tf/run_train.sh does. docs/tf.md, "Step times".
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/tf/venv.sh
kforge_tf_venv || exit 1
kforge_tf_with_kforge || exit 1
export TF_CPP_MIN_LOG_LEVEL=3
"$KFORGE_TF_PY" bench/bench_train_step.py --targets "$@" 2> >(grep -v "^WARNING\|cudart_stub\|^I0000\|^To enable" >&2)
