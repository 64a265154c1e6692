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
# Runs in the pinned TF venv with this checkout's ./python installed (bench/tf_py.sh).
# docs/tf.md, "Step times".
exec bash "$(dirname "$0")/tf_py.sh" bench/bench_train_step.py --targets "$@"
