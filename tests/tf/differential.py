"""differential.py -- TensorFlow's own CPU kernels as kforge's oracle.

Usage (normally through tests/tf/run.sh, with the pinned TensorFlow venv's
python):
    python tests/tf/differential.py [--kforge build/kforge] [--seed S]
        [--calls N] [--only I[,J...]] [--jobs J] [--verbose]

A seeded generator makes N calls (default 2000) of the four ops
FusedBatchNormGrad, FusedBatchNormGradV2, FusedBatchNormGradV3 and
DepthwiseConv2dNativeBackpropInput, plus D calls (--dwbpf-calls, default
600; indices from DWBPF_BASE = 1000000 on, so existing seeds keep their
calls) of DepthwiseConv2dNativeBackpropFilter, valid and malformed, and runs each
through tf.raw_ops (TF 2.21's Eigen CPU kernels: TF_ENABLE_ONEDNN_OPTS=0,
one intra-op thread) and through the kforge CLI on the same tensors:

- TF succeeds: kforge must succeed with the same output shapes and dtypes,
  values within the per-dtype tolerance of docs/testing.md, and an error
  against a float64 evaluation (numpy, from the rounded inputs) no worse
  than TF's own beyond a small slack (SLACK below).
- TF fails: kforge must fail (exit 1, one line "kforge: error: <message>")
  with TF's message text (TF's "{{function_node ...}}", "[Op:...]" and
  NodeDef context stripped).
- Where TF's CPU kernel refuses or ignores what the op defines (NCHW
  depthwise, NCHW batch norm with is_training=false, unequal depthwise
  strides, dilations), kforge's documented meaning is checked against TF on
  an equivalent call and against float64.
- DepthwiseConv2dNativeBackpropFilter runs only when build/kforge knows it
  (`kforge ops`); otherwise its calls and explicit checks are skipped, with
  one line saying so (not a failure), so this file also runs on builds
  without the op. A rejection compares TF's message, and TF's error class
  with kforge's: every spec rule of kforge is InvalidArgument (the CLI
  prints only the message), so a matching message under any other TF class
  is a failure.
- Every deliberate divergence is an entry of DIVERGENCES, keyed by rule;
  docs/testing.md lists them ("Deliberate divergences from TF 2.21").

One check per call plus the explicit behaviour checks of TF 2.21
(explicit_checks). Each call i is generated from (seed, i) alone, so
`--only i` reruns exactly that call. The seed is fresh per run unless
--seed or KFORGE_TF_SEED is given; it is printed at the start and with
every failure. Ends with per-output error distributions and
"N passed, M failed". Exit status 3 means TensorFlow could not be imported
(tests/tf/run.sh then rebuilds the venv once).
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TF's own (Eigen) kernels, not oneDNN's rewrite

import numpy as np

warnings.filterwarnings("ignore", category=RuntimeWarning)  # NaN/Inf/overflow are part of the tests

try:
    import ml_dtypes
except ImportError as e:  # the venv is broken
    print("tf-differential: cannot import ml_dtypes: %s" % e)
    print("0 passed, 1 failed")
    sys.exit(3)

BF16 = np.dtype(ml_dtypes.bfloat16)
NP = {"half": np.dtype(np.float16), "bfloat16": BF16, "float": np.dtype(np.float32),
      "double": np.dtype(np.float64), "int32": np.dtype(np.int32)}
NAME_OF = {v: k for k, v in NP.items()}
# unit roundoff of each output dtype, and its smallest subnormal
UNIT = {"half": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float": 2.0 ** -24, "double": 2.0 ** -53}
SUBNORMAL = {"half": 2.0 ** -24, "bfloat16": 2.0 ** -133, "float": 2.0 ** -149, "double": 2.0 ** -1074}

# Tolerances of docs/testing.md, relative to max |expected|.
TOL_BN = {"float": 1e-5, "half": 2e-3, "bfloat16": 2e-2}
TOL_DW = {"double": 1e-10, "float": 2e-5, "half": 5e-3, "bfloat16": 3e-2}
TOL_U = 1e-5        # scale/offset backprop are float for every T
# Where terms cancel (sums of products, dy - mean(dy) - x^*mean(dy*x^)),
# the bound also allows this much of each element's sum of |terms| (the
# docs' 1e-6 of the L1 norm; 1e-14 for double accumulation).
TOL_TERMS = {"float": 1e-6, "double": 1e-14}
# kforge's error against float64 may exceed TF's by at most SLACK roundoffs:
# of the output dtype times max|exact| (both round the result once), plus of
# the accumulation dtype times max sum|terms| (a different but equally good
# operation order).
SLACK = 4.0

BN_OPS = ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")
DW_OP = "DepthwiseConv2dNativeBackpropInput"
DWBPF_OP = "DepthwiseConv2dNativeBackpropFilter"
DWBPF_BASE = 1000000  # call indices of DWBPF_OP start here (--only DWBPF_BASE+j reruns one)
INPUTS = {
    "FusedBatchNormGrad": ("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2"),
    "FusedBatchNormGradV2": ("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2"),
    "FusedBatchNormGradV3": ("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2",
                             "reserve_space_3"),
    DW_OP: ("input_sizes", "filter", "out_backprop"),
    DWBPF_OP: ("input", "filter_sizes", "out_backprop"),
}
OUTPUTS = {
    "FusedBatchNormGrad": ("x_backprop", "scale_backprop", "offset_backprop", "reserve_space_3",
                           "reserve_space_4"),
    "FusedBatchNormGradV2": ("x_backprop", "scale_backprop", "offset_backprop", "reserve_space_3",
                             "reserve_space_4"),
    "FusedBatchNormGradV3": ("x_backprop", "scale_backprop", "offset_backprop", "reserve_space_4",
                             "reserve_space_5"),
    DW_OP: ("output",),
    DWBPF_OP: ("output",),
}
# the first T-typed input (TF infers T from it; so does the kforge CLI)
FIRST_T = {"FusedBatchNormGrad": "y_backprop", "FusedBatchNormGradV2": "y_backprop",
           "FusedBatchNormGradV3": "y_backprop", DW_OP: "filter", DWBPF_OP: "input"}

# TF's messages for what its CPU kernel refuses but the op defines.
MSG_DW_NCHW = "Depthwise convolution on CPU is only supported for NHWC format"
MSG_BN_NCHW_INFER = ("The implementation of FusedBatchNormGrad with is_training=False only support "
                     "NHWC tensor format for now.")
MSG_DW_UNEQUAL = ("Current implementation only supports equal length strides in the row and column "
                  "dimensions.")

# Deliberate divergences from TF 2.21 (docs/testing.md lists the same ids).
DIVERGENCES = {
    "tf-refuses.dw-nchw": "TF's CPU kernel: UnimplementedError for NCHW; kforge computes NCHW natively "
                          "(checked against TF NHWC on transposed tensors)",
    "tf-refuses.bn-nchw-inference": "TF's CPU kernel: InvalidArgument for NCHW/NCDHW with "
                                    "is_training=false; kforge computes it (checked against TF NHWC/NDHWC "
                                    "on transposed tensors)",
    "tf-refuses.dw-unequal-strides": "TF's CPU kernel: InvalidArgument for unequal row/column strides; "
                                     "kforge computes them (checked against TF with stride 1 on a "
                                     "zero-stuffed out_backprop)",
    "tf-ignores.dw-dilations": "TF's CPU kernel ignores dilations; kforge computes true dilation (checked "
                               "against TF on the zero-dilated filter and, for stride 1 SAME/VALID, the "
                               "GradientTape gradient of tf.nn.depthwise_conv2d)",
    "kforge-validates.dw-dilations": "TF accepts (and ignores) any dilations; kforge rejects a length other "
                                     "than 4, a batch/depth dilation other than 1 and a dilation below 1 "
                                     "(rules dwbpi.dilations_len, dwbpi.dilations_batch_depth, "
                                     "dwbpi.dilation_positive)",
    "tf-bug.bn-empty-5d-shape": "TF returns x_backprop of an empty 5-D input in the merged 4-D view's "
                                "shape; kforge returns x's 5-D shape",
    "tf-uninitialised.dw-multiplier-0": "with depth multiplier 0 TF's output is uninitialised memory; "
                                        "kforge writes zeros (checked against float64)",
    "tf-ftz.denormals": "TF runs its kernels with denormals flushed to zero (FTZ/DAZ); kforge keeps IEEE "
                        "gradual underflow (it does not change the caller's floating-point environment). "
                        "Calls whose float inputs, epsilon or var+epsilon are denormal are checked against "
                        "TF's formulas evaluated in IEEE float32 (numpy) where TF's answer differs",
    "tf-refuses.dwbpf-nchw": "DepthwiseConv2dNativeBackpropFilter: TF's CPU kernel: UnimplementedError for "
                             "NCHW; kforge computes NCHW natively (checked against TF NHWC on transposed "
                             "input and out_backprop)",
    "tf-refuses.dwbpf-unequal-strides": "DepthwiseConv2dNativeBackpropFilter: TF's CPU kernel: InvalidArgument "
                                        "for unequal row/column strides; kforge computes them (checked against "
                                        "TF with stride 1 on a zero-stuffed out_backprop)",
    "tf-ignores.dwbpf-dilations": "DepthwiseConv2dNativeBackpropFilter: TF's CPU kernel ignores dilations; "
                                  "kforge computes true dilation (checked against TF on the zero-dilated "
                                  "filter_sizes, keeping every dilation-th tap)",
    "kforge-validates.dwbpf-dilations": "DepthwiseConv2dNativeBackpropFilter: TF accepts (and ignores) any "
                                        "dilations; kforge rejects a length other than 4, a batch/depth "
                                        "dilation other than 1 and a dilation below 1, with the messages of "
                                        "the input gradient's rules",
    "tf-uninitialised.dwbpf-empty-reduction": "DepthwiseConv2dNativeBackpropFilter with nothing to sum (N, "
                                              "H, W, out rows or out cols 0) and a non-empty filter: TF's "
                                              "output is uninitialised memory; kforge writes zeros "
                                              "(checked against float64)",
    "message.input-dtype": "TF's eager layer rejects a mismatched input dtype before the kernel "
                           "(\"cannot compute OP as input #k(zero-based) was expected to be a X tensor "
                           "but is a Y tensor\", or attr U not allowed); kforge's rule input_dtype says "
                           "\"<input> must be X, got Y\" for the same input and dtypes",
}

KFORGE = None
SEED = None
ARGS = None


def rerun_hint(idx):
    return "rerun: KFORGE_TF_SEED=%d bash tests/tf/run.sh --only %d" % (SEED, idx)


# --------------------------------------------------------------------------
# the call generator
# --------------------------------------------------------------------------

class Call:
    def __init__(self, idx, op):
        self.idx = idx
        self.op = op
        self.attrs = {}        # TF attr values (python)
        self.inputs = {}       # name -> numpy array (dtype as TF gets it)
        self.kind = "valid"    # or "malformed:<mutation>"
        self.T = None          # nominal dtype name

    def describe(self):
        shapes = " ".join("%s=%s%s" % (k, NAME_OF.get(v.dtype, str(v.dtype)), list(v.shape))
                          for k, v in self.inputs.items())
        if self.op == DW_OP:
            shapes += " input_sizes=%s" % self.inputs["input_sizes"].tolist()
        if self.op == DWBPF_OP:
            shapes += " filter_sizes=%s" % self.inputs["filter_sizes"].tolist()
        attrs = " ".join("%s=%s" % (k, v) for k, v in sorted(self.attrs.items()))
        return "#%d %s [%s] %s %s" % (self.idx, self.op, self.kind, attrs, shapes)


def pick(rng, items, weights=None):
    if weights is None:
        return items[int(rng.integers(len(items)))]
    w = np.asarray(weights, dtype=np.float64)
    return items[int(rng.choice(len(items), p=w / w.sum()))]


def as_dtype(a, t):
    """float64 values -> the dtype TF gets (rounded to nearest even)."""
    return np.asarray(a).astype(NP[t])


def gen_epsilon(rng):
    kind = pick(rng, ["default", "common", "loguniform", "zero", "large", "negative", "denormal"],
                [30, 25, 15, 5, 8, 8, 9])
    if kind == "default":
        return 0.0001, kind
    if kind == "common":
        return pick(rng, [1e-3, 1e-5, 1.001e-5, 0.01, 0.1]), kind
    if kind == "loguniform":
        return float(10 ** rng.uniform(-8, 0)), kind
    if kind == "zero":
        return 0.0, kind
    if kind == "large":
        return pick(rng, [1.0, 10.0, 1e3, 1e10, 1e40]), kind
    if kind == "negative":
        return pick(rng, [-1e-4, -1e-3, -0.01, -0.5, -2.0]), kind
    return pick(rng, [1e-40, 1e-45, 1e-50, 1e-38, 3e-39]), kind


def gen_bn(rng, idx, long_reduction=False):
    op = pick(rng, BN_OPS, [2, 3, 5])
    c = Call(idx, op)
    T = "float" if op == "FusedBatchNormGrad" else pick(rng, ["half", "bfloat16", "float"])
    c.T = T
    formats = ["NHWC", "NCHW"] + (["NDHWC", "NCDHW"] if op == "FusedBatchNormGradV3" else [])
    fmt = pick(rng, formats)
    training = bool(rng.random() < 0.6)
    eps, eps_kind = gen_epsilon(rng)
    # rank: 5-D for the 3-D formats; V1/V2 (and V3 NHWC/NCHW) take a 5-D
    # tensor too in eager mode (no shape function), as NDHWC/NCDHW
    rank = 5 if fmt in ("NDHWC", "NCDHW") else (5 if rng.random() < 0.08 else 4)
    last = fmt in ("NHWC", "NDHWC")
    size_kind = "long" if long_reduction else pick(
        rng, ["small", "channels", "wide", "empty", "one"], [70, 10, 8, 7, 5])
    if size_kind == "long":
        # >= 10^6 elements per channel
        C = int(pick(rng, [1, 1, 2, 3]))
        M = int(pick(rng, [1 << 20, 1000000, 1100000]))
        n = int(pick(rng, [1, 2, 4]))
        spatial = [1] * (rank - 3) + [M // n]
    else:
        if size_kind == "small":
            C = int(rng.integers(1, 17))
            n = int(rng.integers(1, 5))
            spatial = [int(rng.integers(1, 8)) for _ in range(rank - 2)]
        elif size_kind == "channels":
            C = int(rng.integers(17, 300))
            n = int(rng.integers(1, 4))
            spatial = [int(rng.integers(1, 5)) for _ in range(rank - 2)]
        elif size_kind == "wide":
            C = int(pick(rng, [512, 1000, 1024, 2047, 2048]))
            n = int(rng.integers(1, 3))
            spatial = [int(rng.integers(1, 3)) for _ in range(rank - 2)]
        elif size_kind == "one":  # M == 1
            C = int(rng.integers(1, 40))
            n = 1
            spatial = [1] * (rank - 2)
        else:  # empty: N, a spatial dim or C is 0
            C = int(rng.integers(1, 9))
            n = int(rng.integers(1, 3))
            spatial = [int(rng.integers(1, 5)) for _ in range(rank - 2)]
            which = int(rng.integers(rank))
            if which == 0:
                n = 0
            elif which == rank - 1:
                C = 0
            else:
                spatial[which - 1] = 0
    shape = [n] + spatial + [C] if last else [n, C] + spatial
    numel = int(np.prod(shape))
    mag_x = float(10 ** rng.uniform(-2, 2)) if T == "float" else float(10 ** rng.uniform(-1, 1))
    mag_dy = float(10 ** rng.uniform(-2, 2)) if T == "float" else float(10 ** rng.uniform(-1, 1))
    x = rng.normal(rng.uniform(-1, 1), 1.0, numel).reshape(shape) * mag_x
    dy = rng.normal(pick(rng, [0.0, 0.0, 0.5]), 1.0, numel).reshape(shape) * mag_dy
    x = as_dtype(x, T)
    dy = as_dtype(dy, T)
    ax = tuple(i for i in range(rank) if i != (rank - 1 if last else 1))
    x64 = x.astype(np.float64)
    if training and numel > 0 and rng.random() < 0.7:
        # the statistics a forward pass would have saved (biased variance)
        mean = x64.mean(axis=ax)
        var = x64.var(axis=ax)
        if rng.random() < 0.3:  # slightly off: kforge must use them as given
            mean = mean + rng.normal(0, 0.1, C) * mag_x
    else:
        mean = rng.normal(0, 1, C) * mag_x
        var = rng.uniform(0.05, 2.0, C) * mag_x * mag_x
    if eps_kind == "negative":
        # mostly var + eps > 0; sometimes not (NaN, as TF's formulas say)
        if rng.random() < 0.8:
            var = np.maximum(var, -eps * 1.5)
    if eps_kind == "denormal" and rng.random() < 0.3 and C > 0:
        var = var.copy()
        var[int(rng.integers(C))] = 0.0  # rsqrt of a denormal: huge but finite, or inf
    scale = rng.uniform(-1.5, 1.5, C)
    U = "float"
    st = "float" if op == "FusedBatchNormGrad" else U
    c.inputs["y_backprop"] = dy
    c.inputs["x"] = x
    c.inputs["scale"] = as_dtype(scale, "float" if op != "FusedBatchNormGrad" else T)
    c.inputs["reserve_space_1"] = as_dtype(mean, st)
    c.inputs["reserve_space_2"] = as_dtype(var, st)
    if op == "FusedBatchNormGradV3":
        rs3 = pick(rng, [[0], [C], [3], []])  # ignored on CPU: any shape
        c.inputs["reserve_space_3"] = np.zeros(rs3, np.float32)
    c.attrs = {"epsilon": eps, "data_format": fmt, "is_training": training}
    c.size_kind = size_kind
    return c


def window(n, k, d, s, padding, pb=0, pa=0):
    """GetWindowedOutputSizeVerbose with effective filter (k-1)*d+1 (tf_semantics.md 2.3).
    Returns (out, pad_before, pad_after)."""
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = (n + s - 1) // s
        total = max(0, (out - 1) * s + eff - n)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        pb = pa = 0
    num = n + pb + pa - eff + s
    return int(num / s), pb, pa  # C++ truncation toward zero


def gen_dw(rng, idx, allow_unequal=True, allow_dilation=True):
    c = Call(idx, DW_OP)
    T = pick(rng, ["half", "bfloat16", "float", "double"])
    c.T = T
    fmt = pick(rng, ["NHWC", "NCHW"], [3, 1])
    m = int(pick(rng, [1, 2, 3, 4], [5, 3, 1, 1]))
    if rng.random() < 0.01:
        m = 0
    size_kind = pick(rng, ["small", "channels", "wide", "empty", "bigfilter"], [70, 10, 5, 7, 8])
    n = int(rng.integers(1, 4))
    if size_kind == "channels":
        C = int(rng.integers(9, 300))
        H, W = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    elif size_kind == "wide":
        C = int(pick(rng, [512, 1024, 2048]))
        H, W = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        n = 1
    else:
        C = int(rng.integers(1, 9))
        H, W = int(rng.integers(1, 13)), int(rng.integers(1, 13))
    kh, kw = int(pick(rng, [1, 2, 3, 3, 3, 4, 5, 6, 7])), int(pick(rng, [1, 2, 3, 3, 3, 4, 5, 6, 7]))
    if rng.random() < 0.5:
        kw = kh
    if size_kind == "bigfilter":  # filter larger than the input
        H, W = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        kh, kw = H + int(rng.integers(1, 5)), W + int(rng.integers(1, 5))
    if size_kind == "empty":
        which = int(rng.integers(5))
        if which == 0:
            n = 0
        elif which == 1:
            H = 0
        elif which == 2:
            W = 0
        elif which == 3:
            C = 0
        else:
            kh = 0  # a filter with no taps: TF accepts it
    s = int(pick(rng, [1, 1, 1, 2, 2, 3, 4]))
    sh = sw = s
    if allow_unequal and rng.random() < 0.15:
        while sw == sh:
            sw = int(pick(rng, [1, 2, 3, 4]))
    dh = dw = 1
    # (an empty filter with dilation has no zero-dilated TF equivalent: its
    # effective size (k-1)*d+1 is negative)
    if allow_dilation and kh > 0 and rng.random() < 0.15:
        dh, dw = int(pick(rng, [1, 2, 3])), int(pick(rng, [1, 2, 3]))
        if dh == dw == 1:
            dh = 2
    padding = pick(rng, ["SAME", "VALID", "EXPLICIT"], [4, 3, 3])
    ep = [0] * 8
    pt = pb = pl = pr = 0
    if padding == "EXPLICIT":
        pt, pb, pl, pr = (int(rng.integers(0, 4)) for _ in range(4))
    # VALID/EXPLICIT with a filter that does not fit: make it fit, except
    # where the truncating division still gives 0 rows (valid, empty dy)
    for _ in range(20):
        oh = window(H, kh, dh, sh, padding, pt, pb)[0]
        ow = window(W, kw, dw, sw, padding, pl, pr)[0]
        if oh >= 0 and ow >= 0:
            break
        padding = "SAME"
    ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
    if padding == "EXPLICIT":
        ep[2 * ih], ep[2 * ih + 1], ep[2 * iw], ep[2 * iw + 1] = pt, pb, pl, pr
    strides = [1, 1, 1, 1]
    strides[ih], strides[iw] = sh, sw
    dil = [1, 1, 1, 1]
    dil[ih], dil[iw] = dh, dw
    sizes = [0, 0, 0, 0]
    sizes[0], sizes[ih], sizes[iw], sizes[ic] = n, H, W, C
    gshape = [0, 0, 0, 0]
    gshape[0], gshape[ih], gshape[iw], gshape[ic] = n, oh, ow, C * m
    scale_g = float(10 ** rng.uniform(-1, 1))
    c.inputs["input_sizes"] = np.array(sizes, np.int32)
    c.inputs["filter"] = as_dtype(rng.uniform(-1, 1, (kh, kw, C, m)), T)
    c.inputs["out_backprop"] = as_dtype(rng.uniform(-1, 1, gshape) * scale_g, T)
    c.attrs = {"strides": strides, "padding": padding, "data_format": fmt}
    if padding == "EXPLICIT" or rng.random() < 0.1:
        c.attrs["explicit_paddings"] = ep if padding == "EXPLICIT" else []
    if dil != [1, 1, 1, 1] or rng.random() < 0.2:
        c.attrs["dilations"] = dil
    c.size_kind = size_kind
    return c


def other_dtype(rng, t, allow_bf16):
    choices = [d for d in ("half", "float", "double") if d != t]
    if allow_bf16 and t != "bfloat16":
        choices.append("bfloat16")
    return pick(rng, choices)


def mutate_bn(rng, c):
    """One malformation of a valid batch-norm call."""
    op = c.op
    r = c.inputs["x"].ndim
    last = c.attrs["data_format"] in ("NHWC", "NDHWC")
    C = c.inputs["scale"].shape[0]
    kinds = ["rank_dy", "rank_x", "rank_scale", "rank_mean", "rank_var", "shape_mismatch",
             "len_scale", "len_mean", "len_var", "dtype_input", "dtype_T", "format"]
    kind = pick(rng, kinds)
    c.kind = "malformed:" + kind

    def reranked(a, new_rank):
        shape = list(a.shape[:new_rank]) + [2] * max(0, new_rank - a.ndim)
        return np.zeros(shape, a.dtype) + (a.ravel()[0] if a.size else 0)

    if kind in ("rank_dy", "rank_x"):
        name = "y_backprop" if kind == "rank_dy" else "x"
        new = pick(rng, [0, 1, 2, 3, 6])
        c.inputs[name] = reranked(c.inputs[name], new)
        if rng.random() < 0.5:  # both
            other = "x" if name == "y_backprop" else "y_backprop"
            c.inputs[other] = c.inputs[name].copy()
    elif kind in ("rank_scale", "rank_mean", "rank_var"):
        name = {"rank_scale": "scale", "rank_mean": "reserve_space_1", "rank_var": "reserve_space_2"}[kind]
        new = pick(rng, [0, 2, 3])
        a = c.inputs[name]
        c.inputs[name] = (np.full((), a[0] if a.size else 1, a.dtype) if new == 0
                          else np.zeros([C] + [1] * (new - 1), a.dtype))
    elif kind == "shape_mismatch":
        dy = c.inputs["y_backprop"]
        shape = list(dy.shape)
        if rng.random() < 0.3:
            shape = shape + [1] if len(shape) == 4 else shape[:4]
        else:
            shape[int(rng.integers(len(shape)))] += int(pick(rng, [1, 2]))
        c.inputs["y_backprop"] = np.ones(shape, dy.dtype)
    elif kind in ("len_scale", "len_mean", "len_var"):
        name = {"len_scale": "scale", "len_mean": "reserve_space_1", "len_var": "reserve_space_2"}[kind]
        a = c.inputs[name]
        c.inputs[name] = np.ones([max(0, C + int(pick(rng, [-1, 1, 2, 5])))], a.dtype)
    elif kind == "dtype_input":
        # one input of another dtype; never a bfloat16 one after a
        # non-bfloat16 first input (the CLI takes bfloat16 only with
        # --attr T=bfloat16, which the first T input decides)
        names = list(INPUTS[op])
        name = pick(rng, names[1:])
        a = c.inputs[name]
        t = NAME_OF[a.dtype]
        nt = other_dtype(rng, t, allow_bf16=False)
        c.inputs[name] = a.astype(np.float64).astype(NP[nt])
    elif kind == "dtype_T":
        # T outside the op's list (V1: anything but float; V2/V3: double, int32)
        nt = pick(rng, ["half", "bfloat16", "double"]) if op == "FusedBatchNormGrad" else pick(
            rng, ["double", "int32"])
        for name in ("y_backprop", "x") + (("scale", "reserve_space_1", "reserve_space_2")
                                          if op == "FusedBatchNormGrad" else ()):
            c.inputs[name] = c.inputs[name].astype(np.float64).astype(NP[nt])
        c.T = nt
    else:  # format
        bad = ["NDHWC", "NCDHW"] if op != "FusedBatchNormGradV3" else []
        c.attrs["data_format"] = pick(rng, bad + ["nhwc", "NWHC", "", "CHWN"])
    return c


def mutate_dw(rng, c):
    """One malformation of a valid depthwise call (equal strides, no dilation)."""
    fmt = c.attrs["data_format"]
    ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
    kinds = ["strides_len", "strides_bd", "stride_nonpos", "padding_str", "explicit_len",
             "explicit_neg", "explicit_bd", "explicit_not_empty", "sizes_rank", "sizes_len",
             "sizes_neg", "filter_rank", "dy_rank", "batch", "in_depth", "out_depth", "rows",
             "cols", "negative_out", "dtype_input", "dtype_T", "format", "dilations_len",
             "dilations_bd", "dilation_zero"]
    kind = pick(rng, kinds)
    c.kind = "malformed:" + kind
    sizes = c.inputs["input_sizes"].tolist()
    f = c.inputs["filter"]
    g = c.inputs["out_backprop"]
    if kind == "strides_len":
        c.attrs["strides"] = [1] * int(pick(rng, [0, 1, 2, 3, 5]))
    elif kind == "strides_bd":
        st = list(c.attrs["strides"])
        st[pick(rng, [0, ic])] = int(pick(rng, [2, 0, 3]))
        c.attrs["strides"] = st
    elif kind == "stride_nonpos":
        st = list(c.attrs["strides"])
        v = int(pick(rng, [0, -1, -2]))
        st[ih] = st[iw] = v
        c.attrs["strides"] = st
    elif kind == "padding_str":
        c.attrs["padding"] = pick(rng, ["same", "FULL", "", "VALID "])
    elif kind == "explicit_len":
        c.attrs["padding"] = "EXPLICIT"
        c.attrs["explicit_paddings"] = [0] * int(pick(rng, [0, 2, 4, 6, 10]))
    elif kind == "explicit_neg":
        c.attrs["padding"] = "EXPLICIT"
        ep = [0] * 8
        ep[pick(rng, [2 * ih, 2 * ih + 1, 2 * iw, 2 * iw + 1, 0])] = -1
        c.attrs["explicit_paddings"] = ep
    elif kind == "explicit_bd":
        c.attrs["padding"] = "EXPLICIT"
        ep = [0] * 8
        ep[pick(rng, [0, 1, 2 * ic, 2 * ic + 1])] = 1
        c.attrs["explicit_paddings"] = ep
    elif kind == "explicit_not_empty":
        c.attrs["padding"] = pick(rng, ["SAME", "VALID"])
        c.attrs["explicit_paddings"] = [0] * int(pick(rng, [8, 4]))
    elif kind == "sizes_rank":
        c.inputs["input_sizes"] = np.array(sizes, np.int32).reshape(pick(rng, [(2, 2), (4, 1), (1, 4)]))
        if rng.random() < 0.3:
            c.inputs["input_sizes"] = np.array(sizes[0], np.int32).reshape(())
    elif kind == "sizes_len":
        c.inputs["input_sizes"] = np.array(pick(rng, [sizes[:3], sizes + [1], sizes[:2], []]), np.int32)
    elif kind == "sizes_neg":
        s2 = list(sizes)
        s2[int(rng.integers(4))] = -int(pick(rng, [1, 3]))
        c.inputs["input_sizes"] = np.array(s2, np.int32)
    elif kind == "filter_rank":
        c.inputs["filter"] = np.zeros(pick(rng, [(3,), (3, 3, 1), (3, 3, 1, 1, 1), ()]), f.dtype)
    elif kind == "dy_rank":
        c.inputs["out_backprop"] = np.zeros(pick(rng, [(2,), (1, 2, 2), (1, 1, 1, 1, 1)]), g.dtype)
    elif kind == "batch":
        s2 = list(sizes)
        s2[0] += 1
        c.inputs["input_sizes"] = np.array(s2, np.int32)
    elif kind == "in_depth":
        s2 = list(sizes)
        s2[ic] += 1
        c.inputs["input_sizes"] = np.array(s2, np.int32)
    elif kind == "out_depth":
        shape = list(g.shape)
        shape[ic] += 1
        c.inputs["out_backprop"] = np.zeros(shape, g.dtype)
    elif kind in ("rows", "cols"):
        shape = list(g.shape)
        k = ih if kind == "rows" else iw
        shape[k] = shape[k] + 1 if shape[k] == 0 or rng.random() < 0.5 else shape[k] - 1
        c.inputs["out_backprop"] = np.zeros(shape, g.dtype)
    elif kind == "negative_out":
        c.attrs["padding"] = "VALID"
        c.attrs.pop("explicit_paddings", None)
        st = list(c.attrs["strides"])
        st[ih] = st[iw] = 1
        c.attrs["strides"] = st
        c.inputs["filter"] = np.zeros((sizes[ih] + 3, sizes[iw] + 3) + f.shape[2:], f.dtype)
    elif kind == "dtype_input":
        name = pick(rng, ["input_sizes", "out_backprop"])
        a = c.inputs[name]
        if name == "input_sizes":
            c.inputs[name] = a.astype(NP[pick(rng, ["float", "half", "double"])])
        else:
            c.inputs[name] = a.astype(np.float64).astype(NP[other_dtype(rng, NAME_OF[a.dtype], False)])
    elif kind == "dtype_T":
        c.inputs["filter"] = f.astype(np.float64).astype(np.int32)
        c.inputs["out_backprop"] = g.astype(np.float64).astype(np.int32)
        c.T = "int32"
    elif kind == "format":
        c.attrs["data_format"] = pick(rng, ["NDHWC", "NCDHW", "nhwc", "HWCN"])
    elif kind == "dilations_len":
        c.attrs["dilations"] = [1] * int(pick(rng, [0, 1, 2, 3, 5]))
    elif kind == "dilations_bd":
        dl = [1, 1, 1, 1]
        dl[pick(rng, [0, ic])] = int(pick(rng, [2, 0]))
        c.attrs["dilations"] = dl
    else:  # dilation_zero: TF ignores it (computes as 1); kforge rejects
        dl = [1, 1, 1, 1]
        dl[pick(rng, [ih, iw])] = int(pick(rng, [0, -1]))
        c.attrs["dilations"] = dl
    return c


def gen_dwbpf(rng, idx, allow_unequal=True, allow_dilation=True):
    """A valid DepthwiseConv2dNativeBackpropFilter call (any format, strides, dilations)."""
    c = Call(idx, DWBPF_OP)
    T = pick(rng, ["half", "bfloat16", "float", "double"])
    c.T = T
    fmt = pick(rng, ["NHWC", "NCHW"], [3, 1])
    m = int(pick(rng, [1, 2, 3, 4], [5, 3, 1, 1]))
    if rng.random() < 0.01:
        m = 0
    size_kind = pick(rng, ["small", "channels", "wide", "empty", "bigfilter", "long"], [64, 10, 5, 8, 8, 5])
    n = int(rng.integers(1, 4))
    if size_kind == "channels":
        C = int(rng.integers(9, 300))
        H, W = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    elif size_kind == "wide":
        C = int(pick(rng, [512, 1024, 2048]))
        H, W = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        n = 1
    elif size_kind == "long":  # a long reduction per tap: N*OH*OW in the thousands
        C = int(rng.integers(1, 17))
        n = int(rng.integers(2, 9))
        H, W = int(rng.integers(16, 41)), int(rng.integers(16, 41))
    else:
        C = int(rng.integers(1, 9))
        H, W = int(rng.integers(1, 13)), int(rng.integers(1, 13))
    kh, kw = int(pick(rng, [1, 2, 3, 3, 3, 4, 5, 6, 7])), int(pick(rng, [1, 2, 3, 3, 3, 4, 5, 6, 7]))
    if rng.random() < 0.5:
        kw = kh
    if size_kind == "bigfilter":
        H, W = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        kh, kw = H + int(rng.integers(1, 5)), W + int(rng.integers(1, 5))
    if size_kind == "empty":
        which = int(rng.integers(5))
        if which == 0:
            n = 0
        elif which == 1:
            H = 0
        elif which == 2:
            W = 0
        elif which == 3:
            C = 0
        else:
            kh = 0
    s = int(pick(rng, [1, 1, 1, 2, 2, 3, 4]))
    sh = sw = s
    if allow_unequal and rng.random() < 0.15:
        while sw == sh:
            sw = int(pick(rng, [1, 2, 3, 4]))
    dh = dw = 1
    if allow_dilation and kh > 0 and kw > 0 and rng.random() < 0.15:
        dh, dw = int(pick(rng, [1, 2, 3])), int(pick(rng, [1, 2, 3]))
        if dh == dw == 1:
            dh = 2
    padding = pick(rng, ["SAME", "VALID", "EXPLICIT"], [4, 3, 3])
    ep = [0] * 8
    pt = pb = pl = pr = 0
    if padding == "EXPLICIT":
        pt, pb, pl, pr = (int(rng.integers(0, 4)) for _ in range(4))
    for _ in range(20):
        oh = window(H, kh, dh, sh, padding, pt, pb)[0]
        ow = window(W, kw, dw, sw, padding, pl, pr)[0]
        if oh >= 0 and ow >= 0:
            break
        padding = "SAME"
    ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
    if padding == "EXPLICIT":
        ep[2 * ih], ep[2 * ih + 1], ep[2 * iw], ep[2 * iw + 1] = pt, pb, pl, pr
    strides = [1, 1, 1, 1]
    strides[ih], strides[iw] = sh, sw
    dil = [1, 1, 1, 1]
    dil[ih], dil[iw] = dh, dw
    xshape = [0, 0, 0, 0]
    xshape[0], xshape[ih], xshape[iw], xshape[ic] = n, H, W, C
    gshape = [0, 0, 0, 0]
    gshape[0], gshape[ih], gshape[iw], gshape[ic] = n, oh, ow, C * m
    scale_x, scale_g = float(10 ** rng.uniform(-1, 1)), float(10 ** rng.uniform(-1, 1))
    c.inputs["input"] = as_dtype(rng.uniform(-1, 1, xshape) * scale_x, T)
    c.inputs["filter_sizes"] = np.array([kh, kw, C, m], np.int32)
    c.inputs["out_backprop"] = as_dtype(rng.uniform(-1, 1, gshape) * scale_g, T)
    c.attrs = {"strides": strides, "padding": padding, "data_format": fmt}
    if padding == "EXPLICIT" or rng.random() < 0.1:
        c.attrs["explicit_paddings"] = ep if padding == "EXPLICIT" else []
    if dil != [1, 1, 1, 1] or rng.random() < 0.2:
        c.attrs["dilations"] = dil
    c.size_kind = size_kind
    return c


def mutate_dwbpf(rng, c):
    """One malformation of a valid filter-gradient call (equal strides, no
    dilation): every rejection rule of the op."""
    fmt = c.attrs["data_format"]
    ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
    kinds = ["strides_len", "strides_bd", "stride_nonpos", "padding_str", "explicit_len",
             "explicit_neg", "explicit_bd", "explicit_not_empty", "sizes_rank", "sizes_len",
             "sizes_neg", "input_rank", "dy_rank", "batch", "in_depth", "out_depth", "rows",
             "cols", "negative_out", "dtype_input", "dtype_T", "format", "dilations_len",
             "dilations_bd", "dilation_zero"]
    kind = pick(rng, kinds)
    c.kind = "malformed:" + kind
    fs = c.inputs["filter_sizes"].tolist()
    x = c.inputs["input"]
    g = c.inputs["out_backprop"]
    if kind == "strides_len":
        c.attrs["strides"] = [1] * int(pick(rng, [0, 1, 2, 3, 5]))
    elif kind == "strides_bd":
        st = list(c.attrs["strides"])
        st[pick(rng, [0, ic])] = int(pick(rng, [2, 0, 3]))
        c.attrs["strides"] = st
    elif kind == "stride_nonpos":
        st = list(c.attrs["strides"])
        v = int(pick(rng, [0, -1, -2]))
        st[ih] = st[iw] = v
        c.attrs["strides"] = st
    elif kind == "padding_str":
        c.attrs["padding"] = pick(rng, ["same", "FULL", "", "VALID "])
    elif kind == "explicit_len":
        c.attrs["padding"] = "EXPLICIT"
        c.attrs["explicit_paddings"] = [0] * int(pick(rng, [0, 2, 4, 6, 10]))
    elif kind == "explicit_neg":
        c.attrs["padding"] = "EXPLICIT"
        ep = [0] * 8
        ep[pick(rng, [2 * ih, 2 * ih + 1, 2 * iw, 2 * iw + 1, 0])] = -1
        c.attrs["explicit_paddings"] = ep
    elif kind == "explicit_bd":
        c.attrs["padding"] = "EXPLICIT"
        ep = [0] * 8
        ep[pick(rng, [0, 1, 2 * ic, 2 * ic + 1])] = 1
        c.attrs["explicit_paddings"] = ep
    elif kind == "explicit_not_empty":
        c.attrs["padding"] = pick(rng, ["SAME", "VALID"])
        c.attrs["explicit_paddings"] = [0] * int(pick(rng, [8, 4]))
    elif kind == "sizes_rank":
        c.inputs["filter_sizes"] = np.array(fs, np.int32).reshape(pick(rng, [(2, 2), (4, 1), (1, 4)]))
        if rng.random() < 0.3:
            c.inputs["filter_sizes"] = np.array(fs[0], np.int32).reshape(())
    elif kind == "sizes_len":
        c.inputs["filter_sizes"] = np.array(pick(rng, [fs[:3], fs + [1], fs[:2], []]), np.int32)
    elif kind == "sizes_neg":
        f2 = list(fs)
        f2[int(rng.integers(4))] = -int(pick(rng, [1, 3]))
        c.inputs["filter_sizes"] = np.array(f2, np.int32)
    elif kind == "input_rank":
        c.inputs["input"] = np.zeros(pick(rng, [(2,), (1, 2, 2), (1, 1, 1, 1, 1), ()]), x.dtype)
    elif kind == "dy_rank":
        c.inputs["out_backprop"] = np.zeros(pick(rng, [(2,), (1, 2, 2), (1, 1, 1, 1, 1)]), g.dtype)
    elif kind == "batch":
        shape = list(g.shape)
        shape[0] += 1
        c.inputs["out_backprop"] = np.zeros(shape, g.dtype)
    elif kind == "in_depth":
        f2 = list(fs)
        f2[2] += 1
        c.inputs["filter_sizes"] = np.array(f2, np.int32)
    elif kind == "out_depth":
        shape = list(g.shape)
        shape[ic] += 1
        c.inputs["out_backprop"] = np.zeros(shape, g.dtype)
    elif kind in ("rows", "cols"):
        shape = list(g.shape)
        k = ih if kind == "rows" else iw
        shape[k] = shape[k] + 1 if shape[k] == 0 or rng.random() < 0.5 else shape[k] - 1
        c.inputs["out_backprop"] = np.zeros(shape, g.dtype)
    elif kind == "negative_out":
        c.attrs["padding"] = "VALID"
        c.attrs.pop("explicit_paddings", None)
        st = list(c.attrs["strides"])
        st[ih] = st[iw] = 1
        c.attrs["strides"] = st
        c.inputs["filter_sizes"] = np.array([x.shape[ih] + 3, x.shape[iw] + 3] + fs[2:], np.int32)
    elif kind == "dtype_input":
        name = pick(rng, ["filter_sizes", "out_backprop"])
        a = c.inputs[name]
        if name == "filter_sizes":
            c.inputs[name] = a.astype(NP[pick(rng, ["float", "half", "double"])])
        else:
            c.inputs[name] = a.astype(np.float64).astype(NP[other_dtype(rng, NAME_OF[a.dtype], False)])
    elif kind == "dtype_T":
        c.inputs["input"] = x.astype(np.float64).astype(np.int32)
        c.inputs["out_backprop"] = g.astype(np.float64).astype(np.int32)
        c.T = "int32"
    elif kind == "format":
        c.attrs["data_format"] = pick(rng, ["NDHWC", "NCDHW", "nhwc", "HWCN"])
    elif kind == "dilations_len":
        c.attrs["dilations"] = [1] * int(pick(rng, [0, 1, 2, 3, 5]))
    elif kind == "dilations_bd":
        dl = [1, 1, 1, 1]
        dl[pick(rng, [0, ic])] = int(pick(rng, [2, 0]))
        c.attrs["dilations"] = dl
    else:  # dilation_zero: TF ignores it (computes as 1); kforge rejects
        dl = [1, 1, 1, 1]
        dl[pick(rng, [ih, iw])] = int(pick(rng, [0, -1]))
        c.attrs["dilations"] = dl
    return c


def make_call(idx):
    rng = np.random.default_rng([SEED, idx])
    if idx >= DWBPF_BASE:
        malformed = rng.random() < 0.25
        c = gen_dwbpf(rng, idx, allow_unequal=not malformed, allow_dilation=not malformed)
        return mutate_dwbpf(rng, c) if malformed else c
    if idx % 1000 == 500:  # a few long reductions (>= 10^6 elements per channel)
        return gen_bn(rng, idx, long_reduction=True)
    family = pick(rng, ["bn", "dw"], [55, 45])
    malformed = rng.random() < 0.2
    if family == "bn":
        c = gen_bn(rng, idx)
        if malformed and c.size_kind != "long":
            c = mutate_bn(rng, c)
    else:
        c = gen_dw(rng, idx, allow_unequal=not malformed, allow_dilation=not malformed)
        if malformed:
            c = mutate_dw(rng, c)
    return c


# --------------------------------------------------------------------------
# kforge through the CLI
# --------------------------------------------------------------------------

def attr_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(str(int(e)) for e in v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def kforge_command(c, d):
    args = [KFORGE, "run", c.op]
    first = c.inputs[FIRST_T[c.op]]
    if first.dtype == BF16:
        args += ["--attr", "T=bfloat16"]
    for k, v in sorted(c.attrs.items()):
        args += ["--attr", "%s=%s" % (k, attr_text(v))]
    args += ["--out", os.path.join(d, "out")]
    for name in INPUTS[c.op]:
        args.append("%s=%s" % (name, os.path.join(d, name + ".npy")))
    return args


def write_inputs(c, d):
    os.makedirs(d)
    for name, a in c.inputs.items():
        np.save(os.path.join(d, name + ".npy"), a.view(np.uint16) if a.dtype == BF16 else a)


def run_kforge(c, d):
    args = kforge_command(c, d)
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    res = {"rc": p.returncode, "stderr": p.stderr, "stdout": p.stdout}
    if p.returncode == 0:
        outs = []
        first = c.inputs[FIRST_T[c.op]]
        # kforge's own output names (`kforge ops`), so that a name other than
        # TF's fails its one check in main() and not every call
        for name in KF_OUTPUT_NAMES.get(c.op, OUTPUTS[c.op]):
            a = np.load(os.path.join(d, "out", name + ".npy"))
            if a.dtype == np.uint16 and first.dtype == BF16:
                a = a.view(BF16)
            outs.append(a)
        res["outs"] = outs
    return res


def shell_quote(args):
    import shlex
    return " ".join(shlex.quote(a) for a in args)


# --------------------------------------------------------------------------
# TensorFlow
# --------------------------------------------------------------------------

tf = None


def import_tf():
    global tf
    try:
        import tensorflow
    except Exception as e:  # noqa: BLE001 -- any import failure means a broken venv
        print("tf-differential: cannot import tensorflow: %s: %s" % (type(e).__name__, e))
        print("0 passed, 1 failed")
        sys.exit(3)
    tf = tensorflow
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)


def tf_core_message(msg):
    """TF's error text without {{function_node ...}}, NodeDef and [Op:...] context."""
    m = re.sub(r"^\{\{function_node [^}]*\}\}\s*", "", msg)
    m = m.split("\n\t; NodeDef")[0]
    m = re.sub(r"\s*\[Op:[^\]]*\].*$", "", m, flags=re.S)
    return m.strip()


