"""The Python API: out=, non-contiguous inputs, threads, the plan cache, errors, kernel inspection,
conversions, generated signatures."""
import inspect
import threading

import ml_dtypes
import numpy as np
import pytest

import kforge
from kfrefs import F32, bn_grad_ref, check, dwbpi_ref, rand

SENTINEL = 7.25


def bn_kw(rng, shape=(2, 3, 4, 5), t=np.float32):
    c = shape[-1]
    return dict(y_backprop=rand(rng, shape, t), x=rand(rng, shape, t), scale=rand(rng, (c,), np.float32),
                reserve_space_1=rand(rng, (c,), np.float32), reserve_space_2=rand(rng, (c,), np.float32, 0.5, 1.5),
                reserve_space_3=np.zeros(0, np.float32))


def dw_kw(rng, n=1, h=6, w=6, c=4, k=3, t=np.float32):
    return dict(input_sizes=[n, h, w, c], filter=rand(rng, (k, k, c, 1), t), out_backprop=rand(rng, (n, h, w, c), t),
                strides=[1, 1, 1, 1], padding="SAME")


def bn_out(shape=(2, 3, 4, 5), c=5):
    return (np.full(shape, SENTINEL, np.float32), np.full(c, SENTINEL, np.float32), np.full(c, SENTINEL, np.float32),
            np.full(0, SENTINEL, np.float32), np.full(0, SENTINEL, np.float32))


# ------------------------------------------------------------ results and out=
def test_out_is_written_in_place_and_returned():
    rng = np.random.default_rng(0)
    kw = bn_kw(rng)
    want = kforge.fused_batch_norm_grad_v3(**kw)
    out = bn_out()
    got = kforge.fused_batch_norm_grad_v3(**kw, out=out)
    assert all(g is o for g, o in zip(got, out))
    assert all(np.array_equal(a, b) for a, b in zip(want, out))
    assert isinstance(got, kforge.FusedBatchNormGradV3Output)
    out1 = np.full((1, 6, 6, 4), SENTINEL, np.float32)
    dk = dw_kw(rng)
    assert kforge.depthwise_conv2d_native_backprop_input(**dk, out=out1) is out1
    assert np.array_equal(out1, kforge.depthwise_conv2d_native_backprop_input(**dk))
    out2 = np.full((1, 6, 6, 4), SENTINEL, np.float32)
    assert kforge.depthwise_conv2d_native_backprop_input(**dk, out=[out2])[0, 0, 0, 0] == out2[0, 0, 0, 0]


def test_namedtuple_and_single_output_as_tf_raw_ops():
    assert kforge.FusedBatchNormGradV3Output._fields == ("x_backprop", "scale_backprop", "offset_backprop",
                                                         "reserve_space_4", "reserve_space_5")
    assert kforge.FusedBatchNormGradOutput._fields[3:] == ("reserve_space_3", "reserve_space_4")
    rng = np.random.default_rng(0)
    assert isinstance(kforge.depthwise_conv2d_native_backprop_input(**dw_kw(rng)), np.ndarray)
    assert kforge.raw_ops.FusedBatchNormGradV3 is kforge.fused_batch_norm_grad_v3
    assert kforge.raw_ops.DepthwiseConv2dNativeBackpropFilter is kforge.depthwise_conv2d_native_backprop_filter


@pytest.mark.parametrize("bad,rule_frag", [
    (lambda o: (o[0].astype(np.float64),) + o[1:], "must be float"),
    (lambda o: (o[0][:1],) + o[1:], "must be float [2, 3, 4, 5]"),
    (lambda o: (np.full((2, 3, 4, 10), SENTINEL, np.float32)[..., ::2],) + o[1:], "C-contiguous"),
    (lambda o: o[:4], "sequence of 5"),
    (lambda o: o[0], "sequence of 5"),
], ids=["dtype", "shape", "strided", "count", "array_for_tuple"])
def test_out_validation_writes_nothing(bad, rule_frag):
    rng = np.random.default_rng(1)
    kw = bn_kw(rng)
    out = bad(bn_out())
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v3(**kw, out=out)
    assert e.value.rule == "py.out" and rule_frag in str(e.value), str(e.value)
    for o in (out if isinstance(out, tuple) else (out,)):
        assert (o == SENTINEL).all()


