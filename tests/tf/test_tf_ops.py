"""test_tf_ops.py -- kforge's TensorFlow custom ops (kforge.tf.ops) against tf.raw_ops.

Usage (normally through tests/tf/run_tfop.sh, with the TF venv's python and
the package installed into it):
    python tests/tf/test_tf_ops.py [--seed S] [--calls N] [--verbose] [--only NAME ...]
(--only: run just the test_* functions whose names contain NAME.)

Checks, each one counted:
- op defs: each Kfoge* op's inputs, outputs and attrs (types, defaults,
  allowed values) equal TF's op's;
- values: N seeded random calls per op (eager), kforge.tf.ops.<op> against
  tf.raw_ops.<Op>: NHWC and NCHW (NDHWC/NCDHW for V3), is_training true and
  false, SAME/VALID/EXPLICIT, strides 1..3, every dtype the op allows.
  Tolerances are relative to max |reference| per output, those of
  docs/testing.md (the CLI's differential tests):
      batch norm  float 1e-5, half 2e-3, bfloat16 2e-2
      depthwise   double 1e-10, float 2e-5, half 5e-3, bfloat16 3e-2
  For scale/offset backprop (sums over N*H*W) the error is taken relative
  to the largest channel's sum of |terms| where that is larger (a sum's
  rounding error scales with it, not with the possibly cancelling result).
  Why: float and double are compared with TF's own kernel of the same dtype
  (both accumulate in the dtype or wider, in different orders: a few units
  of roundoff times the reduction depth, far below 1e-5 / 1e-10 for these
  sizes). For half and bfloat16 the reference is TF's kernel one dtype up
  (float for batch norm, double for depthwise) on the exactly widened
  inputs: kforge accumulates in float and rounds once, so its error is one
  or two roundings of T (2^-11 half, 2^-8 bfloat16) plus cancellation in
  x_backprop; the tolerances are 4 to 8 such units. TF's own half kernels
  round intermediates to half, so their own error is larger and is not the
  yardstick (it is reported with --verbose).
  Where TF's CPU kernel refuses what the op defines (NCHW depthwise, NCHW
  batch norm with is_training=false) kforge's answer is checked against TF
  NHWC on transposed tensors; dilations (which TF's kernel ignores) against
  the GradientTape gradients of tf.nn.depthwise_conv2d, which implements
  true dilation.
- graphs: in tf.function with partly unknown shapes the static output shapes
  equal TF's, and the traced function's values equal eager kforge's;
- rejections: calls TF rejects raise tf.errors.InvalidArgumentError from
  both, kforge's message contains TF's (TF's context stripped) and names
  kforge's rule ("[rule ...]"), in eager mode and in tf.function;
- plan reuse: a second call of the same shapes plans nothing new;
- in place: in a tf.function whose y_backprop is made inside it (a multiply)
  and consumed only by the batch-norm gradient, TF forwards its buffer to
  x_backprop (kforge.tf.forwarded_outputs() counts it) and the outputs equal
  TF's and, bit for bit, eager kforge's (never forwarded); a y_backprop the
  function also returns, or that is also x, is not forwarded (and comes
  back intact);
- threads: the pool has TF's intra-op thread count.

Ends with "N passed, M failed"; exit status 1 on any failure.
"""
import argparse
import os
import re
import sys
import traceback

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TF's own (Eigen) kernels

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import op_def_registry

import kforge.tf as ktf
from kforge.tf import ops as kops

BF16 = tf.bfloat16.as_numpy_dtype
NP = {"half": np.float16, "bfloat16": BF16, "float": np.float32, "double": np.float64}
TOL_BN = {"float": 1e-5, "half": 2e-3, "bfloat16": 2e-2}
TOL_DW = {"double": 1e-10, "float": 2e-5, "half": 5e-3, "bfloat16": 3e-2}

PASSED = 0
FAILED = 0
VERBOSE = False


def check(ok, what, detail=""):
    global PASSED, FAILED
    if ok:
        PASSED += 1
        if VERBOSE:
            print("ok   %s %s" % (what, detail))
    else:
        FAILED += 1
        print("FAIL %s %s" % (what, detail))


def run_check(what, fn):
    """Runs fn() -> (ok, detail); an exception is a failure with its traceback."""
    try:
        ok, detail = fn()
    except Exception:  # noqa: BLE001 -- reported as a failure
        ok, detail = False, "\n" + traceback.format_exc()
    check(ok, what, detail)


def rel_err(got, ref):
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    if got.shape != ref.shape:
        return np.inf
    if ref.size == 0:
        return 0.0
    scale = max(np.max(np.abs(ref)), 1e-30)
    return float(np.max(np.abs(got - ref)) / scale)


def core_message(msg):
    """TF's error text without {{function_node ...}}, NodeDef and [Op:...] context."""
    m = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", msg)
    m = m.split("\n\t; NodeDef")[0]
    m = re.sub(r"\s*\[Op:[^\]]*\].*$", "", m, flags=re.S)
    m = re.sub(r"\s*\[\[\{\{node [^\]]*\]\]", "", m)
    return m.strip()


# ------------------------------------------------------------------ op defs

OPS = [("FusedBatchNormGrad", "KforgeFusedBatchNormGrad"),
       ("FusedBatchNormGradV2", "KforgeFusedBatchNormGradV2"),
       ("FusedBatchNormGradV3", "KforgeFusedBatchNormGradV3"),
       ("DepthwiseConv2dNativeBackpropInput", "KforgeDepthwiseConv2dNativeBackpropInput"),
       ("DepthwiseConv2dNativeBackpropFilter", "KforgeDepthwiseConv2dNativeBackpropFilter")]


def opdef_summary(d):
    return ([(a.name, a.type, a.type_attr) for a in d.input_arg],
            [(a.name, a.type, a.type_attr) for a in d.output_arg],
            [(a.name, a.type, a.default_value.SerializeToString(deterministic=True),
              a.allowed_values.SerializeToString(deterministic=True), a.has_minimum, a.minimum)
             for a in d.attr])


def test_opdefs():
    for tf_name, kf_name in OPS:
        def fn(tf_name=tf_name, kf_name=kf_name):
            a, b = opdef_summary(op_def_registry.get(tf_name)), opdef_summary(op_def_registry.get(kf_name))
            return a == b, "" if a == b else "\n  TF: %s\n  kforge: %s" % (a, b)
        run_check("opdef %s" % kf_name, fn)


# ------------------------------------------------------------------ batch norm