def run_tf(op, inputs, attrs):
    """("ok", [numpy outputs]) or ("err", error class name, core message)."""
    try:
        kw = {k: tf.constant(v) for k, v in inputs.items()}
        out = getattr(tf.raw_ops, op)(**kw, **attrs)
        if not isinstance(out, (list, tuple)):
            out = [out]
        return ("ok", [np.asarray(o) for o in out])
    except (tf.errors.OpError, TypeError, ValueError) as e:
        return ("err", type(e).__name__, tf_core_message(str(getattr(e, "message", None) or e)))


# --------------------------------------------------------------------------
# float64 references
# --------------------------------------------------------------------------

def f64(a):
    return np.asarray(a).astype(np.float64)


def bn_view(c):
    """x, dy as float64 [M, C] (channels last), the permutation back, C."""
    x, dy = f64(c.inputs["x"]), f64(c.inputs["y_backprop"])
    r = x.ndim
    last = c.attrs["data_format"] in ("NHWC", "NDHWC")
    C = x.shape[-1] if last else x.shape[1]
    perm = tuple(range(r)) if last else (0,) + tuple(range(2, r)) + (1,)
    M = x.size // C if C else int(np.prod([x.shape[p] for p in perm[:-1]]))
    xm = np.ascontiguousarray(x.transpose(perm)).reshape(M, C)
    dym = np.ascontiguousarray(dy.transpose(perm)).reshape(M, C)
    back = [x.shape[p] for p in perm], tuple(np.argsort(perm))
    return xm, dym, back, C, M