def test_out_readonly_and_overlap_rejected():
    rng = np.random.default_rng(2)
    kw = bn_kw(rng)
    out = bn_out()
    out[1].flags.writeable = False
    with pytest.raises(kforge.KforgeError, match="writeable"):
        kforge.fused_batch_norm_grad_v3(**kw, out=out)
    out = bn_out()
    with pytest.raises(kforge.KforgeError, match="overlaps input y_backprop"):
        kforge.fused_batch_norm_grad_v3(**kw, out=(kw["y_backprop"],) + out[1:])
    buf = np.full(10, SENTINEL, np.float32)
    with pytest.raises(kforge.KforgeError, match=r"overlaps out\[1\]"):
        kforge.fused_batch_norm_grad_v3(**kw, out=(out[0], buf[:5], buf[3:8]) + out[3:])
    assert (buf == SENTINEL).all() and (out[0] == SENTINEL).all()


# ------------------------------------------------------------ errors
def test_kernel_rule_errors_carry_status_rule_message_and_write_nothing():
    rng = np.random.default_rng(3)
    kw = bn_kw(rng)
    kw["y_backprop"] = kw["y_backprop"][:1]
    out = bn_out()
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v3(**kw, out=out)
    assert e.value.status == "InvalidArgument" and e.value.rule == "bngrad.same_shape"
    assert str(e.value) == ("x and y_backprop must have same shape, but x has shape [2,3,4,5] and y_backprop "
                            "has shape [1,3,4,5]")
    assert all((o == SENTINEL).all() for o in out)

    dk = dw_kw(rng)
    o1 = np.full((1, 6, 6, 4), SENTINEL, np.float32)
    with pytest.raises(kforge.KforgeError) as e:
        kforge.depthwise_conv2d_native_backprop_input(**dict(dk, strides=[1, 1, 1]), out=o1)
    assert e.value.rule == "dwbpi.strides_len"
    assert str(e.value) == "Sliding window strides field must specify 4 dimensions"
    assert (o1 == SENTINEL).all()

    x = rand(rng, (1, 6, 6, 4), np.float32)
    with pytest.raises(kforge.KforgeError) as e:
        kforge.depthwise_conv2d_native_backprop_filter(input=x, filter_sizes=[3, -3, 4, 1],
                                                       out_backprop=dk["out_backprop"], strides=[1, 1, 1, 1],
                                                       padding="SAME")
    assert e.value.rule == "dwbpf.filter_sizes_negative"
    assert str(e.value) == "Dimension 1 of filter_sizes must be >= 0"


def test_attr_errors():
    rng = np.random.default_rng(4)
    kw = bn_kw(rng)
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v2(**{k: v for k, v in kw.items() if k != "reserve_space_3"},
                                        data_format="NDHWC")
    assert e.value.rule.startswith("attr.") and "NDHWC" in str(e.value)
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v3(**kw, is_training=1)
    assert e.value.rule == "py.attr_type"
    with pytest.raises(kforge.KforgeError) as e:
        kforge.depthwise_conv2d_native_backprop_input(**dict(dw_kw(rng), padding="FULL"))
    assert e.value.rule.startswith("attr.") and "FULL" in str(e.value)
    with pytest.raises(TypeError):
        kforge.fused_batch_norm_grad_v3(**kw, momentum=0.5)
    with pytest.raises(TypeError):  # keyword-only, as tf.raw_ops
        kforge.fused_batch_norm_grad_v3(*kw.values())


def test_dtype_errors():
    rng = np.random.default_rng(5)
    kw = bn_kw(rng)
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v3(**dict(kw, x=kw["x"].astype(np.int64)))
    assert e.value.rule == "py.dtype"
    with pytest.raises(kforge.KforgeError) as e:  # T from y_backprop (float), x double: the op-def rule
        kforge.fused_batch_norm_grad_v3(**dict(kw, x=kw["x"].astype(np.float64)))
    assert e.value.rule == "bngrad.input_dtype" and str(e.value) == "x must be float, got double"
    with pytest.raises(kforge.KforgeError) as e:  # double is not an allowed T of V3
        kforge.fused_batch_norm_grad_v3(**dict(kw, x=kw["x"].astype(np.float64),
                                               y_backprop=kw["y_backprop"].astype(np.float64)))
    assert e.value.status == "InvalidArgument" and "double" in str(e.value)
    with pytest.raises(kforge.KforgeError) as e:
        kforge.depthwise_conv2d_native_backprop_input(**dict(dw_kw(rng), input_sizes=[1, 6.5, 6, 4]))
    assert e.value.rule == "py.convert"