def bn_call(version, fn_kind, **kw):
    """fn_kind: 'kf' (kforge.tf.ops) or 'tf' (tf.raw_ops); returns numpy outputs."""
    if fn_kind == "kf":
        f = {1: kops.fused_batch_norm_grad, 2: kops.fused_batch_norm_grad_v2, 3: kops.fused_batch_norm_grad_v3}[version]
    else:
        f = {1: tf.raw_ops.FusedBatchNormGrad, 2: tf.raw_ops.FusedBatchNormGradV2,
             3: tf.raw_ops.FusedBatchNormGradV3}[version]
    return f(**kw)


def to_last(a, fmt):
    """NCHW/NCDHW -> NHWC/NDHWC."""
    r = a.ndim
    return np.transpose(a, [0] + list(range(2, r)) + [1]) if fmt.startswith("NC") else a


def to_first(a, fmt):
    r = a.ndim
    return np.transpose(a, [0, r - 1] + list(range(1, r - 1))) if fmt.startswith("NC") else a


def bn_random(rng, version, t=None, fmt=None, training=None):
    """A random call's data; t, fmt, training: fixed instead of drawn (the draws still happen)."""
    t = ("float" if version == 1 else str(rng.choice(["half", "bfloat16", "float"]))) if t is None else t
    fmts = ["NHWC", "NCHW"] + (["NDHWC", "NCDHW"] if version == 3 else [])
    fmt = str(rng.choice(fmts)) if fmt is None else fmt
    rank = 5 if fmt in ("NDHWC", "NCDHW") else 4
    n = int(rng.integers(1, 4))
    c = int(rng.integers(1, 9))
    spatial = [int(rng.integers(1, 6)) for _ in range(rank - 2)]
    shape_last = [n] + spatial + [c]
    training = bool(rng.integers(0, 2)) if training is None else training
    eps = float(rng.choice([1e-4, 1e-3, 0.01, 0.5]))
    x = rng.uniform(-2, 2, shape_last).astype(NP[t])
    dy = rng.uniform(-1, 1, shape_last).astype(NP[t])
    xf = x.astype(np.float64)
    if training:
        mean = xf.mean(axis=tuple(range(rank - 1))).astype(np.float32)
        var = xf.var(axis=tuple(range(rank - 1))).astype(np.float32)
    else:
        mean = rng.uniform(-1, 1, c).astype(np.float32)
        var = rng.uniform(0.1, 2.0, c).astype(np.float32)
    scale = rng.uniform(-2, 2, c).astype(np.float32)
    return dict(t=t, fmt=fmt, training=training, eps=eps, x=x, dy=dy, mean=mean, var=var, scale=scale)


def bn_magnitude(c, k):
    """max over channels of sum |terms| of scale_backprop (k=1) or offset_backprop (k=2)."""
    dy = c["dy"].astype(np.float64)
    axes = tuple(range(dy.ndim - 1))
    if k == 2:
        return float(np.max(np.sum(np.abs(dy), axis=axes)))
    x = c["x"].astype(np.float64)
    xh = (x - c["mean"].astype(np.float64)) / np.sqrt(c["var"].astype(np.float64) + np.float32(c["eps"]))
    return float(np.max(np.sum(np.abs(dy * xh), axis=axes)))


def bn_args(version, c, fmt, dtype=None):
    """raw-op kwargs in data_format fmt (c holds channels-last arrays)."""
    d = NP[c["t"]] if dtype is None else dtype
    kw = dict(y_backprop=to_first(c["dy"].astype(d), fmt), x=to_first(c["x"].astype(d), fmt),
              scale=c["scale"].astype(d) if version == 1 else c["scale"],
              reserve_space_1=c["mean"], reserve_space_2=c["var"],
              epsilon=c["eps"], data_format=fmt, is_training=c["training"])
    if version == 3:
        kw["reserve_space_3"] = np.zeros([0], np.float32)
    return kw


def test_bn_values(rng, calls):
    for version in (1, 2, 3):
        for i in range(calls):
            c = bn_random(rng, version)
            what = "bn v%d #%d T=%s %s training=%s x=%s" % (version, i, c["t"], c["fmt"], c["training"],
                                                            list(to_first(c["x"], c["fmt"]).shape))

            def fn(c=c, version=version):
                fmt = c["fmt"]
                got = bn_call(version, "kf", **bn_args(version, c, fmt))
                # TF's CPU kernel refuses channels-first with is_training=false: NHWC on transposed data
                tf_fmt = fmt if (c["training"] or not fmt.startswith("NC")) else {"NCHW": "NHWC", "NCDHW": "NDHWC"}[fmt]
                ref_dtype = np.float32  # float reference (half/bfloat16: exactly widened inputs)
                ref = bn_call(version, "tf", **bn_args(version, c, tf_fmt, ref_dtype))
                ref0 = np.asarray(ref[0])
                if tf_fmt != fmt:
                    ref0 = to_first(ref0, fmt)
                else:
                    ref0 = ref0
                msgs = []
                ok = True
                want_dtype = tf.as_dtype(NP[c["t"]])
                if got[0].dtype != want_dtype or tuple(got[0].shape) != ref0.shape:
                    return False, "x_backprop %s %s vs %s" % (got[0].dtype, got[0].shape, ref0.shape)
                for k, (g, r) in enumerate(zip(got, [ref0] + [np.asarray(v) for v in ref[1:]])):
                    if tuple(g.shape) != r.shape:
                        ok = False
                        msgs.append("output %d shape %s vs %s" % (k, g.shape, r.shape))
                        continue
                    e = rel_err(g.numpy(), r)
                    if k in (1, 2):
                        # reductions over N*H*W: a sum's rounding error is bounded by the sum of
                        # its terms' magnitudes, not by |sum| (which cancels; e.g. C=1 in training)
                        e = min(e, float(np.max(np.abs(g.numpy().astype(np.float64) - r))) /
                                max(bn_magnitude(c, k), 1e-30))
                    tol = TOL_BN[c["t"]] if k == 0 else TOL_BN[c["t"]] if c["t"] == "float" else 1e-4
                    if not e <= tol:
                        ok = False
                    msgs.append("out%d err %.2e (tol %.0e)" % (k, e, tol))
                return ok, " ".join(msgs)
            run_check(what, fn)


# ------------------------------------------------------------------ depthwise