def bn_ref(c):
    """x_backprop, scale_backprop, offset_backprop in float64 from the rounded
    inputs, and for each the magnitude of its terms (|terms| summed)."""
    xm, dym, back, C, M = bn_view(c)
    scale, mean, var = (f64(c.inputs[k]) for k in ("scale", "reserve_space_1", "reserve_space_2"))
    eps = float(np.float32(c.attrs["epsilon"]))
    inv = 1.0 / np.sqrt(var + eps)
    xc = xm - mean
    sdy = dym.sum(0)
    sdyxc = (dym * xc).sum(0)
    l1_off = np.abs(dym).sum(0)
    l1_dyxc = np.abs(dym * xc).sum(0)
    l1_scale = l1_dyxc * np.abs(inv)
    Mx = max(M, 1)
    if c.attrs["is_training"]:
        dx = scale * inv * (dym - sdy / Mx - xc * (inv * inv) * (sdyxc / Mx))
        # the sums inside enter with the magnitude of their terms: a float
        # sum's error is bounded by eps times the sum of |terms|
        tdx = np.abs(scale * inv) * (np.abs(dym) + l1_off / Mx + np.abs(xc) * (inv * inv) * (l1_dyxc / Mx))
    else:
        dx = dym * (scale * inv)
        tdx = np.abs(dx)
    dscale = sdyxc * inv
    if M == 0:
        dscale, sdy, l1_off, l1_scale = (np.zeros(C) for _ in range(4))

    def shaped(a):
        return a.reshape(back[0]).transpose(back[1])
    return [shaped(dx), dscale, sdy], [shaped(tdx), l1_scale, l1_off]