# ------------------------------------------------------------ inputs: conversion and layout
def test_non_contiguous_inputs_are_copied_with_equal_results():
    rng = np.random.default_rng(6)
    kw = bn_kw(rng)
    want = kforge.fused_batch_norm_grad_v3(**kw)
    big = np.zeros((2, 3, 4, 10), np.float32)
    big[..., ::2] = kw["x"]
    fortran = np.asfortranarray(kw["y_backprop"])
    strided = dict(kw, x=big[..., ::2], y_backprop=fortran, scale=np.repeat(kw["scale"], 2)[::2])
    assert not strided["x"].flags.c_contiguous and not fortran.flags.c_contiguous
    got = kforge.fused_batch_norm_grad_v3(**strided)
    assert all(np.array_equal(a, b) for a, b in zip(want, got))
    swapped = dict(kw, x=kw["x"].astype(">f4"))  # big-endian: converted
    assert all(np.array_equal(a, b) for a, b in zip(want, kforge.fused_batch_norm_grad_v3(**swapped)))
    assert (big[..., 1::2] == 0).all()  # inputs are never written


def test_lists_and_scalars_as_tf_converts_them():
    rng = np.random.default_rng(7)
    dk = dw_kw(rng)
    want = kforge.depthwise_conv2d_native_backprop_input(**dk)
    for sizes in ((1, 6, 6, 4), np.array([1, 6, 6, 4], np.int32), [np.int64(1), 6, 6, 4]):
        assert np.array_equal(want, kforge.depthwise_conv2d_native_backprop_input(**dict(dk, input_sizes=sizes)))
    # a T input given as a list takes its siblings' dtype
    got = kforge.depthwise_conv2d_native_backprop_input(**dict(dk, filter=dk["filter"].tolist()))
    assert got.dtype == np.float32 and np.array_equal(got, want)
    kw = bn_kw(rng)
    got = kforge.fused_batch_norm_grad_v3(**dict(kw, scale=kw["scale"].tolist()))
    assert np.array_equal(got.x_backprop, kforge.fused_batch_norm_grad_v3(**kw).x_backprop)


def test_bfloat16_and_half_inputs_give_their_dtype():
    rng = np.random.default_rng(8)
    for t in (np.float16, ml_dtypes.bfloat16):
        kw = bn_kw(rng, t=t)
        r = kforge.fused_batch_norm_grad_v3(**kw)
        assert r.x_backprop.dtype == np.dtype(t) and r.scale_backprop.dtype == np.float32
        ref = bn_grad_ref(kw["y_backprop"], kw["x"], kw["scale"], kw["reserve_space_1"], kw["reserve_space_2"],
                          0.0001, True)
        check(r.x_backprop, ref[0], np.dtype(t))


# ------------------------------------------------------------ threads
@pytest.mark.parametrize("threads", [2, 3, 0])
def test_threads_bitwise_equal_to_one_thread(threads):
    rng = np.random.default_rng(9)
    kw = bn_kw(rng, shape=(4, 32, 32, 96))  # 393216 elements: above the kernels' parallel threshold
    one = kforge.fused_batch_norm_grad_v3(**kw)
    many = kforge.fused_batch_norm_grad_v3(**kw, threads=threads)
    assert all(np.array_equal(a, b) for a, b in zip(one, many))
    assert kforge.last_plan().threads == (threads or __import__("os").cpu_count())
    dk = dw_kw(rng, n=2, h=40, w=40, c=32)
    assert np.array_equal(kforge.depthwise_conv2d_native_backprop_input(**dk),
                          kforge.depthwise_conv2d_native_backprop_input(**dk, threads=threads))
    x = rand(rng, (2, 40, 40, 32), np.float32)
    fk = dict(input=x, filter_sizes=[3, 3, 32, 1], out_backprop=dk["out_backprop"], strides=[1, 1, 1, 1],
              padding="SAME")
    assert np.array_equal(kforge.depthwise_conv2d_native_backprop_filter(**fk),
                          kforge.depthwise_conv2d_native_backprop_filter(**fk, threads=threads))


def test_threads_argument_checked():
    rng = np.random.default_rng(10)
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v3(**bn_kw(rng), threads=-1)
    assert e.value.rule == "py.threads"