def out_size(n, k, s, pad, p0, p1):
    if pad == "VALID":
        return (n - k) // s + 1
    if pad == "SAME":
        return -(-n // s)
    return (n + p0 + p1 - k) // s + 1


def dw_random(rng, dtypes=("half", "bfloat16", "float", "double")):
    while True:
        t = str(rng.choice(list(dtypes)))
        fmt = str(rng.choice(["NHWC", "NCHW"]))
        pad = str(rng.choice(["SAME", "VALID", "EXPLICIT"]))
        n, h, w = int(rng.integers(1, 4)), int(rng.integers(1, 9)), int(rng.integers(1, 9))
        c, m = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        fh, fw = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        s = int(rng.integers(1, 4))
        ep = [int(v) for v in rng.integers(0, 3, 4)] if pad == "EXPLICIT" else [0, 0, 0, 0]
        oh = out_size(h, fh, s, pad, ep[0], ep[1])
        ow = out_size(w, fw, s, pad, ep[2], ep[3])
        if oh >= 1 and ow >= 1:
            break
    x = rng.uniform(-1, 1, [n, h, w, c]).astype(NP[t])
    f = rng.uniform(-1, 1, [fh, fw, c, m]).astype(NP[t])
    g = rng.uniform(-1, 1, [n, oh, ow, c * m]).astype(NP[t])
    explicit = [] if pad != "EXPLICIT" else [0, 0, ep[0], ep[1], ep[2], ep[3], 0, 0]
    return dict(t=t, fmt=fmt, pad=pad, s=s, x=x, f=f, g=g, explicit=explicit)


def dw_explicit(c, fmt):
    e = c["explicit"]
    if not e or fmt == "NHWC":
        return e
    return [0, 0, 0, 0, e[2], e[3], e[4], e[5]]  # NCHW order: N, C, H, W


def dwbpi_args(c, fmt, dtype=None):
    d = NP[c["t"]] if dtype is None else dtype
    x = c["x"]
    sizes = list(x.shape) if fmt == "NHWC" else [x.shape[0], x.shape[3], x.shape[1], x.shape[2]]
    strides = [1, c["s"], c["s"], 1] if fmt == "NHWC" else [1, 1, c["s"], c["s"]]
    return dict(input_sizes=np.array(sizes, np.int32), filter=c["f"].astype(d),
                out_backprop=to_first(c["g"].astype(d), fmt), strides=strides, padding=c["pad"],
                explicit_paddings=dw_explicit(c, fmt), data_format=fmt)


def dwbpf_args(c, fmt, dtype=None):
    d = NP[c["t"]] if dtype is None else dtype
    strides = [1, c["s"], c["s"], 1] if fmt == "NHWC" else [1, 1, c["s"], c["s"]]
    return dict(input=to_first(c["x"].astype(d), fmt), filter_sizes=np.array(c["f"].shape, np.int32),
                out_backprop=to_first(c["g"].astype(d), fmt), strides=strides, padding=c["pad"],
                explicit_paddings=dw_explicit(c, fmt), data_format=fmt)


def test_dw_values(rng, calls):
    for which in ("input", "filter"):
        kf = kops.depthwise_conv2d_native_backprop_input if which == "input" else kops.depthwise_conv2d_native_backprop_filter
        tfo = tf.raw_ops.DepthwiseConv2dNativeBackpropInput if which == "input" else tf.raw_ops.DepthwiseConv2dNativeBackpropFilter
        args = dwbpi_args if which == "input" else dwbpf_args
        for i in range(calls):
            c = dw_random(rng)
            what = "dw-%s #%d T=%s %s %s s=%d x=%s f=%s" % (which, i, c["t"], c["fmt"], c["pad"], c["s"],
                                                           list(c["x"].shape), list(c["f"].shape))

            def fn(c=c, kf=kf, tfo=tfo, args=args, which=which):
                got = kf(**args(c, c["fmt"]))
                # TF's CPU kernel: NHWC only (kforge's NCHW is checked on transposed data);
                # half/bfloat16 against TF's double kernel on the widened inputs
                ref_dtype = np.float64 if c["t"] in ("half", "bfloat16") else None
                ref = np.asarray(tfo(**args(c, "NHWC", ref_dtype)))
                if which == "input" and c["fmt"] == "NCHW":
                    ref = to_first(ref, "NCHW")
                if got.dtype != tf.as_dtype(NP[c["t"]]):
                    return False, "dtype %s" % got.dtype
                e = rel_err(got.numpy(), ref)
                return e <= TOL_DW[c["t"]], "err %.2e (tol %.0e)" % (e, TOL_DW[c["t"]])
            run_check(what, fn)


def test_dw_dilations(rng, calls):
    """True dilation (TF's kernel ignores the attr): against GradientTape of tf.nn.depthwise_conv2d."""
    for i in range(calls):
        t = str(rng.choice(["float", "double"]))
        pad = str(rng.choice(["SAME", "VALID"]))
        d = [int(rng.integers(1, 4)), int(rng.integers(1, 4))]
        n, h, w, c, m = 1, int(rng.integers(4, 10)), int(rng.integers(4, 10)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        fh, fw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        if pad == "VALID" and (h < (fh - 1) * d[0] + 1 or w < (fw - 1) * d[1] + 1):
            pad = "SAME"
        x = tf.constant(rng.uniform(-1, 1, [n, h, w, c]).astype(NP[t]))
        f = tf.constant(rng.uniform(-1, 1, [fh, fw, c, m]).astype(NP[t]))
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, f])
            y = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], pad, dilations=d)
            g = tf.constant(rng.uniform(-1, 1, y.shape).astype(NP[t]))
            loss = tf.reduce_sum(y * g)
        dx, df = tape.gradient(loss, [x, f])
        what = "dw dilations #%d T=%s %s d=%s x=%s f=%s" % (i, t, pad, d, x.shape.as_list(), f.shape.as_list())

        def fn(x=x, f=f, g=g, dx=dx, df=df, pad=pad, d=d, t=t):
            dil = [1, d[0], d[1], 1]
            gx = kops.depthwise_conv2d_native_backprop_input(
                input_sizes=tf.shape(x), filter=f, out_backprop=g, strides=[1, 1, 1, 1], padding=pad, dilations=dil)
            gf = kops.depthwise_conv2d_native_backprop_filter(
                input=x, filter_sizes=tf.shape(f), out_backprop=g, strides=[1, 1, 1, 1], padding=pad, dilations=dil)
            e1, e2 = rel_err(gx.numpy(), dx.numpy()), rel_err(gf.numpy(), df.numpy())
            tol = TOL_DW[t]
            return e1 <= tol and e2 <= tol, "err input %.2e filter %.2e (tol %.0e)" % (e1, e2, tol)
        run_check(what, fn)


# ------------------------------------------------------------------ graphs

