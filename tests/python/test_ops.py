"""Every op and dtype against the float64 references of kfrefs.py, NHWC and NCHW."""
import numpy as np
import pytest

import kforge
from kfrefs import BF16, F16, F32, F64, bn_grad_ref, check, dw_geometry, dwbpf_ref, dwbpi_ref, rand, to_nchw, to_nhwc

BN_CASES = [("FusedBatchNormGrad", F32)] + [(op, t) for op in ("FusedBatchNormGradV2", "FusedBatchNormGradV3")
                                             for t in (F16, BF16, F32)]


def bn_inputs(rng, op, t, shape, channels_last):
    c = shape[-1] if channels_last else shape[1]
    u = t if op == "FusedBatchNormGrad" else F32
    x = rand(rng, shape, t, -2, 2)
    dy = rand(rng, shape, t)
    kw = dict(y_backprop=dy, x=x, scale=rand(rng, (c,), u, 0.5, 1.5), reserve_space_1=rand(rng, (c,), u, -0.5, 0.5),
              reserve_space_2=rand(rng, (c,), u, 0.2, 2.0))
    if op == "FusedBatchNormGradV3":
        kw["reserve_space_3"] = np.zeros(3, np.float32)  # ignored on CPU, any shape
    return kw


# 5-D layouts are V3's only (V1/V2 allow NHWC and NCHW).
BN_FMT = [(op, t, fmt) for op, t in BN_CASES
          for fmt in (("NHWC", "NCHW", "NDHWC", "NCDHW") if op.endswith("V3") else ("NHWC", "NCHW"))]


@pytest.mark.parametrize("op,t,fmt", BN_FMT, ids=[f"{o}-{t}-{f}" for o, t, f in BN_FMT])
@pytest.mark.parametrize("is_training", [True, False])
def test_batch_norm_grad(op, t, fmt, is_training):
    rng = np.random.default_rng(hash((op, str(t), fmt, is_training)) % 2**32)
    channels_last = fmt.endswith("C")
    shape = (2, 3, 4, 5) if len(fmt) == 4 else (2, 3, 2, 2, 5)
    if not channels_last:
        shape = (shape[0], shape[-1]) + shape[1:-1]
    kw = bn_inputs(rng, op, t, shape, channels_last)
    eps = 0.001
    r = getattr(kforge.raw_ops, op)(**kw, epsilon=eps, data_format=fmt, is_training=is_training)
    assert type(r).__name__ == op and r._fields[:3] == ("x_backprop", "scale_backprop", "offset_backprop")
    ref = bn_grad_ref(kw["y_backprop"], kw["x"], kw["scale"], kw["reserve_space_1"], kw["reserve_space_2"], eps,
                      is_training, channels_last)
    u = t if op == "FusedBatchNormGrad" else F32
    assert r.x_backprop.dtype == t and r.scale_backprop.dtype == u and r.offset_backprop.dtype == u
    check(r.x_backprop, ref[0], t)
    # scale/offset backprop are float sums of T inputs: float's tolerance
    check(r.scale_backprop, ref[1], F32)
    check(r.offset_backprop, ref[2], F32)
    for extra in r[3:]:
        assert extra.shape == (0,) and extra.dtype == u


def test_batch_norm_grad_defaults_are_tfs():
    """epsilon=0.0001, NHWC, is_training=True when not given."""
    rng = np.random.default_rng(1)
    kw = bn_inputs(rng, "FusedBatchNormGradV3", F32, (1, 2, 2, 3), True)
    r = kforge.fused_batch_norm_grad_v3(**kw)
    ref = bn_grad_ref(kw["y_backprop"], kw["x"], kw["scale"], kw["reserve_space_1"], kw["reserve_space_2"], 0.0001,
                      True)
    check(r.x_backprop, ref[0], F32)
    r2 = kforge.fused_batch_norm_grad_v3(**kw, epsilon=0.0001, data_format="NHWC", is_training=True)
    assert all(np.array_equal(a, b) for a, b in zip(r, r2))


DW_DTYPES = [F16, BF16, F32, F64]
# (input NHWC shape, filter [kh,kw,C,M], strides (h,w), dilations (h,w), padding, explicit paddings NHWC)
DW_CASES = [
    ((2, 5, 6, 3), (3, 3, 3, 1), (1, 1), (1, 1), "SAME", ()),     # a specialized configuration
    ((1, 7, 6, 2), (3, 3, 2, 2), (2, 2), (1, 1), "VALID", ()),    # stride 2, multiplier 2
    ((2, 6, 7, 3), (2, 3, 3, 1), (1, 2), (2, 1), "EXPLICIT", (0, 0, 1, 2, 2, 0, 0, 0)),  # generic: unequal
    ((1, 4, 4, 2), (1, 1, 2, 3), (1, 1), (1, 1), "VALID", ()),    # 1x1, multiplier 3
]
DW_IDS = ["3x3s1same", "3x3s2valid_m2", "2x3s1x2d2x1explicit", "1x1m3"]


def dw_attrs(strides, dilations, padding, explicit, fmt):
    if fmt == "NHWC":
        s, d = [1, strides[0], strides[1], 1], [1, dilations[0], dilations[1], 1]
        e = list(explicit)
    else:
        s, d = [1, 1, strides[0], strides[1]], [1, 1, dilations[0], dilations[1]]
        e = list(explicit[0:2]) + list(explicit[6:8]) + list(explicit[2:6]) if explicit else []
    return dict(strides=s, dilations=d, padding=padding, explicit_paddings=e, data_format=fmt)