def is_denormal32(a):
    a = np.abs(np.asarray(a, np.float32))
    return bool(np.any((a > 0) & (a < np.finfo(np.float32).tiny)))


def bn_has_denormals(c):
    """Inputs, epsilon or var + epsilon (in float) that TF's FTZ/DAZ flushes."""
    eps = np.float32(c.attrs["epsilon"])
    var = np.asarray(c.inputs["reserve_space_2"], np.float32)
    vals = [eps, var + eps] + [np.asarray(f64(c.inputs[k]), np.float32) for k in
                               ("x", "y_backprop", "scale", "reserve_space_1", "reserve_space_2")]
    return any(is_denormal32(v) for v in vals)


def bn_tf_formulas_ieee(c):
    """tf_semantics.md 1.6/1.7 in float32 with IEEE denormals (numpy): what
    TF's kernel computes without its flush-to-zero."""
    f = np.float32
    xm, dym, back, C, M = bn_view(c)
    xm, dym = xm.astype(f), dym.astype(f)
    scale, mean, var = (np.asarray(c.inputs[k], f) for k in ("scale", "reserve_space_1", "reserve_space_2"))
    eps = f(c.attrs["epsilon"])
    xc = xm - mean
    coef0 = f(1) / np.sqrt(var + eps)
    sdy = dym.sum(0, dtype=f)
    if c.attrs["is_training"]:
        dscale = (dym * (xc * coef0)).sum(0, dtype=f)
        dy_mean = sdy * (f(1) / f(max(M, 1)))
        m2 = (dym * xc).sum(0, dtype=f) / f(max(M, 1))
        coef1 = scale * coef0
        coef2 = (coef0 * coef0) * m2
        dx = coef1 * ((dym - dy_mean) - xc * coef2)
    else:
        dscale = (dym * xc).sum(0, dtype=f) * coef0
        dx = dym * (coef0 * scale)
    if M == 0:
        dscale, sdy = np.zeros(C, f), np.zeros(C, f)
    T = NP[c.T] if c.T in NP else np.float32
    dx = dx.reshape(back[0]).transpose(back[1]).astype(T)
    return [dx, dscale, sdy]


def dw_geometry(c):
    """The NHWC view of a valid depthwise call: sizes, strides, dilations, pads."""
    fmt = c.attrs["data_format"]
    ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
    sz = c.inputs["input_sizes"].tolist()
    N, H, W, C = sz[0], sz[ih], sz[iw], sz[ic]
    st = c.attrs["strides"]
    dl = c.attrs.get("dilations", [1, 1, 1, 1])
    kh, kw = c.inputs["filter"].shape[:2]
    ep = c.attrs.get("explicit_paddings", [0] * 8) if c.attrs["padding"] == "EXPLICIT" else [0] * 8
    oh, pt, pb = window(H, kh, dl[ih], st[ih], c.attrs["padding"], ep[2 * ih], ep[2 * ih + 1])
    ow, pl, pr = window(W, kw, dl[iw], st[iw], c.attrs["padding"], ep[2 * iw], ep[2 * iw + 1])
    return dict(N=N, H=H, W=W, C=C, sh=st[ih], sw=st[iw], dh=dl[ih], dw=dl[iw], kh=kh, kw=kw,
                oh=oh, ow=ow, pt=pt, pb=pb, pl=pl, pr=pr, nchw=fmt == "NCHW")


def to_nhwc(a):
    return np.ascontiguousarray(a.transpose(0, 2, 3, 1))


def to_nchw(a):
    return np.ascontiguousarray(a.transpose(0, 3, 1, 2))


def dw_ref(c):
    """The input gradient in float64, and the sum of |terms| of each element."""
    return [dw_scatter(c, False)], [dw_scatter(c, True)]


def dw_scatter(c, absolute):
    """The scatter form of the input gradient in float64 (NCHW through NHWC)."""
    g = dw_geometry(c)
    f = f64(c.inputs["filter"])
    dy = f64(c.inputs["out_backprop"])
    if absolute:
        f, dy = np.abs(f), np.abs(dy)
    if g["nchw"]:
        dy = to_nhwc(dy)
    N, H, W, C = g["N"], g["H"], g["W"], g["C"]
    m = f.shape[3]
    dx = np.zeros((N, H, W, C))
    oh, ow = dy.shape[1], dy.shape[2]
    if dx.size and dy.size and f.size:
        gm = dy.reshape(N, oh, ow, C, m)
        for fy in range(g["kh"]):
            for fx in range(g["kw"]):
                # dx[iy, ix] += sum_m dy[oy, ox, c, m] f[fy, fx, c, m]
                # iy = oy*sh - pt + fy*dh
                oys = [o for o in range(oh) if 0 <= o * g["sh"] - g["pt"] + fy * g["dh"] < H]
                oxs = [o for o in range(ow) if 0 <= o * g["sw"] - g["pl"] + fx * g["dw"] < W]
                if not oys or not oxs:
                    continue
                contrib = np.einsum("bhwcm,cm->bhwc", gm[:, oys[0]:oys[-1] + 1, oxs[0]:oxs[-1] + 1],
                                    f[fy, fx])
                iy0 = oys[0] * g["sh"] - g["pt"] + fy * g["dh"]
                ix0 = oxs[0] * g["sw"] - g["pl"] + fx * g["dw"]
                dx[:, iy0:iy0 + (len(oys) - 1) * g["sh"] + 1:g["sh"],
                   ix0:ix0 + (len(oxs) - 1) * g["sw"] + 1:g["sw"]] += contrib
    return to_nchw(dx) if g["nchw"] else dx


# --------------------------------------------------------------------------
# TF on equivalent calls (where TF's CPU kernel refuses or ignores)
# --------------------------------------------------------------------------

def dilate_filter(f, dh, dw):
    kh, kw = f.shape[:2]
    out = np.zeros(((kh - 1) * dh + 1 if kh else 0, (kw - 1) * dw + 1 if kw else 0) + f.shape[2:], f.dtype)
    out[::dh, ::dw] = f
    return out


def dw_dilated_call(c):
    """The same call with the zero-dilated filter and dilations 1: TF's kernel
    then computes kforge's true dilation, validation included."""
    dl = c.attrs.get("dilations", [1, 1, 1, 1])
    fmt = c.attrs["data_format"]
    ih, iw = (1, 2) if fmt == "NHWC" else (2, 3)
    inputs = dict(c.inputs)
    inputs["filter"] = dilate_filter(c.inputs["filter"], dl[ih], dl[iw])
    attrs = dict(c.attrs)
    attrs["dilations"] = [1, 1, 1, 1]
    return inputs, attrs