def test_graph_shapes():
    """Static shapes in tf.function equal TF's; traced values equal eager ones."""
    s4 = np.ones(4, np.float32)

    def bn_pair(version, fmt, sig_x, sig_c):
        def build(f, raw):
            kw = dict(epsilon=0.001, data_format=fmt, is_training=True)

            @tf.function(input_signature=[tf.TensorSpec(sig_x, tf.float32), tf.TensorSpec(sig_x, tf.float32),
                                          tf.TensorSpec(sig_c, tf.float32)])
            def g(dy, x, sc):
                args = dict(y_backprop=dy, x=x, scale=sc, reserve_space_1=sc, reserve_space_2=sc, **kw)
                if version == 3:
                    args["reserve_space_3"] = sc
                return f(**args)
            return g.get_concrete_function()
        f_tf = {1: tf.raw_ops.FusedBatchNormGrad, 2: tf.raw_ops.FusedBatchNormGradV2,
                3: tf.raw_ops.FusedBatchNormGradV3}[version]
        f_kf = {1: kops.fused_batch_norm_grad, 2: kops.fused_batch_norm_grad_v2, 3: kops.fused_batch_norm_grad_v3}[version]
        return build(f_tf, True), build(f_kf, False)

    cases = [(1, "NHWC", [None, 3, None, 4], [None]), (2, "NCHW", [2, None, 5, None], [None]),
             (2, "NHWC", [None, None, None, None], [4]), (3, "NDHWC", [None, 2, 3, 4, None], [None]),
             (3, "NCDHW", [1, None, 2, 3, 4], [None]), (3, "NCHW", None, [None]), (3, "NHWC", [2, 3, 3, 4], None)]
    for version, fmt, sx, sc in cases:
        def fn(version=version, fmt=fmt, sx=sx, sc=sc):
            a, b = bn_pair(version, fmt, sx, sc)
            sa = [o.shape.as_list() if o.shape.rank is not None else None for o in a.outputs]
            sb = [o.shape.as_list() if o.shape.rank is not None else None for o in b.outputs]
            return sa == sb, "TF %s kforge %s" % (sa, sb)
        run_check("graph shapes bn v%d %s x=%s c=%s" % (version, fmt, sx, sc), fn)

    # depthwise: constant sizes, tf.shape of a partly known tensor, and a placeholder
    for which in ("input", "filter"):
        for mode in ("const", "shape_of", "placeholder"):
            def fn(which=which, mode=mode):
                outs = []
                for impl in ("tf", "kf"):
                    if which == "input":
                        f = tf.raw_ops.DepthwiseConv2dNativeBackpropInput if impl == "tf" else kops.depthwise_conv2d_native_backprop_input
                    else:
                        f = tf.raw_ops.DepthwiseConv2dNativeBackpropFilter if impl == "tf" else kops.depthwise_conv2d_native_backprop_filter

                    @tf.function(input_signature=[tf.TensorSpec([None, 5, None, 3], tf.float32),
                                                  tf.TensorSpec([2, 2, 3, 2], tf.float32),
                                                  tf.TensorSpec([None, 5, None, 6], tf.float32),
                                                  tf.TensorSpec([4], tf.int32)])
                    def g(x, flt, dy, sizes):
                        if which == "input":
                            sz = {"const": tf.constant([2, 5, 7, 3]), "shape_of": tf.shape(x), "placeholder": sizes}[mode]
                            return f(input_sizes=sz, filter=flt, out_backprop=dy, strides=[1, 1, 1, 1], padding="SAME")
                        sz = {"const": tf.constant([2, 2, 3, 2]), "shape_of": tf.shape(flt), "placeholder": sizes}[mode]
                        return f(input=x, filter_sizes=sz, out_backprop=dy, strides=[1, 1, 1, 1], padding="SAME")
                    outs.append(g.get_concrete_function().outputs[0].shape.as_list())
                return outs[0] == outs[1], "TF %s kforge %s" % tuple(outs)
            run_check("graph shapes dw-%s sizes=%s" % (which, mode), fn)

    # rank errors at graph construction, as TF's shape functions
    def rank_err():
        res = []
        for f in (tf.raw_ops.FusedBatchNormGradV2, kops.fused_batch_norm_grad_v2):
            @tf.function(input_signature=[tf.TensorSpec([2, 3, 4], tf.float32)])
            def g(x):
                return f(y_backprop=x, x=x, scale=s4, reserve_space_1=s4, reserve_space_2=s4)
            try:
                g.get_concrete_function()
                res.append(None)
            except ValueError as e:
                res.append("Shape must be rank 4 but is rank 3" in str(e))
        return res == [True, True], str(res)
    run_check("graph shape fn rejects rank 3 (both ValueError)", rank_err)

    # tf.function values equal eager values
    rng = np.random.default_rng(7)
    c = dw_random(rng, ("float",))

    def fn():
        eager = kops.depthwise_conv2d_native_backprop_filter(**dwbpf_args(c, c["fmt"]))
        traced = tf.function(autograph=False)(lambda: kops.depthwise_conv2d_native_backprop_filter(**dwbpf_args(c, c["fmt"])))()
        return np.array_equal(eager.numpy(), traced.numpy()), ""
    run_check("tf.function values == eager values (dw-filter)", fn)
    cb = bn_random(rng, 3)

    def fn2():
        eager = kops.fused_batch_norm_grad_v3(**bn_args(3, cb, cb["fmt"]))
        traced = tf.function(autograph=False)(lambda: kops.fused_batch_norm_grad_v3(**bn_args(3, cb, cb["fmt"])))()
        return all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(eager, traced)), ""
    run_check("tf.function values == eager values (bn v3)", fn2)


# ------------------------------------------------------------------ rejections