@pytest.mark.parametrize("t", DW_DTYPES, ids=str)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("case", DW_CASES, ids=DW_IDS)
def test_depthwise_backprop_input(t, fmt, case):
    in_shape, fshape, strides, dil, padding, explicit = case
    rng = np.random.default_rng(7)
    f = rand(rng, fshape, t)
    oh, ow, _, _ = dw_geometry(in_shape, fshape, strides, dil, padding, explicit)
    g = rand(rng, (in_shape[0], oh, ow, in_shape[3] * fshape[3]), t)
    ref = dwbpi_ref(in_shape, f, g, strides, dil, padding, explicit)
    sizes = list(in_shape) if fmt == "NHWC" else [in_shape[0], in_shape[3], in_shape[1], in_shape[2]]
    gg = g if fmt == "NHWC" else to_nchw(g)
    out = kforge.raw_ops.DepthwiseConv2dNativeBackpropInput(input_sizes=sizes, filter=f, out_backprop=gg,
                                                            **dw_attrs(strides, dil, padding, explicit, fmt))
    assert isinstance(out, np.ndarray) and out.dtype == t and list(out.shape) == sizes
    check(out if fmt == "NHWC" else to_nhwc(out), ref, t)


@pytest.mark.parametrize("t", DW_DTYPES, ids=str)
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("case", DW_CASES, ids=DW_IDS)
def test_depthwise_backprop_filter(t, fmt, case):
    in_shape, fshape, strides, dil, padding, explicit = case
    rng = np.random.default_rng(11)
    x = rand(rng, in_shape, t)
    oh, ow, _, _ = dw_geometry(in_shape, fshape, strides, dil, padding, explicit)
    g = rand(rng, (in_shape[0], oh, ow, in_shape[3] * fshape[3]), t)
    ref = dwbpf_ref(x, fshape, g, strides, dil, padding, explicit)
    xx, gg = (x, g) if fmt == "NHWC" else (to_nchw(x), to_nchw(g))
    out = kforge.depthwise_conv2d_native_backprop_filter(input=xx, filter_sizes=np.array(fshape, np.int32),
                                                         out_backprop=gg,
                                                         **dw_attrs(strides, dil, padding, explicit, fmt))
    assert isinstance(out, np.ndarray) and out.dtype == t and out.shape == fshape
    check(out, ref, t)


def test_depthwise_defaults_are_tfs():
    """explicit_paddings=[], data_format NHWC, dilations 1 when not given; strides/padding required."""
    rng = np.random.default_rng(3)
    f, g = rand(rng, (3, 3, 2, 1), F32), rand(rng, (1, 4, 4, 2), F32)
    a = kforge.depthwise_conv2d_native_backprop_input(input_sizes=[1, 4, 4, 2], filter=f, out_backprop=g,
                                                      strides=[1, 1, 1, 1], padding="SAME")
    check(a, dwbpi_ref((1, 4, 4, 2), f, g, (1, 1), (1, 1), "SAME"), F32)
    with pytest.raises(TypeError):
        kforge.depthwise_conv2d_native_backprop_input(input_sizes=[1, 4, 4, 2], filter=f, out_backprop=g,
                                                      padding="SAME")


@pytest.mark.parametrize("t,limit", [(F16, 2048), (BF16, 256)], ids=["half", "bfloat16"])
def test_half_bfloat16_round_trip_exact(t, limit):
    """Small integers are exact in half/bfloat16 and in float sums: results equal the reference
    exactly, so the conversions in and out are bit-correct."""
    rng = np.random.default_rng(5)
    f = rng.integers(-3, 4, (3, 3, 4, 1)).astype(t)
    g = rng.integers(-3, 4, (1, 5, 5, 4)).astype(t)
    ref = dwbpi_ref((1, 5, 5, 4), f, g, (1, 1), (1, 1), "SAME")
    assert np.abs(ref).max() < limit
    out = kforge.depthwise_conv2d_native_backprop_input(input_sizes=[1, 5, 5, 4], filter=f, out_backprop=g,
                                                        strides=[1, 1, 1, 1], padding="SAME")
    assert out.dtype == t
    assert np.array_equal(out.astype(np.float64), ref)
    x = rng.integers(-3, 4, (1, 5, 5, 4)).astype(t)
    df = kforge.depthwise_conv2d_native_backprop_filter(input=x, filter_sizes=[3, 3, 4, 1], out_backprop=g,
                                                        strides=[1, 1, 1, 1], padding="SAME")
    assert df.dtype == t
    assert np.array_equal(df.astype(np.float64), dwbpf_ref(x, (3, 3, 4, 1), g, (1, 1), (1, 1), "SAME"))


def test_every_op_is_tested_here():
    """A new op in the specs must get a reference test in this file."""
    tested = {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3",
              "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"}
    assert set(kforge.ops) == tested


def test_empty_batch_filter_gradient_is_zeros():
    f = kforge.depthwise_conv2d_native_backprop_filter(
        input=np.zeros((0, 4, 4, 2), np.float32), filter_sizes=[3, 3, 2, 1],
        out_backprop=np.zeros((0, 4, 4, 2), np.float32), strides=[1, 1, 1, 1], padding="SAME",
        out=np.full((3, 3, 2, 1), 7.0, np.float32))
    assert np.array_equal(f, np.zeros((3, 3, 2, 1)))