def dw_equivalent(c):
    """TF's NHWC kernel on an equivalent call for a valid call of any format,
    strides and dilations: transposed to NHWC, filter zero-dilated, and for
    unequal strides stride 1 with the out_backprop zero-stuffed and the
    forward padding made explicit."""
    g = dw_geometry(c)
    f = dilate_filter(c.inputs["filter"], g["dh"], g["dw"])
    dy = c.inputs["out_backprop"]
    if g["nchw"]:
        dy = to_nhwc(dy)
    sizes = [g["N"], g["H"], g["W"], g["C"]]
    if g["sh"] == g["sw"]:
        attrs = {"strides": [1, g["sh"], g["sw"], 1], "padding": "EXPLICIT",
                 "explicit_paddings": [0, 0, g["pt"], g["pb"], g["pl"], g["pr"], 0, 0]}
        if c.attrs["padding"] != "EXPLICIT":
            attrs = {"strides": [1, g["sh"], g["sw"], 1], "padding": c.attrs["padding"]}
    else:
        kh, kw = f.shape[:2]
        oh, ow = dy.shape[1], dy.shape[2]
        pb = max(0, (max(oh, 1) - 1) * g["sh"] + kh - g["H"] - g["pt"])
        pr = max(0, (max(ow, 1) - 1) * g["sw"] + kw - g["W"] - g["pl"])
        h1 = g["H"] + g["pt"] + pb - kh + 1
        w1 = g["W"] + g["pl"] + pr - kw + 1
        z = np.zeros((dy.shape[0], max(h1, 0), max(w1, 0), dy.shape[3]), dy.dtype)
        if oh > 0 and ow > 0:
            z[:, :(oh - 1) * g["sh"] + 1:g["sh"], :(ow - 1) * g["sw"] + 1:g["sw"]] = dy
        dy = z
        attrs = {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
                 "explicit_paddings": [0, 0, g["pt"], pb, g["pl"], pr, 0, 0]}
    res = run_tf(DW_OP, {"input_sizes": np.array(sizes, np.int32), "filter": f, "out_backprop": dy}, attrs)
    if res[0] == "ok" and g["nchw"]:
        res = ("ok", [to_nchw(res[1][0])])
    return res


def dw_tape(c):
    """The gradient of tf.nn.depthwise_conv2d (dilations through
    space_to_batch) by GradientTape, for stride 1 SAME/VALID; None where
    that API has no equivalent."""
    g = dw_geometry(c)
    if g["sh"] != 1 or g["sw"] != 1 or c.attrs["padding"] not in ("SAME", "VALID"):
        return None
    if g["N"] * g["H"] * g["W"] * g["C"] == 0 or 0 in c.inputs["filter"].shape:
        return None
    dy = c.inputs["out_backprop"]
    if g["nchw"]:
        dy = to_nhwc(dy)
    x = tf.Variable(tf.zeros([g["N"], g["H"], g["W"], g["C"]], dtype=tf.as_dtype(dy.dtype)))
    try:
        with tf.GradientTape() as tape:
            y = tf.nn.depthwise_conv2d(x, tf.constant(c.inputs["filter"]), strides=[1, 1, 1, 1],
                                       padding=c.attrs["padding"], dilations=[g["dh"], g["dw"]])
        if tuple(y.shape) != tuple(dy.shape):
            return ("err", "shape", "forward shape %s, out_backprop %s" % (tuple(y.shape), dy.shape))
        dx = np.asarray(tape.gradient(y, x, output_gradients=tf.constant(dy)))
    except (tf.errors.OpError, ValueError, TypeError) as e:
        return ("err", type(e).__name__, tf_core_message(str(e)))
    return ("ok", [to_nchw(dx) if g["nchw"] else dx])


def bn_nhwc_equivalent(c):
    """TF NHWC/NDHWC on transposed tensors for NCHW/NCDHW batch norm."""
    r = c.inputs["x"].ndim
    perm = (0,) + tuple(range(2, r)) + (1,)
    inv = tuple(np.argsort(perm))
    inputs = dict(c.inputs)
    inputs["x"] = np.ascontiguousarray(c.inputs["x"].transpose(perm))
    inputs["y_backprop"] = np.ascontiguousarray(c.inputs["y_backprop"].transpose(perm))
    attrs = dict(c.attrs)
    attrs["data_format"] = {"NCHW": "NHWC", "NCDHW": "NDHWC"}[c.attrs["data_format"]]
    res = run_tf(c.op, inputs, attrs)
    if res[0] == "ok":
        outs = list(res[1])
        outs[0] = np.ascontiguousarray(outs[0].transpose(inv))
        res = ("ok", outs)
    return res


# --------------------------------------------------------------------------
# comparison
# --------------------------------------------------------------------------

class Stats:
    """Per (family, output, dtype): kforge's and TF's errors against float64."""

    def __init__(self):
        self.errs = {}

    def add(self, key, kf, tfe):
        e = self.errs.setdefault(key, ([], []))
        e[0].append(kf)
        e[1].append(tfe)

    def report(self):
        lines = ["", "error against float64 per call and output: max |got - exact| / max(max |exact|, "
                 "2^-10 max sum |terms|), kforge vs TF (or TF's equivalent call):",
                 "%-44s %6s  %-38s %-38s" % ("output (dtype)", "cases", "kforge p50 / p90 / p99 / max",
                                             "TF p50 / p90 / p99 / max")]
        for key in sorted(self.errs):
            kf, te = (np.array(v) for v in self.errs[key])

            def dist(a):
                return " / ".join("%.1e" % v for v in (np.percentile(a, 50), np.percentile(a, 90),
                                                         np.percentile(a, 99), a.max()))
            lines.append("%-44s %6d  %-38s %-38s" % ("%s %s (%s)" % key, len(kf), dist(kf), dist(te)))
        return "\n".join(lines)


STATS = Stats()


def out_dtype_name(a):
    return "bfloat16" if a.dtype == BF16 else NAME_OF.get(a.dtype, str(a.dtype))


def acc_dtype(family, dt):
    return "double" if family in ("dw", "dwbpf") and dt == "double" else "float"


def compare_values(c, family, got, want_tf, ref, terms, problems, tf_label="TF", stats=True):
    """Shapes, dtypes, non-finite patterns, the tolerance against TF, and
    kforge's error against float64 no worse than TF's (SLACK)."""
    for k, name in enumerate(OUTPUTS[c.op][:min(len(got), len(want_tf))]):
        g, t = got[k], want_tf[k]
        if g.shape != t.shape:
            problems.append("%s: shape %s, %s %s" % (name, list(g.shape), tf_label, list(t.shape)))
            continue
        if out_dtype_name(g) != out_dtype_name(t):
            problems.append("%s: dtype %s, %s %s" % (name, out_dtype_name(g), tf_label, out_dtype_name(t)))
            continue
        if k >= len(ref) or g.size == 0:
            continue
        dt = out_dtype_name(g)
        gv, tv = f64(g), f64(t)
        rv = np.broadcast_to(np.asarray(ref[k], np.float64), g.shape)
        tm = np.broadcast_to(np.asarray(terms[k], np.float64), g.shape)
        gnan, tnan = np.isnan(gv), np.isnan(tv)
        ginf = np.where(np.isinf(gv), np.sign(gv), 0)
        tinf = np.where(np.isinf(tv), np.sign(tv), 0)
        if not (np.array_equal(gnan, tnan) and np.array_equal(ginf, tinf)):
            bad = np.argwhere((gnan != tnan) | (ginf != tinf))
            i = tuple(int(v) for v in bad[0])
            problems.append("%s: non-finite values differ at %d of %d elements, first %s: kforge %r, %s %r, "
                            "float64 %r" % (name, len(bad), g.size, list(i), float(gv[i]), tf_label,
                                            float(tv[i]), float(rv[i])))
            continue
        fin = np.isfinite(gv) & np.isfinite(tv) & np.isfinite(rv) & np.isfinite(tm)
        if not fin.any():
            continue
        gv, tv, rv, tm = gv[fin], tv[fin], rv[fin], tm[fin]
        is_u = family == "bn" and k > 0
        if family == "bn":
            tol = TOL_U if is_u else TOL_BN.get(dt, TOL_BN["float"])
        else:
            tol = TOL_DW.get(dt, 1e-5)
        acc = acc_dtype(family, dt)
        maxref = float(np.max(np.abs(rv)))
        maxterms = float(np.max(tm))
        # (+ T's smallest subnormal step: below its normal range, a rounding
        # tie is decided by the last float bit -- half outputs of 1e-6)
        tiny = SUBNORMAL[dt]
        allow = tol * maxref + TOL_TERMS[acc] * tm + np.abs(tv - rv) + tiny
        diff = np.abs(gv - tv)
        if np.any(diff > allow):
            j = int(np.argmax(diff - allow))
            problems.append("%s: kforge %r vs %s %r (float64 %r): |diff| %.3g > allowed %.3g "
                            "(%.0e of max|exact| %.3g + %.0e of sum|terms| %.3g + |%s - exact|)"
                            % (name, float(gv[j]), tf_label, float(tv[j]), float(rv[j]), diff[j], allow[j], tol,
                               maxref, TOL_TERMS[acc], tm[j], tf_label))
        kf_abs = float(np.max(np.abs(gv - rv)))
        tf_abs = float(np.max(np.abs(tv - rv)))
        slack = SLACK * (UNIT[dt] * maxref + UNIT[acc] * maxterms) + tiny
        if kf_abs > tf_abs + slack:
            problems.append("%s: kforge's error against float64 %.3g exceeds %s's %.3g by more than the slack "
                            "%.3g (%g roundoffs of %s x max|exact| %.3g + of %s x max sum|terms| %.3g)"
                            % (name, kf_abs, tf_label, tf_abs, slack, SLACK, dt, maxref, acc, maxterms))
        if stats:
            norm = max(maxref, 2.0 ** -10 * maxterms)
            if norm > 0:
                STATS.add((family, name, dt), kf_abs / norm, tf_abs / norm)


def compare_ref_only(c, family, got, ref, problems, expect_shapes):
    """Where TF has no usable answer: shapes, and float64 within tolerance."""
    for k, name in enumerate(OUTPUTS[c.op]):
        g = got[k]
        if list(g.shape) != list(expect_shapes[k]):
            problems.append("%s: shape %s, expected %s" % (name, list(g.shape), list(expect_shapes[k])))
            continue
        if k >= len(ref) or g.size == 0:
            continue
        dt = out_dtype_name(g)
        tol = TOL_DW.get(dt, 1e-5) if family in ("dw", "dwbpf") else TOL_BN.get(dt, 1e-5)
        gv, rv = f64(g), np.broadcast_to(np.asarray(ref[k], np.float64), g.shape)
        err = float(np.max(np.abs(gv - rv)))
        maxref = float(np.max(np.abs(rv)))
        if not err <= tol * maxref:
            problems.append("%s: |kforge - float64| %.3g > %.0e of max|exact| %.3g" % (name, err, tol, maxref))


def expected_kforge_message(c):
    """kforge's own message for a dilation TF ignores, or None."""
    dl = c.attrs.get("dilations")
    if dl is None:
        return None
    fmt = c.attrs["data_format"]
    if fmt not in ("NHWC", "NCHW"):
        return None
    ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
    if len(dl) != 4:
        return "Sliding window dilations field must specify 4 dimensions"
    if dl[0] != 1 or dl[ic] != 1:
        return "Current implementation does not yet support dilations in the batch and depth dimensions."
    for k in (ih, iw):
        if dl[k] < 1:
            return "Dilation rate must be >= 1, but got %d" % dl[k]
    return None


DTYPE_TF = re.compile(r"^cannot compute (\w+) as input #(\d+)\(zero-based\) was expected to be a (\w+) "
                      r"tensor but is a (\w+) tensor$")
DTYPE_U = re.compile(r"^Value for attr 'U' of (\w+) is not in the list of allowed values: float$")
DTYPE_KF = re.compile(r"^(\w+) must be (\w+), got (\w+)$")


def dtype_divergence_ok(c, tf_msg, kf_msg):
    """message.input-dtype: the same input and dtypes, in kforge's words."""
    km = DTYPE_KF.match(kf_msg)
    if not km:
        return False
    m = DTYPE_TF.match(tf_msg)
    if m:
        name = INPUTS[c.op][int(m.group(2))]
        return km.groups() == (name, m.group(3), m.group(4))
    m = DTYPE_U.match(tf_msg)
    if m:  # U is inferred from reserve_space_1
        return km.groups() == ("reserve_space_1", "float", m.group(1))
    return False


COUNTS = {}


def count(what):
    COUNTS[what] = COUNTS.get(what, 0) + 1


def diverge(*rules):
    """Counts an outcome allowed by deliberate divergences; only the rules of
    DIVERGENCES (the allow-list docs/testing.md lists) exist."""
    for r in rules:
        if r not in DIVERGENCES:
            raise KeyError("divergence rule %r is not in DIVERGENCES" % r)
    count(" + ".join(rules))