def rejections():
    f32 = np.float32
    x4 = np.ones([2, 3, 3, 4], f32)
    c4 = np.ones([4], f32)
    bn = dict(y_backprop=x4, x=x4, scale=c4, reserve_space_1=c4, reserve_space_2=c4)
    out = []
    out.append(("bn same_shape", 2, dict(bn, y_backprop=np.ones([1, 3, 3, 4], f32))))
    out.append(("bn scale channels", 2, dict(bn, scale=np.ones([3], f32))))
    out.append(("bn mean channels", 3, dict(bn, reserve_space_1=np.ones([5], f32), reserve_space_3=c4)))
    out.append(("bn var rank", 1, dict(bn, reserve_space_2=np.ones([2, 2], f32))))
    out.append(("bn x rank 3", 3, dict(bn, x=np.ones([3, 3, 4], f32), y_backprop=np.ones([3, 3, 4], f32),
                                       reserve_space_3=c4)))
    f = np.ones([3, 3, 4, 2], f32)
    g = np.ones([2, 3, 3, 8], f32)
    dwi = dict(input_sizes=np.array([2, 3, 3, 4], np.int32), filter=f, out_backprop=g, strides=[1, 1, 1, 1],
               padding="SAME")
    out.append(("dwbpi strides length", "i", dict(dwi, strides=[1, 1, 1])))
    out.append(("dwbpi batch stride", "i", dict(dwi, strides=[2, 1, 1, 1])))
    out.append(("dwbpi explicit not empty", "i", dict(dwi, explicit_paddings=[0] * 8)))
    out.append(("dwbpi explicit length", "i", dict(dwi, padding="EXPLICIT", explicit_paddings=[0] * 6)))
    out.append(("dwbpi rows mismatch", "i", dict(dwi, out_backprop=np.ones([2, 4, 3, 8], f32))))
    out.append(("dwbpi in_depth", "i", dict(dwi, input_sizes=np.array([2, 3, 3, 5], np.int32))))
    out.append(("dwbpi input_sizes length", "i", dict(dwi, input_sizes=np.array([2, 3, 3], np.int32))))
    # attrs TF's kernels read as vector<int32>, and lists of any length (issue 28)
    out.append(("dwbpi strides 2**40", "i", dict(dwi, strides=[1, 2**40, 2**40, 1])))
    out.append(("dwbpi strides -2**40", "i", dict(dwi, strides=[1, -2**40, 1, 1])))
    out.append(("dwbpi strides 2**31 past 64 values", "i", dict(dwi, strides=[1] * 70 + [2**31])))
    out.append(("dwbpi strides 20 values", "i", dict(dwi, strides=[1] * 20)))
    out.append(("dwbpi explicit 20 values", "i", dict(dwi, padding="EXPLICIT", explicit_paddings=[0] * 20)))
    x = np.ones([2, 3, 3, 4], f32)
    dwf = dict(input=x, filter_sizes=np.array([3, 3, 4, 2], np.int32), out_backprop=g, strides=[1, 1, 1, 1],
               padding="VALID")
    out.append(("dwbpf rows mismatch", "f", dwf))
    out.append(("dwbpf batch", "f", dict(dwf, padding="SAME", input=np.ones([1, 3, 3, 4], f32))))
    out.append(("dwbpf out_depth", "f", dict(dwf, padding="SAME", filter_sizes=np.array([3, 3, 4, 3], np.int32))))
    out.append(("dwbpf negative filter_sizes", "f", dict(dwf, padding="SAME",
                                                          filter_sizes=np.array([3, -3, 4, 2], np.int32))))
    out.append(("dwbpf depth stride", "f", dict(dwf, padding="SAME", strides=[1, 1, 1, 2])))
    out.append(("dwbpf strides 2**40", "f", dict(dwf, padding="SAME", strides=[1, 2**40, 2**40, 1])))
    return out


def op_pair(kind):
    return {1: (tf.raw_ops.FusedBatchNormGrad, kops.fused_batch_norm_grad),
            2: (tf.raw_ops.FusedBatchNormGradV2, kops.fused_batch_norm_grad_v2),
            3: (tf.raw_ops.FusedBatchNormGradV3, kops.fused_batch_norm_grad_v3),
            "i": (tf.raw_ops.DepthwiseConv2dNativeBackpropInput, kops.depthwise_conv2d_native_backprop_input),
            "f": (tf.raw_ops.DepthwiseConv2dNativeBackpropFilter, kops.depthwise_conv2d_native_backprop_filter)}[kind]


def test_rejections():
    for name, kind, kw in rejections():
        for mode in ("eager", "tf.function"):
            def fn(kind=kind, kw=kw, mode=mode):
                res = []
                for f in op_pair(kind):
                    call = (lambda f=f: f(**kw)) if mode == "eager" else tf.function(lambda f=f: f(**kw), autograph=False)
                    try:
                        call()
                        res.append(("ok", ""))
                    except tf.errors.OpError as e:
                        res.append((type(e).__name__, core_message(e.message)))
                    except ValueError as e:  # graph construction (shape functions)
                        res.append(("ValueError", str(e)))
                (tc, tm), (kc, km) = res
                if tc == "ValueError" and kc == "ValueError":
                    return True, "both rejected at graph construction"
                ok = tc == "InvalidArgumentError" and kc == "InvalidArgumentError" and tm in km and "[rule " in km
                return ok, "\n  TF: %s: %s\n  kforge: %s: %s" % (tc, tm, kc, km)
            run_check("reject %s (%s)" % (name, mode), fn)


# ------------------------------------------------------------------ plans, threads

def test_plan_reuse():
    rng = np.random.default_rng(11)
    c = dw_random(rng, ("float",))
    cb = bn_random(rng, 2)

    def fn():
        made0, reused0 = ktf.plan_stats()
        a = kops.depthwise_conv2d_native_backprop_input(**dwbpi_args(c, c["fmt"]))
        made1, reused1 = ktf.plan_stats()
        b = kops.depthwise_conv2d_native_backprop_input(**dwbpi_args(c, c["fmt"]))
        made2, reused2 = ktf.plan_stats()
        ok = made1 - made0 == 1 and made2 == made1 and reused2 - reused1 == 1 and np.array_equal(a.numpy(), b.numpy())
        return ok, "made %d->%d->%d reused %d->%d->%d" % (made0, made1, made2, reused0, reused1, reused2)
    run_check("plan reuse: same shapes twice (dw-input, eager)", fn)

    def fn2():
        made0, _ = ktf.plan_stats()
        f = tf.function(lambda: kops.fused_batch_norm_grad_v2(**bn_args(2, cb, cb["fmt"])), autograph=False)
        r = [f() for _ in range(3)]
        made1, _ = ktf.plan_stats()
        same = all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(r[0], r[2]))
        return made1 - made0 == 1 and same, "plans made %d" % (made1 - made0)
    run_check("plan reuse: one plan for three calls of a tf.function (bn v2)", fn2)

    def fn3():  # another shape in the same kernel instance plans again
        made0, _ = ktf.plan_stats()
        c2 = dict(c, x=np.concatenate([c["x"], c["x"]]), g=np.concatenate([c["g"], c["g"]]))
        kops.depthwise_conv2d_native_backprop_input(**dwbpi_args(c2, c2["fmt"]))
        made1, _ = ktf.plan_stats()
        return made1 - made0 == 1, "plans made %d" % (made1 - made0)
    run_check("plan reuse: a new shape plans once", fn3)

    def bn_of_channels(ch):  # eager, one kernel instance (same attrs) for every channel count
        x = rng.standard_normal((1, 2, 2, ch)).astype(np.float32)
        one = np.ones(ch, np.float32)
        kops.fused_batch_norm_grad_v3(y_backprop=x, x=x, scale=one, reserve_space_1=0 * one, reserve_space_2=one,
                                      reserve_space_3=np.zeros(0, np.float32), epsilon=0.0011,
                                      data_format="NHWC", is_training=True)

    def fn4():  # a model's many shapes through one eager kernel: each plans once, then hits
        chans = list(range(101, 119))  # 18 shapes, as MobileNetV2's batch-norm gradients
        made0, _ = ktf.plan_stats()
        for _ in range(2):
            for ch in chans:
                bn_of_channels(ch)
        made1, _ = ktf.plan_stats()
        return made1 - made0 == len(chans), "plans made %d for %d shapes twice" % (made1 - made0, len(chans))
    run_check("plan reuse: 18 shapes cycled through one eager kernel plan once each", fn4)

    def fn5():  # past the cache's 64 entries the least recently used goes
        for ch in range(201, 267):  # 66 new shapes: 201 and 202 are the least recently used
            bn_of_channels(ch)
        made0, _ = ktf.plan_stats()
        bn_of_channels(266)
        made1, _ = ktf.plan_stats()
        bn_of_channels(201)
        made2, _ = ktf.plan_stats()
        return (made1 - made0, made2 - made1) == (0, 1), "plans made: latest %d, oldest %d" % (made1 - made0,
                                                                                            made2 - made1)
    run_check("plan reuse: a full cache replaces the least recently used plan", fn5)