def test_concurrent_calls_on_one_plan():
    """Python threads sharing a cached plan (each call needs its own scratch) get correct results."""
    rng = np.random.default_rng(11)
    kws = [bn_kw(rng, shape=(8, 16, 16, 32)) for _ in range(4)]
    want = [kforge.fused_batch_norm_grad_v3(**kw) for kw in kws]
    errors = []

    def work(i):
        for _ in range(20):
            got = kforge.fused_batch_norm_grad_v3(**kws[i])
            if not all(np.array_equal(a, b) for a, b in zip(got, want[i])):
                errors.append(i)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors


# ------------------------------------------------------------ plans and the cache
def test_plan_cache_reuse_and_keys():
    kforge.clear_cache()
    rng = np.random.default_rng(12)
    kw = bn_kw(rng)
    kforge.fused_batch_norm_grad_v3(**kw)
    assert kforge.cache_info()["misses"] == 1 and kforge.cache_info()["hits"] == 0
    p1 = kforge.last_plan()
    kforge.fused_batch_norm_grad_v3(**bn_kw(rng))  # same signature, new values: a hit
    assert kforge.cache_info()["hits"] == 1 and kforge.last_plan() is p1
    assert kforge.plan("FusedBatchNormGradV3", **kw) is p1
    for changed in (dict(kw, epsilon=0.01), dict(kw, is_training=False), dict(kw, threads=2),
                    bn_kw(rng, shape=(2, 3, 4, 6))):
        assert kforge.plan("FusedBatchNormGradV3", **changed) is not p1
    dk = dict(dw_kw(rng), strides=[1, 2, 2, 1], input_sizes=[1, 12, 12, 4])  # out_backprop 6x6: 11 or 12 rows
    a = kforge.plan("DepthwiseConv2dNativeBackpropInput", **dk)
    b = kforge.plan("DepthwiseConv2dNativeBackpropInput", **dict(dk, input_sizes=np.array([1, 12, 12, 4], np.int32)))
    c = kforge.plan("DepthwiseConv2dNativeBackpropInput", **dict(dk, input_sizes=[1, 11, 11, 4]))
    assert a is b and c is not a  # the values of input_sizes are part of the signature
    assert a.output_shapes == ((1, 12, 12, 4),) and c.output_shapes == ((1, 11, 11, 4),)


def test_outputs_allocated_here_plan_fresh(monkeypatch):
    # Without out= the package allocates the outputs (in no cache): the plan streams stores from
    # the L2 up; with out= from the warm threshold (docs/c_api.md, fresh_outputs), pinned here by
    # KFORGE_STREAM (unset, it is measured on the CPU: docs/tuning.md). The fresh plan also takes
    # the cold rule (llc=1: pass 1 sweeps where rows exceed two tiles, which groups the rows'
    # partial sums otherwise; next=1: prefetches): the same results to f32 rounding.
    monkeypatch.setenv("KFORGE_L2", "1M")
    monkeypatch.setenv("KFORGE_LLC", "32M")
    monkeypatch.setenv("KFORGE_STREAM", "8M")
    kforge.clear_cache()
    kw = bn_kw(np.random.default_rng(15), shape=(8, 32, 32, 64))  # x_backprop of 2 MiB
    fresh = kforge.fused_batch_norm_grad_v3(**kw)
    choices = " %s " % kforge.last_plan().choices
    assert " stream=%d " % (1 << 20) in choices and " llc=1 " in choices and " next=1 " in choices, choices
    assert kforge.plan("FusedBatchNormGradV3", **kw) is kforge.last_plan()
    out = tuple(np.empty_like(a) for a in fresh)
    warm = kforge.fused_batch_norm_grad_v3(**kw, out=out)
    choices = " %s " % kforge.last_plan().choices
    assert " stream=%d " % (8 << 20) in choices and " llc=1 " not in choices and " next=0 " in choices, choices
    for a, b in zip(fresh, warm):
        # sums of 8192 rows of terms below 1 in two groupings: 1e-5 of the largest is ten times their rounding
        assert np.max(np.abs(a.astype(np.float64) - b), initial=0) <= 1e-5 * np.max(np.abs(b), initial=0)
    kforge.clear_cache()


