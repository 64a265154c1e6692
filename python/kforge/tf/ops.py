"""kforge's kernels as TensorFlow ops, called exactly as tf.raw_ops' own.

Each function takes TF's argument names (keyword-only, TF's defaults) and
returns what the tf.raw_ops function returns: the batch-norm gradients a
namedtuple of TF's output names (named like TF's: FusedBatchNormGradV3,
...), the depthwise gradients one Tensor. They run the Kforge* ops of
kforge.tf.load() (kforge's generated C kernels on TF's buffers).

In graphs (tf.function) the static output shapes are TF's: the C shape
functions do what TF's C API allows (ranks, [C] from scale, rank-4 outputs
for the depthwise gradients); the rest -- the data_format-dependent rank and
channel of the batch-norm gradients, and the depthwise outputs' dims from a
constant input_sizes / filter_sizes (tensor_util.constant_value_as_shape,
which also reads tf.shape(...) of partly known shapes) -- is set here.
"""
import collections

import tensorflow as tf
from tensorflow.python.framework import tensor_util

from . import load

__all__ = ["fused_batch_norm_grad", "fused_batch_norm_grad_v2", "fused_batch_norm_grad_v3",
           "depthwise_conv2d_native_backprop_input", "depthwise_conv2d_native_backprop_filter"]

_BN12_OUT = ["x_backprop", "scale_backprop", "offset_backprop", "reserve_space_3", "reserve_space_4"]
_BN3_OUT = ["x_backprop", "scale_backprop", "offset_backprop", "reserve_space_4", "reserve_space_5"]
FusedBatchNormGrad = collections.namedtuple("FusedBatchNormGrad", _BN12_OUT)
FusedBatchNormGradV2 = collections.namedtuple("FusedBatchNormGradV2", _BN12_OUT)
FusedBatchNormGradV3 = collections.namedtuple("FusedBatchNormGradV3", _BN3_OUT)


def _graph_mode(t):
    return not tf.executing_eagerly() and hasattr(t, "op") and hasattr(t, "set_shape")


def _bn_static_shapes(outs, data_format):
    """TF's FusedBatchNormGradShape with data_format known: rank 4 (5 for NDHWC/NCDHW),
    the channel dim merged over y_backprop, x, scale and the reserve spaces."""
    if not _graph_mode(outs[0]):
        return
    inputs = outs[0].op.inputs
    rank = 5 if data_format in (b"NDHWC", "NDHWC", b"NCDHW", "NCDHW") else 4
    fmt = data_format.decode() if isinstance(data_format, bytes) else data_format
    ci = 1 if fmt.startswith("NC") else rank - 1
    dy = inputs[0].shape.with_rank(rank)
    x = inputs[1].shape.with_rank(rank)
    c = dy.dims[ci].merge_with(x.dims[ci])
    for i in (2, 3, 4):
        c = c.merge_with(inputs[i].shape.with_rank(1).dims[0])
    dims = list(dy.dims)
    dims[ci] = c
    outs[0].set_shape(tf.TensorShape(dims))
    outs[1].set_shape(tf.TensorShape([c]))
    outs[2].set_shape(tf.TensorShape([c]))


def _sizes_static_shape(out, sizes_index):
    """TF's MakeShapeFromShapeTensor(sizes) then WithRank(4)."""
    if not _graph_mode(out):
        return
    sizes = out.op.inputs[sizes_index]
    value = tf.get_static_value(sizes)
    if value is not None:
        for v in value.reshape(-1):
            if v < -1:  # TF's MakeShapeFromShapeTensor: -1 means unknown, less is an error
                raise ValueError("Invalid value in tensor used for shape: %d" % v)
    shape = tensor_util.constant_value_as_shape(sizes).with_rank(4)
    out.set_shape(shape)


def fused_batch_norm_grad(*, y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon=0.0001,
                          data_format="NHWC", is_training=True, name=None):
    """tf.raw_ops.FusedBatchNormGrad on kforge's kernels."""
    outs = load().kforge_fused_batch_norm_grad(
        y_backprop=y_backprop, x=x, scale=scale, reserve_space_1=reserve_space_1,
        reserve_space_2=reserve_space_2, epsilon=epsilon, data_format=data_format,
        is_training=is_training, name=name)
    _bn_static_shapes(outs, data_format)
    return FusedBatchNormGrad(*outs)


def fused_batch_norm_grad_v2(*, y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon=0.0001,
                             data_format="NHWC", is_training=True, name=None):
    """tf.raw_ops.FusedBatchNormGradV2 on kforge's kernels."""
    outs = load().kforge_fused_batch_norm_grad_v2(
        y_backprop=y_backprop, x=x, scale=scale, reserve_space_1=reserve_space_1,
        reserve_space_2=reserve_space_2, epsilon=epsilon, data_format=data_format,
        is_training=is_training, name=name)
    _bn_static_shapes(outs, data_format)
    return FusedBatchNormGradV2(*outs)


def fused_batch_norm_grad_v3(*, y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3,
                             epsilon=0.0001, data_format="NHWC", is_training=True, name=None):
    """tf.raw_ops.FusedBatchNormGradV3 on kforge's kernels (reserve_space_3 ignored, as on TF's CPU)."""
    outs = load().kforge_fused_batch_norm_grad_v3(
        y_backprop=y_backprop, x=x, scale=scale, reserve_space_1=reserve_space_1,
        reserve_space_2=reserve_space_2, reserve_space_3=reserve_space_3, epsilon=epsilon,
        data_format=data_format, is_training=is_training, name=name)
    _bn_static_shapes(outs, data_format)
    return FusedBatchNormGradV3(*outs)


def depthwise_conv2d_native_backprop_input(*, input_sizes, filter, out_backprop, strides, padding,
                                           explicit_paddings=[], data_format="NHWC",
                                           dilations=[1, 1, 1, 1], name=None):
    """tf.raw_ops.DepthwiseConv2dNativeBackpropInput on kforge's kernels."""
    out = load().kforge_depthwise_conv2d_native_backprop_input(
        input_sizes=input_sizes, filter=filter, out_backprop=out_backprop, strides=strides,
        padding=padding, explicit_paddings=explicit_paddings, data_format=data_format,
        dilations=dilations, name=name)
    _sizes_static_shape(out, 0)
    return out


def depthwise_conv2d_native_backprop_filter(*, input, filter_sizes, out_backprop, strides, padding,
                                            explicit_paddings=[], data_format="NHWC",
                                            dilations=[1, 1, 1, 1], name=None):
    """tf.raw_ops.DepthwiseConv2dNativeBackpropFilter on kforge's kernels."""
    out = load().kforge_depthwise_conv2d_native_backprop_filter(
        input=input, filter_sizes=filter_sizes, out_backprop=out_backprop, strides=strides,
        padding=padding, explicit_paddings=explicit_paddings, data_format=data_format,
        dilations=dilations, name=name)
    _sizes_static_shape(out, 1)
    return out