def bn_check_vs_tf(version, c, got):
    """(ok, detail): got (kforge's outputs) against tf.raw_ops' float reference, as test_bn_values."""
    fmt = c["fmt"]
    tf_fmt = fmt if (c["training"] or not fmt.startswith("NC")) else {"NCHW": "NHWC", "NCDHW": "NDHWC"}[fmt]
    ref = bn_call(version, "tf", **bn_args(version, c, tf_fmt, np.float32))
    ref0 = np.asarray(ref[0])
    if tf_fmt != fmt:
        ref0 = to_first(ref0, fmt)
    ok, msgs = True, []
    for k, (g, r) in enumerate(zip(got[:3], [ref0] + [np.asarray(v) for v in ref[1:3]])):
        g = np.asarray(g)
        if g.shape != r.shape:
            return False, "output %d shape %s vs %s" % (k, g.shape, r.shape)
        e = rel_err(g, r)
        if k in (1, 2):
            e = min(e, float(np.max(np.abs(g.astype(np.float64) - r))) / max(bn_magnitude(c, k), 1e-30))
        tol = TOL_BN[c["t"]] if k == 0 or c["t"] == "float" else 1e-4
        ok = ok and e <= tol
        msgs.append("out%d err %.2e (tol %.0e)" % (k, e, tol))
    return ok, " ".join(msgs)


def test_forwarding():
    """x_backprop written over a forwardable y_backprop (TF_ForwardInputOrAllocateOutput)."""
    rng = np.random.default_rng(17)
    cases = [("float", "NHWC", True), ("half", "NCHW", True), ("bfloat16", "NHWC", False), ("float", "NCHW", True)]
    for t, fmt, training in cases:
        c = bn_random(rng, 3, t, fmt, training)
        rest = bn_args(3, c, fmt)
        d0 = rest.pop("y_backprop")  # the function's argument: held by the caller, never forwarded
        # y_backprop = d0 * 2 inside the function: exact in every dtype (|d0| <= 1)
        c2 = dict(c, dy=(c["dy"].astype(np.float64) * 2).astype(NP[t]))
        what = "in place: V3 T=%s %s training=%s x=%s" % (t, fmt, training, list(d0.shape))

        def fn(c2=c2, d0=d0, rest=rest):
            f = tf.function(lambda d: kops.fused_batch_norm_grad_v3(y_backprop=d * tf.constant(2, d.dtype), **rest),
                            autograph=False)
            f(tf.constant(d0))  # traced and run once
            n0 = ktf.forwarded_outputs()
            got = f(tf.constant(d0))
            n1 = ktf.forwarded_outputs()
            eager = kops.fused_batch_norm_grad_v3(y_backprop=tf.constant(d0) * tf.constant(2, d0.dtype), **rest)
            n2 = ktf.forwarded_outputs()
            same = all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(got[:3], eager[:3]))
            ok, detail = bn_check_vs_tf(3, c2, got)
            return (ok and same and n1 - n0 >= 1 and n2 == n1,
                    "%s; bitwise == eager: %s; forwarded in the function %d, eager %d" %
                    (detail, same, n1 - n0, n2 - n1))
        run_check(what, fn)

    # y_backprop also returned by the function: TF must not forward it, and it comes back intact
    c = bn_random(rng, 3)
    kw = bn_args(3, c, c["fmt"])
    d0 = kw.pop("y_backprop")

    def fn2():
        def g(d):
            dy = d * tf.constant(2, d.dtype)
            return dy, kops.fused_batch_norm_grad_v3(y_backprop=dy, **kw)
        f = tf.function(g, autograph=False)
        n0 = ktf.forwarded_outputs()
        dy, got = f(tf.constant(d0))
        n1 = ktf.forwarded_outputs()
        want_dy = (d0.astype(np.float64) * 2).astype(d0.dtype)
        eager = kops.fused_batch_norm_grad_v3(y_backprop=tf.constant(want_dy), **kw)
        ok = np.array_equal(np.asarray(dy), want_dy) and np.array_equal(np.asarray(got[0]), np.asarray(eager[0]))
        return ok and n1 == n0, "y_backprop intact and x_backprop == eager: %s; forwarded %d" % (ok, n1 - n0)
    run_check("in place: a y_backprop the function also returns is not forwarded", fn2)

    # the same intermediate as y_backprop and x: x_backprop must not overwrite x
    def fn3():
        rest = {k: v for k, v in kw.items() if k != "x"}
        f = tf.function(lambda d: kops.fused_batch_norm_grad_v3(y_backprop=d * tf.constant(2, d.dtype),
                                                                x=d * tf.constant(2, d.dtype), **rest),
                        autograph=False)
        def same(d):
            e = d * tf.constant(2, d.dtype)
            return kops.fused_batch_norm_grad_v3(y_backprop=e, x=e, **rest)
        g = tf.function(same, autograph=False)
        want_dy = (d0.astype(np.float64) * 2).astype(d0.dtype)
        eager = kops.fused_batch_norm_grad_v3(y_backprop=tf.constant(want_dy), x=tf.constant(want_dy), **rest)
        n0 = ktf.forwarded_outputs()
        got_g = g(tf.constant(d0))
        n1 = ktf.forwarded_outputs()
        got_f = f(tf.constant(d0))  # two multiplies (unless TF merges them): y_backprop may be forwarded
        ok = all(np.array_equal(np.asarray(a), np.asarray(b))
                 for got in (got_g, got_f) for a, b in zip(got[:3], eager[:3]))
        return ok and n1 == n0, "outputs == eager: %s; forwarded with y_backprop is x: %d" % (ok, n1 - n0)
    run_check("in place: y_backprop that is also x is not forwarded", fn3)


def test_threads():
    want = tf.config.threading.get_intra_op_parallelism_threads() or os.cpu_count()
    env = os.environ.get("KFORGE_TF_THREADS", "").strip()
    if env:
        want = int(env)
    n = ktf.num_threads()
    check(n == want, "threads: kforge's pool has %d threads (TF intra-op / KFORGE_TF_THREADS: %d)" % (n, want))