def check_call(c, kf):
    """Returns a list of problems (empty: the call passed)."""
    if c.op == DWBPF_OP:
        return check_dwbpf(c, kf)
    problems = []
    family = "dw" if c.op == DW_OP else "bn"
    kf_ok = kf["rc"] == 0
    kf_msg = None
    if not kf_ok:
        lines = kf["stderr"].splitlines()
        if kf["rc"] != 1 or len(lines) != 1 or not lines[0].startswith("kforge: error: "):
            problems.append("kforge failed without exactly one 'kforge: error:' line (exit %d): %r"
                            % (kf["rc"], kf["stderr"][-400:]))
            return problems
        kf_msg = lines[0][len("kforge: error: "):]

    dilated = False
    tf_inputs, tf_attrs = c.inputs, c.attrs
    if family == "dw":
        own = expected_kforge_message(c)
        if own is not None and kf_msg == own:
            # TF accepts (ignores) these dilations or rejects something
            # else; kforge rejects them by its own rule
            diverge("kforge-validates.dw-dilations")
            return problems
        if own is not None and kf_ok:
            problems.append("kforge accepted dilations %s (expected: %s)" % (c.attrs["dilations"], own))
            return problems
        dl = c.attrs.get("dilations", [1, 1, 1, 1])
        if own is None and c.attrs["data_format"] in ("NHWC", "NCHW") and any(v != 1 for v in dl) \
                and c.inputs["filter"].ndim == 4:
            dilated = True
            tf_inputs, tf_attrs = dw_dilated_call(c)
    res = run_tf(c.op, tf_inputs, tf_attrs)
    label = "TF" + (" (zero-dilated filter)" if dilated else "")

    if res[0] == "err":
        ecls, tmsg = res[1], res[2]
        refused = None
        if family == "dw" and ecls == "UnimplementedError" and tmsg == MSG_DW_NCHW:
            refused = "tf-refuses.dw-nchw"
        elif family == "dw" and tmsg == MSG_DW_UNEQUAL:
            refused = "tf-refuses.dw-unequal-strides"
        elif family == "bn" and tmsg == MSG_BN_NCHW_INFER:
            refused = "tf-refuses.bn-nchw-inference"
        if refused:
            diverge(*((refused, "tf-ignores.dw-dilations") if dilated else (refused,)))
            if not kf_ok:
                problems.append("%s: TF refuses (%s), kforge should compute it but failed: %s"
                                % (refused, tmsg, kf_msg))
                return problems
            if family == "dw":
                eq = dw_equivalent(c)
                ref, l1 = dw_ref(c)
                label = "TF NHWC equivalent"
            else:
                eq = bn_nhwc_equivalent(c)
                ref, l1 = bn_ref(c)
                label = "TF NHWC (transposed)"
            if eq[0] != "ok":
                problems.append("%s: TF's equivalent call failed: %s %s" % (refused, eq[1], eq[2]))
                return problems
            if family == "dw" and multiplier_zero(c):
                diverge("tf-uninitialised.dw-multiplier-0")
                compare_ref_only(c, family, kf["outs"], ref, problems, [eq[1][0].shape])
                return problems
            if family == "bn":
                return compare_bn(c, kf, eq[1], ref, l1, problems, label)
            compare_values(c, family, kf["outs"], eq[1], ref, l1, problems, label)
            if dilated:
                tape_check(c, kf, problems)
            return problems
        # TF rejects: kforge must reject with the same text
        if kf_ok:
            problems.append("TF rejects (%s: %s), kforge succeeded" % (ecls, tmsg))
            return problems
        if kf_msg == tmsg:
            count("rejected, same message")
            return problems
        if dtype_divergence_ok(c, tmsg, kf_msg):
            diverge("message.input-dtype")
            return problems
        problems.append("messages differ: TF %s %r, kforge %r" % (ecls, tmsg, kf_msg))
        return problems

    # TF succeeded
    tf_outs = res[1]
    if not kf_ok:
        problems.append("TF succeeds, kforge fails: %s" % kf_msg)
        return problems
    if family == "bn":
        ref, l1 = bn_ref(c)
        x = c.inputs["x"]
        if x.ndim == 5 and x.size == 0 and tf_outs[0].ndim == 4:
            diverge("tf-bug.bn-empty-5d-shape")
            if kf["outs"][0].shape != x.shape:
                problems.append("tf-bug.bn-empty-5d-shape: kforge x_backprop %s, expected x's %s"
                                % (list(kf["outs"][0].shape), list(x.shape)))
            tf_outs = [kf["outs"][0]] + list(tf_outs[1:]) if kf["outs"][0].shape == x.shape else tf_outs
        else:
            count("valid, compared with TF")
        return compare_bn(c, kf, tf_outs, ref, l1, problems, label)
    ref, l1 = dw_ref(c)
    if multiplier_zero(c):
        diverge("tf-uninitialised.dw-multiplier-0")
        compare_ref_only(c, family, kf["outs"], ref, problems, [tf_outs[0].shape])
        return problems
    if dilated:
        diverge("tf-ignores.dw-dilations")
    else:
        count("valid, compared with TF")
    compare_values(c, family, kf["outs"], tf_outs, ref, l1, problems, label)
    if dilated:
        tape_check(c, kf, problems)
    return problems


def multiplier_zero(c):
    f = c.inputs["filter"]
    return f.ndim == 4 and f.shape[3] == 0 and int(np.prod(c.inputs["input_sizes"])) > 0


def compare_bn(c, kf, tf_outs, ref, terms, problems, label):
    """Batch norm against TF; where denormals are involved and TF's answer
    differs, against TF's formulas in IEEE float32 (tf-ftz.denormals)."""
    mine = []
    compare_values(c, "bn", kf["outs"], tf_outs, ref, terms, mine, label, stats=False)
    if mine and bn_has_denormals(c):
        ieee = bn_tf_formulas_ieee(c)
        alt = []
        compare_values(c, "bn", kf["outs"][:3], ieee, ref, terms, alt, "TF's formulas in IEEE float32",
                       stats=False)
        if not alt:
            diverge("tf-ftz.denormals")
            return problems
    if not mine:
        compare_values(c, "bn", kf["outs"], tf_outs, ref, terms, [], label)  # statistics only
    problems.extend(mine)
    return problems


def tape_check(c, kf, problems):
    t = dw_tape(c)
    if t is None:
        return
    if t[0] != "ok":
        problems.append("tf-ignores.dw-dilations: tf.nn.depthwise_conv2d's gradient failed: %s %s" % t[1:])
        return
    count("dilated, also against GradientTape")
    ref, l1 = dw_ref(c)
    compare_values(c, "dw", kf["outs"], t[1], ref, l1, problems, "TF GradientTape")


# --------------------------------------------------------------------------
# DepthwiseConv2dNativeBackpropFilter: reference, TF equivalents, checks
# --------------------------------------------------------------------------

KNOWN_DWBPF = False   # set in main(): build/kforge lists the op (`kforge ops`)
KF_OUTPUT_NAMES = {}  # op -> kforge's output names, from `kforge ops`


def dwbpf_geometry(c):
    """The NHWC view of a valid filter-gradient call."""
    fmt = c.attrs["data_format"]
    ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
    x = c.inputs["input"]
    N, H, W, C = x.shape[0], x.shape[ih], x.shape[iw], x.shape[ic]
    st = c.attrs["strides"]
    dl = c.attrs.get("dilations", [1, 1, 1, 1])
    kh, kw, _, m = (int(v) for v in c.inputs["filter_sizes"].tolist())
    ep = c.attrs.get("explicit_paddings", [0] * 8) if c.attrs["padding"] == "EXPLICIT" else [0] * 8
    oh, pt, pb = window(H, kh, dl[ih], st[ih], c.attrs["padding"], ep[2 * ih], ep[2 * ih + 1])
    ow, pl, pr = window(W, kw, dl[iw], st[iw], c.attrs["padding"], ep[2 * iw], ep[2 * iw + 1])
    return dict(N=N, H=H, W=W, C=C, m=m, sh=st[ih], sw=st[iw], dh=dl[ih], dw=dl[iw], kh=kh, kw=kw,
                oh=oh, ow=ow, pt=pt, pb=pb, pl=pl, pr=pr, nchw=fmt == "NCHW")


def dwbpf_sum(c, absolute):
    """The filter gradient [KH,KW,C,M] in float64 (of |x|, |dy| with absolute:
    each element's sum of |terms|)."""
    g = dwbpf_geometry(c)
    x, dy = f64(c.inputs["input"]), f64(c.inputs["out_backprop"])
    if absolute:
        x, dy = np.abs(x), np.abs(dy)
    if g["nchw"]:
        x, dy = to_nhwc(x), to_nhwc(dy)
    N, H, W, C, m = g["N"], g["H"], g["W"], g["C"], g["m"]
    out = np.zeros((g["kh"], g["kw"], C, m))
    oh, ow = dy.shape[1], dy.shape[2]
    if out.size and x.size and dy.size:
        gm = dy.reshape(N, oh, ow, C, m)
        for fy in range(g["kh"]):
            for fx in range(g["kw"]):
                # dW[fy, fx, c, m] = sum x[b, oy*sh - pt + fy*dh, ox*sw - pl + fx*dw, c] dy[b, oy, ox, c, m]
                oys = [o for o in range(oh) if 0 <= o * g["sh"] - g["pt"] + fy * g["dh"] < H]
                oxs = [o for o in range(ow) if 0 <= o * g["sw"] - g["pl"] + fx * g["dw"] < W]
                if not oys or not oxs:
                    continue
                iy0 = oys[0] * g["sh"] - g["pt"] + fy * g["dh"]
                ix0 = oxs[0] * g["sw"] - g["pl"] + fx * g["dw"]
                xs = x[:, iy0:iy0 + (len(oys) - 1) * g["sh"] + 1:g["sh"],
                       ix0:ix0 + (len(oxs) - 1) * g["sw"] + 1:g["sw"]]
                out[fy, fx] = np.einsum("bhwc,bhwcm->cm", xs,
                                        gm[:, oys[0]:oys[-1] + 1, oxs[0]:oxs[-1] + 1])
    return out


def dwbpf_ref(c):
    return [dwbpf_sum(c, False)], [dwbpf_sum(c, True)]


def dwbpf_empty_reduction(c):
    """Nothing to sum (N, H, W, out rows or out cols 0) but a non-empty filter."""
    g = dwbpf_geometry(c)
    return g["kh"] * g["kw"] * g["C"] * g["m"] > 0 and 0 in (g["N"], g["H"], g["W"], g["oh"], g["ow"])


def dwbpf_dilated_call(c):
    """The same call with the zero-dilated filter_sizes and dilations 1: TF's
    kernel then computes kforge's true dilation at every dilation-th tap,
    validation included."""
    dl = c.attrs.get("dilations", [1, 1, 1, 1])
    ih, iw = (1, 2) if c.attrs["data_format"] == "NHWC" else (2, 3)
    kh, kw, C, m = (int(v) for v in c.inputs["filter_sizes"].tolist())
    inputs = dict(c.inputs)
    inputs["filter_sizes"] = np.array([(kh - 1) * dl[ih] + 1 if kh else 0, (kw - 1) * dl[iw] + 1 if kw else 0,
                                       C, m], np.int32)
    attrs = dict(c.attrs)
    attrs["dilations"] = [1, 1, 1, 1]
    return inputs, attrs, (dl[ih], dl[iw])


def undilate(a, dh, dw):
    return np.ascontiguousarray(a[::dh, ::dw]) if a.ndim == 4 else a


def dwbpf_equivalent(c):
    """TF's NHWC kernel on an equivalent call for a valid call of any format,
    strides and dilations: transposed to NHWC, filter_sizes zero-dilated
    (every dilation-th tap kept), and for unequal strides stride 1 with the
    out_backprop zero-stuffed and the forward padding made explicit."""
    g = dwbpf_geometry(c)
    x, dy = c.inputs["input"], c.inputs["out_backprop"]
    if g["nchw"]:
        x, dy = to_nhwc(x), to_nhwc(dy)
    kh = (g["kh"] - 1) * g["dh"] + 1 if g["kh"] else 0
    kw = (g["kw"] - 1) * g["dw"] + 1 if g["kw"] else 0
    fs = np.array([kh, kw, g["C"], g["m"]], np.int32)
    if g["sh"] == g["sw"]:
        if c.attrs["padding"] != "EXPLICIT":
            attrs = {"strides": [1, g["sh"], g["sw"], 1], "padding": c.attrs["padding"]}
        else:
            attrs = {"strides": [1, g["sh"], g["sw"], 1], "padding": "EXPLICIT",
                     "explicit_paddings": [0, 0, g["pt"], g["pb"], g["pl"], g["pr"], 0, 0]}
    else:
        oh, ow = dy.shape[1], dy.shape[2]
        pb = max(0, (max(oh, 1) - 1) * g["sh"] + kh - g["H"] - g["pt"])
        pr = max(0, (max(ow, 1) - 1) * g["sw"] + kw - g["W"] - g["pl"])
        h1 = g["H"] + g["pt"] + pb - kh + 1
        w1 = g["W"] + g["pl"] + pr - kw + 1
        z = np.zeros((dy.shape[0], max(h1, 0), max(w1, 0), dy.shape[3]), dy.dtype)
        if oh > 0 and ow > 0:
            z[:, :(oh - 1) * g["sh"] + 1:g["sh"], :(ow - 1) * g["sw"] + 1:g["sw"]] = dy
        dy = z
        attrs = {"strides": [1, 1, 1, 1], "padding": "EXPLICIT",
                 "explicit_paddings": [0, 0, g["pt"], pb, g["pl"], pr, 0, 0]}
    res = run_tf(DWBPF_OP, {"input": x, "filter_sizes": fs, "out_backprop": dy}, attrs)
    if res[0] == "ok":
        res = ("ok", [undilate(res[1][0], g["dh"], g["dw"])])
    return res


def kforge_rejection(kf, problems):
    """(ok, message): kforge's one-line error, or a problem when malformed."""
    if kf["rc"] == 0:
        return True, None
    lines = kf["stderr"].splitlines()
    if kf["rc"] != 1 or len(lines) != 1 or not lines[0].startswith("kforge: error: "):
        problems.append("kforge failed without exactly one 'kforge: error:' line (exit %d): %r"
                        % (kf["rc"], kf["stderr"][-400:]))
        return False, False
    return False, lines[0][len("kforge: error: "):]


