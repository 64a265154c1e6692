#!/usr/bin/python3
"""Independent oracle for FusedBatchNormGrad{,V2,V3}: PyTorch's own
batch-norm backward (aten.native_batch_norm_backward, float64) against the
kforge CLI on a fixed set of cases covering every version, dtype, data
format and mode.

Why it is an oracle for TF's semantics: with train=True PyTorch takes the
saved mean and inverse std as given (TF's reserve_space_1 and
1/sqrt(reserve_space_2 + eps)), and with train=False the running statistics,
which is TF's frozen-statistics gradient; both reduce to the same closed
form as tf_semantics.md 1.6/1.7, so any statistics -- even inconsistent
ones -- give TF's result.

Usage: /usr/bin/python3 tests/oracle/bngrad_torch.py build/kforge
Tolerances (relative to max |expected|, see docs/testing.md):
float 1e-5, half 2e-3, bfloat16 2e-2; scale/offset backprop are float for
every T, so 1e-5.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

KFORGE = os.path.abspath(sys.argv[1])
RESULTS = [0, 0]
TOL = {"float": 1e-5, "half": 2e-3, "bfloat16": 2e-2}


def check(cond, what):
    RESULTS[0 if cond else 1] += 1
    print(("ok - " if cond else "FAIL - ") + what)


def to_bf16_bits(a):
    """float32 -> bfloat16 bit patterns (uint16), round to nearest even."""
    b = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16)


def from_bf16_bits(u):
    return (u.astype(np.uint32) << 16).view(np.float32)


def encode(a, t):
    """Values as the CLI wants them for dtype t, and those values in float64."""
    if t == "half":
        h = a.astype(np.float16)
        return h, h.astype(np.float64)
    if t == "bfloat16":
        u = to_bf16_bits(a.astype(np.float32))
        return u, from_bf16_bits(u).astype(np.float64)
    f = a.astype(np.float32)
    return f, f.astype(np.float64)


def decode(a, t):
    if t == "bfloat16":
        return from_bf16_bits(a).astype(np.float64)
    return a.astype(np.float64)


def torch_grad(dy, x, scale, mean, var, eps, training, channels_last):
    """PyTorch wants channels at dim 1: move them there and back."""
    r = x.ndim
    perm = (0, r - 1) + tuple(range(1, r - 1)) if channels_last else tuple(range(r))
    inv = tuple(np.argsort(perm))
    tdy = torch.from_numpy(np.ascontiguousarray(dy.transpose(perm)))
    tx = torch.from_numpy(np.ascontiguousarray(x.transpose(perm)))
    w = torch.from_numpy(scale)
    m = torch.from_numpy(mean)
    v = torch.from_numpy(var)
    eps = float(np.float32(eps))
    invstd = 1.0 / torch.sqrt(v + eps)
    gx, gw, gb = torch.ops.aten.native_batch_norm_backward(
        tdy, tx, w, m, v, m, invstd, training, eps, [True, True, True])
    return gx.numpy().transpose(inv), gw.numpy(), gb.numpy()


CASES = [
    # op, T, data_format, is_training, shape, epsilon
    ("FusedBatchNormGrad", "float", "NHWC", True, (2, 5, 4, 7), 0.0001),
    ("FusedBatchNormGrad", "float", "NCHW", False, (2, 3, 4, 5), 0.001),
    ("FusedBatchNormGradV2", "half", "NHWC", True, (3, 6, 5, 16), 0.0001),
    ("FusedBatchNormGradV2", "bfloat16", "NCHW", True, (2, 8, 7, 3), 0.001),
    ("FusedBatchNormGradV2", "float", "NHWC", False, (1, 9, 9, 33), 0.0001),
    ("FusedBatchNormGradV2", "half", "NCHW", False, (2, 4, 3, 3), 0.01),
    ("FusedBatchNormGradV3", "float", "NDHWC", True, (2, 3, 4, 5, 6), 0.0001),
    ("FusedBatchNormGradV3", "half", "NCDHW", False, (1, 5, 2, 3, 4), 0.0001),
    ("FusedBatchNormGradV3", "bfloat16", "NHWC", False, (4, 3, 3, 10), 0.0001),
    ("FusedBatchNormGradV3", "float", "NCHW", True, (8, 16, 14, 14), 0.0001),
    ("FusedBatchNormGradV3", "float", "NHWC", True, (1, 1, 1, 5), 0.0001),
    ("FusedBatchNormGradV3", "bfloat16", "NCDHW", True, (2, 3, 3, 4, 5), 0.5),
    ("FusedBatchNormGradV3", "float", "NHWC", True, (64, 1, 1, 96), 0.0001),
]


def run_case(i, op, t, fmt, training, shape, eps, work):
    rng = np.random.default_rng(1000 + i)
    last = fmt in ("NHWC", "NDHWC")
    c = shape[-1] if last else shape[1]
    dy, dy64 = encode(rng.uniform(-2, 2, shape), t)
    x, x64 = encode(rng.uniform(-2, 3, shape), t)
    scale = rng.uniform(-1.5, 1.5, c).astype(np.float32)
    mean = rng.uniform(-1, 1, c).astype(np.float32)  # not x's statistics: used as given
    var = rng.uniform(0.05, 2, c).astype(np.float32)
    d = os.path.join(work, "case%d" % i)
    os.makedirs(d)
    files = {"y_backprop": dy, "x": x, "scale": scale, "reserve_space_1": mean, "reserve_space_2": var}
    if op == "FusedBatchNormGradV3":
        files["reserve_space_3"] = np.zeros((0,), np.float32)
    args = [KFORGE, "run", op, "--attr", "epsilon=%r" % eps, "--attr", "data_format=" + fmt,
            "--attr", "is_training=" + ("true" if training else "false"), "--out", os.path.join(d, "out")]
    if t == "bfloat16":
        args += ["--attr", "T=bfloat16"]
    for name, arr in files.items():
        np.save(os.path.join(d, name + ".npy"), arr)
        args.append("%s=%s" % (name, os.path.join(d, name + ".npy")))
    what = "%s T=%s %s %s %s eps=%g" % (op, t, fmt, "train" if training else "infer", shape, eps)
    p = subprocess.run(args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        check(False, what + ": " + p.stderr.strip())
        return
    ex, ew, eb = torch_grad(dy64, x64, scale.astype(np.float64), mean.astype(np.float64),
                            var.astype(np.float64), eps, training, last)
    gx = decode(np.load(os.path.join(d, "out", "x_backprop.npy")), t)
    gw = np.load(os.path.join(d, "out", "scale_backprop.npy")).astype(np.float64)
    gb = np.load(os.path.join(d, "out", "offset_backprop.npy")).astype(np.float64)

    def rel(got, want):
        return float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-6)) if want.size else 0.0

    ex_rel, ew_rel, eb_rel = rel(gx, ex), rel(gw, ew), rel(gb, eb)
    ok = ex_rel <= TOL[t] and ew_rel <= TOL["float"] and eb_rel <= TOL["float"] and gx.shape == shape
    check(ok, "%s vs PyTorch: x_backprop %.1e (tol %.0e), scale_backprop %.1e, offset_backprop %.1e" %
          (what, ex_rel, TOL[t], ew_rel, eb_rel))


def main():
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory(prefix="kforge_oracle_") as work:
        for i, case in enumerate(CASES):
            run_case(i, *case, work)
    print("%d passed, %d failed" % tuple(RESULTS))
    return 1 if RESULTS[1] else 0


if __name__ == "__main__":
    sys.exit(main())