def test_threads_setting():
    """TF's intra-op setting at load time sizes the pool (a fresh process)."""
    import subprocess
    code = ("import os, tensorflow as tf; tf.config.threading.set_intra_op_parallelism_threads(1); "
            "import kforge.tf as k; print('THREADS', k.num_threads())")
    env = dict(os.environ)
    env.pop("KFORGE_TF_THREADS", None)
    r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, env=env)
    check("THREADS 1" in r.stdout, "threads: intra-op 1 at load gives a 1-thread pool", r.stdout.strip())


def run_py(code, env_over=None, drop=()):
    """Runs code in a fresh interpreter of this venv: (exit status, stdout + stderr)."""
    import subprocess
    env = dict(os.environ)
    for k in drop:
        env.pop(k, None)
    env.update(env_over or {})
    r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, env=env, timeout=600)
    return r.returncode, r.stdout


DW_CALL = ("ops.depthwise_conv2d_native_backprop_input(input_sizes=[1, 4, 4, 2], filter=tf.ones([3, 3, 2, 1]), "
           "out_backprop=tf.ones([1, 4, 4, 2]), strides=[1, 1, 1, 1], padding='SAME')")


def test_threads_env():
    """$KFORGE_TF_THREADS: refused unless an integer from 1 to 4096 (at load, and by the op when it
    changes before the pool is made); a valid value wins over TF's intra-op setting."""
    for bad in ("abc", "0", "-3", "1.5", "99999", "2x", "0x10"):
        rc, out = run_py("import kforge.tf as k; k.load()", {"KFORGE_TF_THREADS": bad})
        check(rc != 0 and ('KFORGE_TF_THREADS="%s" is not a thread count' % bad) in out,
              "threads: KFORGE_TF_THREADS=%r refused by load() with a clear error" % bad, out[-300:])
    code = ("import os, tensorflow as tf, kforge.tf as k; from kforge.tf import ops; k.load(); "
            "os.environ['KFORGE_TF_THREADS'] = 'abc'\n"
            "try:\n  %s\n  print('COMPUTED')\nexcept tf.errors.InvalidArgumentError as e:\n  print('REFUSED', e.message)"
            % DW_CALL)
    rc, out = run_py(code, {"KFORGE_TF_THREADS": "2"})
    check(rc == 0 and "REFUSED" in out and 'KFORGE_TF_THREADS="abc" is not a thread count' in out,
          "threads: the op refuses an invalid KFORGE_TF_THREADS set before its pool is made", out[-300:])
    rc, out = run_py("import tensorflow as tf; tf.config.threading.set_intra_op_parallelism_threads(1); "
                     "import kforge.tf as k; print('THREADS', k.num_threads())", {"KFORGE_TF_THREADS": " 2 "})
    check(rc == 0 and "THREADS 2" in out, "threads: KFORGE_TF_THREADS=2 wins over intra-op 1 (docs/tf.md)",
          out[-300:])


def test_autograph_first_use():
    """The first use of kforge.tf.ops inside a tf.function (AutoGraph converts load()) leaves the
    library loaded for the rest of the process."""
    code = ("import tensorflow as tf, kforge.tf as k\nfrom kforge.tf import ops\n"
            "@tf.function\ndef f():\n  return %s\n"
            "y = f()\nprint('LOADED', k._cdll is not None, k.num_threads() >= 1, k.plan_stats()[0] >= 1, "
            "float(tf.reduce_sum(y)) > 0)" % DW_CALL)
    rc, out = run_py(code)
    check(rc == 0 and "LOADED True True True True" in out,
          "autograph: first use inside a tf.function loads the library for good", out[-400:])


def test_nul_string_attrs():
    """A NUL inside a string attr: TF refuses it (op-def validation), so does the kforge op."""
    g = np.ones([1, 2, 2, 3], np.float32)
    for attr, val in (("padding", "SAME\0garbage"), ("data_format", "NHWC\0x")):
        res = []
        for f in op_pair("i"):
            try:
                f(input_sizes=np.array([1, 2, 2, 3], np.int32), filter=np.ones([3, 3, 3, 1], np.float32),
                  out_backprop=g, strides=[1, 1, 1, 1], **dict({"padding": "SAME"}, **{attr: val}))
                res.append("computed")
            except (tf.errors.OpError, ValueError, TypeError) as e:
                res.append(type(e).__name__)
        check(res[0] != "computed" and res[1] != "computed", "%s=%r: TF and kforge both refuse it" % (attr, val),
              str(res))


def test_xla_falls_back():
    """jit_compile=True after enable(): TF's gradients inside the XLA cluster (the Kforge ops have
    no XLA kernels), kforge's outside; both equal TF's gradient."""
    rng = np.random.default_rng(9)
    x = tf.constant(rng.standard_normal([2, 4, 4, 3]).astype(np.float32))
    w = tf.constant(rng.standard_normal([3, 3, 3, 1]).astype(np.float32))
    gamma, beta = tf.ones([3]), tf.zeros([3])

    def step(x, w):
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME")
            y, _, _ = tf.compat.v1.nn.fused_batch_norm(y, gamma, beta, is_training=True)
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, [x, w])
    want = tf.function(step)(x, w)  # TF's gradients (not enabled yet)
    ktf.enable()
    try:
        ktf.reset_stats()
        got_xla = tf.function(step, jit_compile=True)(x, w)
        xla_stats = ktf.stats()
        got = tf.function(step)(x, w)
        plain_stats = ktf.stats()
    except Exception as e:  # the failure this guards against: no XLA kernel for a Kforge op
        check(False, "xla: jit_compile=True after enable() runs", "%s: %s" % (type(e).__name__, str(e)[:300]))
        return
    finally:
        ktf.disable()
    used_kforge_xla = sum(v[0] for v in xla_stats.values())
    used_kforge = sum(v[0] for v in plain_stats.values()) - used_kforge_xla
    close = all(np.allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4) for a, b in zip(want, got_xla))
    check(close and used_kforge_xla == 0, "xla: jit_compile=True after enable() uses TF's gradients, same values",
          str(xla_stats))
    close = all(np.allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-4) for a, b in zip(want, got))
    check(close and used_kforge >= 2, "xla: outside XLA the same step uses kforge's gradients", str(plain_stats))


