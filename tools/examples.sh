#!/bin/sh
# Runs the CLI on the checked-in example inputs (examples/, made by
# tools/make_examples.py): the batch-norm gradient of a 2x4x4x3 NHWC batch
# and a 3x3 stride-2 depthwise input gradient. Outputs go to build/examples/.
set -eu
cd "$(dirname "$0")/.."
K=build/kforge
mkdir -p build/examples
echo "== $($K list | wc -l) kernels compiled in (build/kforge list), e.g.:"
$K list | head -3
echo "== FusedBatchNormGradV3, NHWC, is_training=true"
E=examples/bngrad
$K run FusedBatchNormGradV3 --verbose --out build/examples/bngrad \
  y_backprop=$E/y_backprop.npy x=$E/x.npy scale=$E/scale.npy reserve_space_1=$E/reserve_space_1.npy \
  reserve_space_2=$E/reserve_space_2.npy reserve_space_3=$E/reserve_space_3.npy
$K show build/examples/bngrad/scale_backprop.npy
$K show build/examples/bngrad/offset_backprop.npy
echo "== DepthwiseConv2dNativeBackpropInput, 3x3, strides 2, SAME"
E=examples/dwbpi
if $K run DepthwiseConv2dNativeBackpropInput --verbose --attr strides=1,2,2,1 --attr padding=SAME \
  --out build/examples/dwbpi input_sizes=$E/input_sizes.npy filter=$E/filter.npy out_backprop=$E/out_backprop.npy; then
  $K show build/examples/dwbpi/output.npy
fi