def check_dwbpf(c, kf):
    """check_call for DepthwiseConv2dNativeBackpropFilter."""
    problems = []
    kf_ok, kf_msg = kforge_rejection(kf, problems)
    if kf_msg is False:
        return problems
    own = expected_kforge_message(c)
    if own is not None and kf_msg == own:
        diverge("kforge-validates.dwbpf-dilations")
        return problems
    if own is not None and kf_ok:
        problems.append("kforge accepted dilations %s (expected: %s)" % (c.attrs["dilations"], own))
        return problems
    dl = c.attrs.get("dilations", [1, 1, 1, 1])
    fs = c.inputs["filter_sizes"]
    dilated = (own is None and c.attrs["data_format"] in ("NHWC", "NCHW") and any(v != 1 for v in dl)
               and fs.dtype == np.int32 and fs.shape == (4,))
    tf_inputs, tf_attrs, dil = c.inputs, c.attrs, (1, 1)
    if dilated:
        tf_inputs, tf_attrs, dil = dwbpf_dilated_call(c)
    res = run_tf(c.op, tf_inputs, tf_attrs)
    label = "TF" + (" (zero-dilated filter_sizes)" if dilated else "")
    if res[0] == "err":
        ecls, tmsg = res[1], res[2]
        refused = None
        if ecls == "UnimplementedError" and tmsg == MSG_DW_NCHW:
            refused = "tf-refuses.dwbpf-nchw"
        elif tmsg == MSG_DW_UNEQUAL:
            refused = "tf-refuses.dwbpf-unequal-strides"
        if refused:
            diverge(*((refused, "tf-ignores.dwbpf-dilations") if dilated else (refused,)))
            if not kf_ok:
                problems.append("%s: TF refuses (%s), kforge should compute it but failed: %s"
                                % (refused, tmsg, kf_msg))
                return problems
            ref, l1 = dwbpf_ref(c)
            if dwbpf_empty_reduction(c):
                diverge("tf-uninitialised.dwbpf-empty-reduction")
                compare_ref_only(c, "dwbpf", kf["outs"], ref, problems, [ref[0].shape])
                return problems
            eq = dwbpf_equivalent(c)
            if eq[0] != "ok":
                problems.append("%s: TF's equivalent call failed: %s %s" % (refused, eq[1], eq[2]))
                return problems
            compare_values(c, "dwbpf", kf["outs"], eq[1], ref, l1, problems, "TF NHWC equivalent")
            return problems
        if kf_ok:
            problems.append("TF rejects (%s: %s), kforge succeeded" % (ecls, tmsg))
            return problems
        if kf_msg == tmsg:
            # kforge's rule rejections are all InvalidArgument (KF_INVALID_ARGUMENT)
            if ecls != "InvalidArgumentError":
                problems.append("same message %r, but TF's class is %s and kforge's InvalidArgument" % (tmsg, ecls))
            else:
                count("rejected, same message and class")
            return problems
        if dtype_divergence_ok(c, tmsg, kf_msg):
            diverge("message.input-dtype")
            return problems
        problems.append("messages differ: TF %s %r, kforge %r" % (ecls, tmsg, kf_msg))
        return problems
    tf_outs = [undilate(res[1][0], dil[0], dil[1])]
    if not kf_ok:
        problems.append("TF succeeds, kforge fails: %s" % kf_msg)
        return problems
    ref, l1 = dwbpf_ref(c)
    if dwbpf_empty_reduction(c):
        diverge("tf-uninitialised.dwbpf-empty-reduction")
        compare_ref_only(c, "dwbpf", kf["outs"], ref, problems, [tf_outs[0].shape])
        return problems
    if dilated:
        diverge("tf-ignores.dwbpf-dilations")
    else:
        count("valid, compared with TF")
    compare_values(c, "dwbpf", kf["outs"], tf_outs, ref, l1, problems, label)
    return problems