def test_concurrent_calls():
    """Python threads calling the same kernel instances at once, two shapes interleaved."""
    import threading
    rng = np.random.default_rng(3)
    c1 = dw_random(rng, ("float",))
    c2 = dict(c1, x=np.concatenate([c1["x"]] * 2), g=np.concatenate([c1["g"]] * 2))
    want = [kops.depthwise_conv2d_native_backprop_input(**dwbpi_args(c, c1["fmt"])).numpy() for c in (c1, c2)]
    bad = []

    def worker(k):
        for j in range(20):
            c = (c1, c2)[(j + k) % 2]
            got = kops.depthwise_conv2d_native_backprop_input(**dwbpi_args(c, c1["fmt"])).numpy()
            if not np.array_equal(got, want[(j + k) % 2]):
                bad.append((k, j))
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    check(not bad, "concurrent calls: 4 threads x 20 calls, bitwise equal to serial", str(bad[:3]))


def test_measured_plans():
    """KFORGE_PLAN=measure: each shape's first call measures and KFORGE_WISDOM receives the
    entry; a later process reuses the file without measuring (docs/tuning.md). Results stay
    within tolerance of TF's kernels (fresh processes: the plan mode is read when planning)."""
    import subprocess
    import tempfile
    code = r"""
import os, sys, numpy as np, tensorflow as tf
import kforge.tf as k
from kforge.tf import ops as kops
rng = np.random.default_rng(5)
f = rng.uniform(-1, 1, (3, 3, 24, 1)).astype(np.float32)
g = rng.uniform(-1, 1, (2, 10, 10, 24)).astype(np.float32)
kw = dict(input_sizes=np.array([2, 10, 10, 24], np.int32), filter=f, out_backprop=g, strides=[1, 1, 1, 1],
          padding="SAME")
want = tf.raw_ops.DepthwiseConv2dNativeBackpropInput(**kw).numpy()
dy, x = (rng.uniform(-1, 1, (2, 8, 8, 40)).astype(np.float32) for _ in range(2))
sc, m = (rng.uniform(-1, 1, 40).astype(np.float32) for _ in range(2))
v = rng.uniform(0.5, 1.5, 40).astype(np.float32)
bkw = dict(y_backprop=dy, x=x, scale=sc, reserve_space_1=m, reserve_space_2=v, epsilon=0.001)
bwant = tf.raw_ops.FusedBatchNormGradV2(**bkw)[0].numpy()
err = 0.0
for _ in range(2):
    got = kops.depthwise_conv2d_native_backprop_input(**kw).numpy()
    err = max(err, float(np.max(np.abs(got - want)) / np.max(np.abs(want))))
    bgot = kops.fused_batch_norm_grad_v2(**bkw)[0].numpy()
    err = max(err, float(np.max(np.abs(bgot - bwant)) / np.max(np.abs(bwant))))
print("ERR", err, "PLANS", k.plan_stats()[0])
"""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tf.wisdom")
        env = dict(os.environ, KFORGE_PLAN="measure", KFORGE_WISDOM=path)
        r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=600)
        text = open(path).read() if os.path.exists(path) else ""
        entries = [x for x in text.splitlines() if x.startswith("cpu=")]
        err = float(r.stdout.split("ERR ")[1].split()[0]) if "ERR " in r.stdout else 1.0
        check(r.returncode == 0 and len(entries) == 2 and err < 1e-5 and
              any("DepthwiseConv2dNativeBackpropInput" in x for x in entries) and
              any("FusedBatchNormGradV2" in x for x in entries),
              "measured plans: KFORGE_PLAN=measure measures each shape once, KFORGE_WISDOM gets both entries, "
              "results within 1e-5 of TF's", r.stdout[-300:] + r.stderr[-600:])
        env = dict(os.environ, KFORGE_WISDOM=path)
        env.pop("KFORGE_PLAN", None)
        r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=600)
        err = float(r.stdout.split("ERR ")[1].split()[0]) if "ERR " in r.stdout else 1.0
        check(r.returncode == 0 and err < 1e-5 and open(path).read() == text,
              "measured plans: a later process reuses the wisdom file unchanged", r.stdout[-300:] + r.stderr[-600:])
        os.unlink(path)
        env = dict(os.environ, KFORGE_PLAN="measure-cold", KFORGE_WISDOM=path)
        r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=600)
        text = open(path).read() if os.path.exists(path) else ""
        err = float(r.stdout.split("ERR ")[1].split()[0]) if "ERR " in r.stdout else 1.0
        check(r.returncode == 0 and len([x for x in text.splitlines() if x.startswith("cpu=")]) == 2 and err < 1e-5,
              "measured plans: KFORGE_PLAN=measure-cold measures each shape once (buffers evicted), both entries "
              "written, results within 1e-5 of TF's", r.stdout[-300:] + r.stderr[-600:])


def test_build_errors():
    from kforge.tf import _build
    old = os.environ.get("CC")
    os.environ["CC"] = "/nonexistent/kforge-cc"
    try:
        _build.compiler()
        check(False, "build: a missing C compiler is a clear BuildError")
    except _build.BuildError as e:
        check("C compiler" in str(e) and "install" in str(e), "build: a missing C compiler is a clear BuildError",
              str(e))
    finally:
        if old is None:
            del os.environ["CC"]
        else:
            os.environ["CC"] = old


def main():
    global VERBOSE
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=int(os.environ.get("KFORGE_TF_SEED", "20261124")))
    p.add_argument("--calls", type=int, default=40, help="random calls per op")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--only", action="append", default=[],
                   help="run just the test_* functions whose names contain this (repeatable)")
    a = p.parse_args()
    VERBOSE = a.verbose
    print("test_tf_ops: seed %d, %d calls per op, TF %s, library %s" % (a.seed, a.calls, tf.__version__,
                                                                         ktf.library_path()))
    ktf.load()
    rng = np.random.default_rng(a.seed)
    tests = [("test_opdefs", lambda: test_opdefs()),
             ("test_bn_values", lambda: test_bn_values(rng, a.calls)),
             ("test_dw_values", lambda: test_dw_values(rng, a.calls)),
             ("test_dw_dilations", lambda: test_dw_dilations(rng, max(4, a.calls // 4))),
             ("test_graph_shapes", test_graph_shapes),
             ("test_rejections", test_rejections),
             ("test_plan_reuse", test_plan_reuse),
             ("test_forwarding", test_forwarding),
             ("test_threads", test_threads),
             ("test_threads_setting", test_threads_setting),
             ("test_threads_env", test_threads_env),
             ("test_autograph_first_use", test_autograph_first_use),
             ("test_nul_string_attrs", test_nul_string_attrs),
             ("test_xla_falls_back", test_xla_falls_back),
             ("test_concurrent_calls", test_concurrent_calls),
             ("test_measured_plans", test_measured_plans),
             ("test_build_errors", test_build_errors)]
    for name, run in tests:
        if not a.only or any(o in name for o in a.only):
            run()
    print("%d passed, %d failed" % (PASSED, FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