def test_plan_cache_is_bounded():
    rng = np.random.default_rng(13)
    kforge.clear_cache()
    kforge.set_cache_size(3)
    try:
        plans = [kforge.plan("FusedBatchNormGradV3", **bn_kw(rng, shape=(1, 1, 1, c))) for c in range(1, 6)]
        assert kforge.cache_info()["size"] == 3
        assert kforge.plan("FusedBatchNormGradV3", **bn_kw(rng, shape=(1, 1, 1, 5))) is plans[4]
        assert kforge.plan("FusedBatchNormGradV3", **bn_kw(rng, shape=(1, 1, 1, 1))) is not plans[0]  # evicted
    finally:
        kforge.set_cache_size(256)


def test_plan_inspection_and_call():
    rng = np.random.default_rng(14)
    kw = bn_kw(rng)
    p = kforge.plan("FusedBatchNormGradV3", **kw, data_format="NHWC")
    assert p.kernel and p.kernel == p.kernel_info["name"]
    assert p.kernel_info["family"] == "bngrad" and p.kernel_info["generic"] is False
    assert p.kernel_info["key"] == {"T": "f32", "layout": "nhwc", "mode": "train"}
    assert p.key == {"T": "f32", "layout": "nhwc", "mode": "train"}
    assert p.kernel in {k["name"] for k in kforge.kernels()}
    assert p.output_shapes == ((2, 3, 4, 5), (5,), (5,), (0,), (0,))
    assert p.output_dtypes == (np.dtype(np.float32),) * 5
    assert p.scratch_bytes >= 0 and p.threads == 1 and p.attrs["epsilon"] == 0.0001
    r1 = p(**kw)
    inputs = [kw[n] for n in ("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3")]
    r2 = p(*inputs)
    assert kforge.last_kernel() == p.kernel
    r3 = kforge.fused_batch_norm_grad_v3(**kw)
    assert all(np.array_equal(a, b) and np.array_equal(a, c) for a, b, c in zip(r1, r2, r3))
    with pytest.raises(kforge.KforgeError) as e:
        p(**bn_kw(rng, shape=(2, 3, 4, 6)))
    assert e.value.rule == "py.plan_mismatch"
    with pytest.raises(kforge.KforgeError) as e:
        kforge.plan("Conv2D", x=1)
    assert e.value.rule == "py.op"


def test_generic_kernel_is_visible():
    """A 6x6 filter has no specialization in the default set: the generic kernel serves it."""
    rng = np.random.default_rng(15)
    dk = dict(dw_kw(rng, k=6))
    out = kforge.depthwise_conv2d_native_backprop_input(**dk)
    info = kforge.last_plan().kernel_info
    assert info["generic"] is True and info["family"] == "dwbpi" and kforge.last_plan().key["kh"] == "6"
    check(out, dwbpi_ref((1, 6, 6, 4), dk["filter"], dk["out_backprop"], (1, 1), (1, 1), "SAME"), F32)


# ------------------------------------------------------------ generated signatures
def test_signatures_are_tfs():
    sig = inspect.signature(kforge.raw_ops.FusedBatchNormGradV3)
    assert list(sig.parameters) == ["y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2",
                                    "reserve_space_3", "epsilon", "data_format", "is_training", "out", "threads",
                                    "name"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in sig.parameters.values())
    d = {k: p.default for k, p in sig.parameters.items()}
    assert d["epsilon"] == 0.0001 and d["data_format"] == "NHWC" and d["is_training"] is True
    sig = inspect.signature(kforge.depthwise_conv2d_native_backprop_filter)
    d = {k: p.default for k, p in sig.parameters.items()}
    assert d["strides"] is inspect.Parameter.empty and d["padding"] is inspect.Parameter.empty
    assert tuple(d["dilations"]) == (1, 1, 1, 1) and tuple(d["explicit_paddings"]) == ()
    doc = kforge.fused_batch_norm_grad_v3.__doc__
    assert "bngrad.same_shape" in doc and "epsilon: float; default 0.0001" in doc


def test_isa_cap_is_honoured():
    """KFORGE_ISA caps the kernels a plan may select (tests run under avx2 and scalar too)."""
    import os
    rng = np.random.default_rng(16)
    isa = kforge.plan("FusedBatchNormGradV3", **bn_kw(rng)).kernel_info["isa"]
    cap = os.environ.get("KFORGE_ISA", "").strip().lower()
    order = ["scalar", "neon", "avx2", "avx512"]
    assert isa in order
    if cap in order:
        assert order.index(isa) <= order.index(cap), (isa, cap)