def kforge_ops(path):
    """{op: (inputs, outputs)} from `kforge ops`; {} when it cannot run."""
    try:
        p = subprocess.run([path, "ops"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return {}
    ops = {}
    for line in p.stdout.splitlines():
        m = re.match(r"^(\w+)\(([^)]*)\) -> \(([^)]*)\)$", line.strip())
        if m:
            ops[m.group(1)] = (tuple(a.strip() for a in m.group(2).split(",") if a.strip()),
                               tuple(a.strip() for a in m.group(3).split(",") if a.strip()))
    return ops


# --------------------------------------------------------------------------
# explicit checks of TF 2.21's behaviour that kforge's documentation relies on
# --------------------------------------------------------------------------

RESULTS = [0, 0]
FAILURES = []


def record(ok, what, detail=""):
    RESULTS[0 if ok else 1] += 1
    if not ok:
        FAILURES.append(what)
        print("FAIL - %s%s" % (what, (": " + detail) if detail else ""))
        print("       seed %d; %s" % (SEED, "rerun: KFORGE_TF_SEED=%d bash tests/tf/run.sh" % SEED))
    elif ARGS.verbose:
        print("ok - %s" % what)


def run_one(c, work):
    d = os.path.join(work, "c%d" % c.idx)
    write_inputs(c, d)
    try:
        return run_kforge(c, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def explicit_checks(work):
    rng = np.random.default_rng([SEED, 10 ** 9])
    bf, f32 = BF16, np.float32

    def dw_call(T, fmt, strides, dil=None, padding="SAME", n=2, h=6, w=5, ch=3, m=2, k=3):
        c = Call(-1, DW_OP)
        ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
        st = [1, 1, 1, 1]
        st[ih], st[iw] = strides
        dl = [1, 1, 1, 1]
        if dil:
            dl[ih], dl[iw] = dil
        oh = window(h, k, dl[ih], st[ih], padding)[0]
        ow = window(w, k, dl[iw], st[iw], padding)[0]
        sizes = [0] * 4
        sizes[0], sizes[ih], sizes[iw], sizes[ic] = n, h, w, ch
        gs = [0] * 4
        gs[0], gs[ih], gs[iw], gs[ic] = n, oh, ow, ch * m
        c.inputs = {"input_sizes": np.array(sizes, np.int32),
                    "filter": rng.uniform(-1, 1, (k, k, ch, m)).astype(T),
                    "out_backprop": rng.uniform(-1, 1, gs).astype(T)}
        c.attrs = {"strides": st, "padding": padding, "data_format": fmt}
        if dil:
            c.attrs["dilations"] = dl
        c.T = NAME_OF[np.dtype(T)]
        return c

    def bn_call(op, T, fmt, training, shape, eps=1e-4):
        c = Call(-1, op)
        last = fmt in ("NHWC", "NDHWC")
        C = shape[-1] if last else shape[1]
        c.inputs = {"y_backprop": rng.normal(0, 1, shape).astype(T), "x": rng.normal(0, 1, shape).astype(T),
                    "scale": rng.uniform(-1, 1, C).astype(f32), "reserve_space_1": rng.normal(0, 0.1, C).astype(f32),
                    "reserve_space_2": rng.uniform(0.5, 1.5, C).astype(f32)}
        if op == "FusedBatchNormGradV3":
            c.inputs["reserve_space_3"] = np.zeros([0], f32)
        c.attrs = {"epsilon": eps, "data_format": fmt, "is_training": training}
        c.T = NAME_OF[np.dtype(T)]
        return c

    def kf_and_check(c, what):
        kf = run_one(c, work)
        probs = check_call(c, kf)
        record(not probs, what, "; ".join(probs))
        return kf

    # 1. bfloat16 DepthwiseConv2dNativeBackpropInput runs on TF's CPU
    c = dw_call(bf, "NHWC", (1, 1))
    r = run_tf(DW_OP, c.inputs, c.attrs)
    record(r[0] == "ok" and r[1][0].dtype == BF16, "TF 2.21: bfloat16 DepthwiseConv2dNativeBackpropInput runs "
           "on the CPU", str(r[:2]))
    kf_and_check(c, "kforge: bfloat16 depthwise agrees with TF's CPU kernel")

    # 2. NCHW depthwise: UnimplementedError with TF's message
    c = dw_call(f32, "NCHW", (2, 2))
    r = run_tf(DW_OP, c.inputs, c.attrs)
    record(r[0] == "err" and r[1] == "UnimplementedError" and r[2] == MSG_DW_NCHW,
           "TF 2.21: NCHW depthwise is UnimplementedError (%r)" % MSG_DW_NCHW, str(r))
    kf_and_check(c, "kforge: NCHW depthwise equals TF NHWC on transposed tensors")

    # 3. batch norm: NCHW inference refused; NCHW/NCDHW training, NDHWC inference accepted
    c = bn_call("FusedBatchNormGradV3", f32, "NCHW", False, (2, 3, 4, 5))
    r = run_tf(c.op, c.inputs, c.attrs)
    record(r[0] == "err" and r[1] == "InvalidArgumentError" and r[2] == MSG_BN_NCHW_INFER,
           "TF 2.21: NCHW batch-norm gradient with is_training=false is InvalidArgument", str(r))
    kf_and_check(c, "kforge: NCHW inference batch norm equals TF NHWC on transposed tensors")
    for fmt, training, shape in (("NCHW", True, (2, 3, 4, 5)), ("NCDHW", True, (2, 3, 2, 3, 4)),
                                 ("NDHWC", False, (2, 2, 3, 4, 3))):
        c = bn_call("FusedBatchNormGradV3", f32, fmt, training, shape)
        r = run_tf(c.op, c.inputs, c.attrs)
        record(r[0] == "ok", "TF 2.21: %s batch-norm gradient with is_training=%s is accepted"
               % (fmt, str(training).lower()), str(r[:3]))
        kf_and_check(c, "kforge: %s is_training=%s agrees with TF" % (fmt, str(training).lower()))

    # 4. dilations: accepted (a 0 too) and ignored by TF's CPU kernel
    base = dw_call(f32, "NHWC", (1, 1))
    r1 = run_tf(DW_OP, base.inputs, base.attrs)
    for dl in ([1, 2, 2, 1], [1, 0, 3, 1], [2, 1, 1, 5]):
        attrs = dict(base.attrs, dilations=dl)
        r2 = run_tf(DW_OP, base.inputs, attrs)
        same = r1[0] == "ok" and r2[0] == "ok" and np.array_equal(r1[1][0], r2[1][0])
        record(same, "TF 2.21: dilations=%s accepted and ignored by the CPU kernel" % dl, str(r2[:3]))
    c = dw_call(f32, "NHWC", (1, 1), dil=(2, 2))
    kf = kf_and_check(c, "kforge: dilations=2 compute true dilation (TF on the zero-dilated filter, GradientTape)")
    r = run_tf(DW_OP, c.inputs, c.attrs)  # SAME, stride 1: TF accepts and ignores the dilation
    record(kf["rc"] == 0 and r[0] == "ok" and not np.allclose(f64(kf["outs"][0]), f64(r[1][0])),
           "kforge: true dilation differs from TF's ignored-dilation result", str(r[:2]))
    c = dw_call(f32, "NHWC", (1, 1))
    c.attrs["dilations"] = [1, 0, 1, 1]
    kf = run_one(c, work)
    record(kf["rc"] == 1 and kf["stderr"].strip() == "kforge: error: Dilation rate must be >= 1, but got 0",
           "kforge: dilation 0 is rejected (kforge-validates.dw-dilations)", kf["stderr"].strip())

    # 5. FusedBatchNormGradV3 on an empty 5-D input: TF returns a 4-D x_backprop
    for fmt, shape in (("NDHWC", (2, 0, 4, 5, 6)), ("NCDHW", (2, 3, 0, 4, 5))):
        c = bn_call("FusedBatchNormGradV3", f32, fmt, True, shape)
        r = run_tf(c.op, c.inputs, c.attrs)
        record(r[0] == "ok" and r[1][0].ndim == 4 and r[1][0].size == 0,
               "TF 2.21 bug: empty 5-D %s input gives a 4-D x_backprop %s" % (fmt, list(r[1][0].shape)
                                                                             if r[0] == "ok" else r))
        kf = run_one(c, work)
        record(kf["rc"] == 0 and kf["outs"][0].shape == shape and not np.any(kf["outs"][1])
               and not np.any(kf["outs"][2]),
               "kforge: empty 5-D %s input gives x_backprop of x's shape %s and zero scale/offset "
               "backprop (tf-bug.bn-empty-5d-shape)" % (fmt, list(shape)), kf["stderr"].strip())

    # 6./7. epsilon: negative, denormal, underflowing and overflowing all accepted
    for eps in (-0.001, -0.5, 1e-40, 1e-45, 1e-50, 1e40):
        c = bn_call("FusedBatchNormGradV3", f32, "NHWC", True, (2, 3, 3, 4), eps)
        r = run_tf(c.op, c.inputs, c.attrs)
        record(r[0] == "ok", "TF 2.21: epsilon=%g accepted" % eps, str(r[:3]))
        kf_and_check(c, "kforge: epsilon=%g agrees with TF" % eps)

    # 8. unequal strides: TF refuses, kforge computes
    c = dw_call(f32, "NHWC", (1, 2))
    r = run_tf(DW_OP, c.inputs, c.attrs)
    record(r[0] == "err" and r[2] == MSG_DW_UNEQUAL, "TF 2.21: unequal depthwise strides are InvalidArgument",
           str(r))
    kf_and_check(c, "kforge: unequal strides equal TF with stride 1 on a zero-stuffed out_backprop")

    # 9. TF flushes denormals to zero (FTZ/DAZ); kforge keeps IEEE denormals
    c = dw_call(f32, "NHWC", (1, 1), m=1, k=1)
    c.inputs["filter"] = np.ones_like(c.inputs["filter"])
    c.inputs["out_backprop"] = np.full_like(c.inputs["out_backprop"], 1e-39)
    r = run_tf(DW_OP, c.inputs, c.attrs)
    record(r[0] == "ok" and not np.any(r[1][0]), "TF 2.21 flushes denormals: 1e-39 * 1 gives 0 in the depthwise "
           "gradient", str(r[:2]))
    kf = run_one(c, work)
    record(kf["rc"] == 0 and np.all(kf["outs"][0] == np.float32(1e-39)),
           "kforge keeps IEEE denormals: 1e-39 * 1 gives 1e-39 (tf-ftz.denormals)", kf["stderr"].strip())
    c = bn_call("FusedBatchNormGradV3", f32, "NHWC", True, (2, 1, 1, 1), 1e-40)
    c.inputs["x"] = np.ones((2, 1, 1, 1), f32)
    c.inputs["reserve_space_1"] = np.ones(1, f32)
    c.inputs["reserve_space_2"] = np.zeros(1, f32)
    r = run_tf(c.op, c.inputs, c.attrs)
    record(r[0] == "ok" and np.isnan(r[1][1][0]), "TF 2.21 flushes denormals: epsilon=1e-40 with variance 0 "
           "gives rsqrt(0) = inf and a NaN scale_backprop for x == mean", str(r[:2]))
    kf = run_one(c, work)
    record(kf["rc"] == 0 and kf["outs"][1][0] == 0 and not check_call(c, kf),
           "kforge: epsilon=1e-40 with variance 0 gives rsqrt(1e-40) = 1e20 and scale_backprop 0, as TF's "
           "formulas in IEEE float32 (tf-ftz.denormals)", kf["stderr"].strip())

    # 10. var + epsilon = 0 (coef0 = inf): scale_backprop = sum dy*(xc*inf)
    # is +-inf where every product has one sign (TF's formulas; found by this
    # suite: kforge's vector NCHW training kernels gave NaN there)
    for fmt, shape in (("NCHW", (1, 1, 1, 3)), ("NHWC", (1, 1, 3, 1)), ("NCHW", (2, 1, 3, 5))):
        c = bn_call("FusedBatchNormGradV3", f32, fmt, True, shape, 0.0)
        c.inputs["x"] = np.arange(1, 1 + int(np.prod(shape)), dtype=f32).reshape(shape)
        c.inputs["y_backprop"] = np.ones(shape, f32)
        c.inputs["reserve_space_1"] = np.zeros(1, f32)
        c.inputs["reserve_space_2"] = np.zeros(1, f32)
        kf_and_check(c, "kforge: variance + epsilon = 0, %s %s: scale_backprop +inf as TF's" % (fmt, list(shape)))

    # 11. depth multiplier 0: TF's output is uninitialised; kforge's zeros
    c = dw_call(f32, "NHWC", (1, 1), m=0)
    kf = run_one(c, work)
    record(kf["rc"] == 0 and kf["outs"][0].shape == (2, 6, 5, 3) and not np.any(kf["outs"][0]),
           "kforge: depth multiplier 0 gives zeros (tf-uninitialised.dw-multiplier-0)", kf["stderr"].strip())

    if KNOWN_DWBPF:
        explicit_checks_dwbpf(work, rng, kf_and_check)


def explicit_checks_dwbpf(work, rng, kf_and_check):
    """TF 2.21's DepthwiseConv2dNativeBackpropFilter behaviour that the
    divergences of docs/testing.md rely on, and kforge on the same calls."""
    f32 = np.float32

    def call(T, fmt, strides, dil=None, padding="SAME", n=2, h=6, w=5, ch=3, m=2, k=3):
        c = Call(-1, DWBPF_OP)
        ih, iw, ic = (1, 2, 3) if fmt == "NHWC" else (2, 3, 1)
        st = [1, 1, 1, 1]
        st[ih], st[iw] = strides
        dl = [1, 1, 1, 1]
        if dil:
            dl[ih], dl[iw] = dil
        oh = window(h, k, dl[ih], st[ih], padding)[0]
        ow = window(w, k, dl[iw], st[iw], padding)[0]
        xs = [0] * 4
        xs[0], xs[ih], xs[iw], xs[ic] = n, h, w, ch
        gs = [0] * 4
        gs[0], gs[ih], gs[iw], gs[ic] = n, oh, ow, ch * m
        c.inputs = {"input": rng.uniform(-1, 1, xs).astype(T), "filter_sizes": np.array([k, k, ch, m], np.int32),
                    "out_backprop": rng.uniform(-1, 1, gs).astype(T)}
        c.attrs = {"strides": st, "padding": padding, "data_format": fmt}
        if dil:
            c.attrs["dilations"] = dl
        c.T = NAME_OF[np.dtype(T)]
        return c

    # 1. every dtype TF registers runs on its CPU; kforge agrees
    for T in (BF16, np.float16, f32, np.float64):
        c = call(T, "NHWC", (1, 1))
        r = run_tf(DWBPF_OP, c.inputs, c.attrs)
        name = NAME_OF[np.dtype(T)]
        record(r[0] == "ok" and r[1][0].dtype == np.dtype(T) and r[1][0].shape == (3, 3, 3, 2),
               "TF 2.21: %s DepthwiseConv2dNativeBackpropFilter runs on the CPU" % name, str(r[:2]))
        kf_and_check(c, "kforge: %s filter gradient agrees with TF's CPU kernel" % name)

    # 2. NCHW: UnimplementedError with TF's message; kforge computes it
    c = call(f32, "NCHW", (2, 2))
    r = run_tf(DWBPF_OP, c.inputs, c.attrs)
    record(r[0] == "err" and r[1] == "UnimplementedError" and r[2] == MSG_DW_NCHW,
           "TF 2.21: NCHW filter gradient is UnimplementedError (%r)" % MSG_DW_NCHW, str(r))
    kf_and_check(c, "kforge: NCHW filter gradient equals TF NHWC on transposed tensors (tf-refuses.dwbpf-nchw)")

    # 3. unequal strides: InvalidArgument; kforge computes them
    c = call(f32, "NHWC", (1, 2))
    r = run_tf(DWBPF_OP, c.inputs, c.attrs)
    record(r[0] == "err" and r[1] == "InvalidArgumentError" and r[2] == MSG_DW_UNEQUAL,
           "TF 2.21: unequal filter-gradient strides are InvalidArgument", str(r))
    kf_and_check(c, "kforge: unequal strides equal TF with stride 1 on a zero-stuffed out_backprop "
                 "(tf-refuses.dwbpf-unequal-strides)")

    # 4. dilations: accepted (a 0 too) and ignored by TF; kforge: true dilation, 0 rejected
    base = call(f32, "NHWC", (1, 1))
    r1 = run_tf(DWBPF_OP, base.inputs, base.attrs)
    for dl in ([1, 2, 2, 1], [1, 0, 3, 1], [2, 1, 1, 5]):
        r2 = run_tf(DWBPF_OP, base.inputs, dict(base.attrs, dilations=dl))
        same = r1[0] == "ok" and r2[0] == "ok" and np.array_equal(r1[1][0], r2[1][0])
        record(same, "TF 2.21: filter-gradient dilations=%s accepted and ignored by the CPU kernel" % dl,
               str(r2[:3]))
    c = call(f32, "NHWC", (1, 1), dil=(2, 2), h=9, w=8)
    kf = kf_and_check(c, "kforge: filter-gradient dilations=2 compute true dilation (TF on the zero-dilated "
                      "filter_sizes; tf-ignores.dwbpf-dilations)")
    c2 = call(f32, "NHWC", (1, 1), h=9, w=8)
    c2.inputs = dict(c.inputs)
    r = run_tf(DWBPF_OP, c2.inputs, c2.attrs)
    record(kf["rc"] == 0 and r[0] == "ok" and not np.allclose(f64(kf["outs"][0]), f64(r[1][0])),
           "kforge: true dilation differs from TF's ignored-dilation filter gradient", str(r[:2]))
    c = call(f32, "NHWC", (1, 1))
    c.attrs["dilations"] = [1, 0, 1, 1]
    kf = run_one(c, work)
    record(kf["rc"] == 1 and kf["stderr"].strip() == "kforge: error: Dilation rate must be >= 1, but got 0",
           "kforge: filter-gradient dilation 0 is rejected (kforge-validates.dwbpf-dilations)", kf["stderr"].strip())

    # 5. nothing to sum: TF returns an uninitialised filter gradient, kforge zeros
    for what, kw in (("batch 0", dict(n=0)), ("height 0", dict(h=0)), ("width 0", dict(w=0))):
        c = call(f32, "NHWC", (1, 1), **kw)
        r = run_tf(DWBPF_OP, c.inputs, c.attrs)
        record(r[0] == "ok" and r[1][0].shape == (3, 3, 3, 2),
               "TF 2.21: filter gradient with %s is accepted, output [3,3,3,2] (%s)"
               % (what, "nonzero, uninitialised" if r[0] == "ok" and np.any(r[1][0]) else "zeros this time"),
               str(r[:2]))
        kf = run_one(c, work)
        record(kf["rc"] == 0 and kf["outs"][0].shape == (3, 3, 3, 2) and not np.any(kf["outs"][0]),
               "kforge: filter gradient with %s gives zeros (tf-uninitialised.dwbpf-empty-reduction)" % what,
               kf["stderr"].strip())

    # 6. a reduction of thousands of terms per tap, float and bfloat16
    for T in (f32, BF16):
        c = call(T, "NHWC", (1, 1), n=8, h=40, w=40, ch=16, m=1)
        kf_and_check(c, "kforge: %s filter gradient over 8x40x40 positions agrees with TF" % NAME_OF[np.dtype(T)])


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------

def main():
    global KFORGE, SEED, ARGS, KNOWN_DWBPF
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kforge", default="build/kforge")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--dwbpf-calls", type=int, default=600,
                    help="calls of %s (indices %d...)" % (DWBPF_OP, DWBPF_BASE))
    ap.add_argument("--only", default=None, help="comma-separated call indices (no explicit checks)")
    ap.add_argument("--jobs", type=int, default=2, help="kforge processes at once")
    ap.add_argument("--chunk", type=int, default=32)
    ap.add_argument("--verbose", action="store_true")
    ARGS = ap.parse_args()
    KFORGE = os.path.abspath(ARGS.kforge)
    if not os.access(KFORGE, os.X_OK):
        print("tf-differential: %s is not an executable (build first: ninja)" % KFORGE)
        print("0 passed, 1 failed")
        return 1
    env_seed = os.environ.get("KFORGE_TF_SEED")
    SEED = ARGS.seed if ARGS.seed is not None else (int(env_seed) if env_seed else
                                                     int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF)
    only = [int(s) for s in ARGS.only.split(",")] if ARGS.only else None
    print("tf-differential: seed %d (rerun: KFORGE_TF_SEED=%d bash tests/tf/run.sh), %s" %
          (SEED, SEED, "calls %s" % only if only else "%d calls + %d of %s" % (ARGS.calls, ARGS.dwbpf_calls,
                                                                               DWBPF_OP)))
    sys.stdout.flush()
    t0 = time.time()
    import_tf()
    print("tf-differential: TensorFlow %s (Eigen CPU kernels, oneDNN off, 1 thread), kforge %s; import %.1fs"
          % (tf.__version__, KFORGE, time.time() - t0))
    sys.stdout.flush()
    ops = kforge_ops(KFORGE)
    KNOWN_DWBPF = DWBPF_OP in ops
    KF_OUTPUT_NAMES.update({op: io[1] for op, io in ops.items()})
    if KNOWN_DWBPF:
        names_ok = ops[DWBPF_OP] == (INPUTS[DWBPF_OP], OUTPUTS[DWBPF_OP])
        record(names_ok, "kforge's %s has TF's input and output names %s -> %s" % (
            DWBPF_OP, INPUTS[DWBPF_OP], OUTPUTS[DWBPF_OP]), "kforge ops: %s -> %s" % ops[DWBPF_OP])
    else:
        print("tf-differential: %s is unknown to %s (kforge ops): its calls and explicit checks are skipped"
              % (DWBPF_OP, KFORGE))
    indices = only if only is not None else (list(range(ARGS.calls)) +
                                             [DWBPF_BASE + j for j in range(ARGS.dwbpf_calls)])
    if not KNOWN_DWBPF:
        skipped = [i for i in indices if i >= DWBPF_BASE]
        indices = [i for i in indices if i < DWBPF_BASE]
        if skipped:
            print("tf-differential: skipping %d calls of %s" % (len(skipped), DWBPF_OP))
    work = tempfile.mkdtemp(prefix="kforge-tf-")
    kinds = {}
    t1 = time.time()
    try:
        if only is None:
            explicit_checks(work)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, ARGS.jobs)) as pool:
            for start in range(0, len(indices), ARGS.chunk):
                calls = [make_call(i) for i in indices[start:start + ARGS.chunk]]
                futs = [pool.submit(run_one, c, work) for c in calls]
                for c, fu in zip(calls, futs):
                    try:
                        kf = fu.result()
                        problems = check_call(c, kf)
                    except Exception as e:  # noqa: BLE001 -- a harness error fails this call, visibly
                        import traceback
                        problems = ["harness error: %s: %s\n%s" % (type(e).__name__, e, traceback.format_exc())]
                    kinds[c.kind.split(":")[0]] = kinds.get(c.kind.split(":")[0], 0) + 1
                    RESULTS[0 if not problems else 1] += 1
                    if problems:
                        FAILURES.append(c.describe())
                        print("FAIL - %s" % c.describe())
                        for p in problems:
                            print("       %s" % p)
                        print("       seed %d; %s" % (SEED, rerun_hint(c.idx)))
                        print("       kforge: %s" % shell_quote(kforge_command(c, "DIR")))
                    elif ARGS.verbose:
                        print("ok - %s" % c.describe())
                done = min(start + ARGS.chunk, len(indices))
                if len(indices) >= 10000 and done % 5000 < ARGS.chunk:
                    print("tf-differential: %d/%d calls, %d failed, %.0fs" % (done, len(indices), RESULTS[1],
                                                                         time.time() - t1))
                    sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("")
    print("tf-differential: seed %d, %d calls (%s) in %.1fs" % (SEED, len(indices), ", ".join(
        "%s %d" % kv for kv in sorted(kinds.items())), time.time() - t1))
    print("outcomes: " + ", ".join("%s %d" % kv for kv in sorted(COUNTS.items())))
    print(STATS.report())
    if FAILURES:
        print("\n%d failed (seed %d; rerun one: KFORGE_TF_SEED=%d bash tests/tf/run.sh --only I):"
              % (len(FAILURES), SEED, SEED))
        for f in FAILURES[:50]:
            print("  " + f)
        if len(FAILURES) > 50:
            print("  ... and %d more" % (len(FAILURES) - 50))
    print("%d passed, %d failed" % tuple(RESULTS))
    return 1 if RESULTS[1] else 0


if __name__ == "__main__":
    sys.exit(main())
