#!/usr/bin/python3
"""dwbpi_torch.py -- an independent oracle for DepthwiseConv2dNativeBackpropInput.

Usage: /usr/bin/python3 tests/oracle/dwbpi_torch.py build/kforge

For fixed cases (NHWC and NCHW, strides 1, 2 and unequal, SAME/VALID/
EXPLICIT, dilation 2, multiplier 1 and 2, float32/float64/half/bfloat16),
computes TF's depthwise backprop-input with PyTorch (autograd of F.conv2d
with groups=C, TF filter [FH,FW,C,M] -> torch [C*M,1,FH,FW], TF's SAME
padding -- smaller half before -- as explicit asymmetric padding, in float64
from the dtype-rounded inputs), runs the kforge CLI on the same .npy inputs
and compares within kforge's tolerances (relative to max|expected|).
Prints "ok - ..."/"FAIL - ..." per case and "N passed, M failed"; exits 1 on
any failure.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

TOL = {"float": 2e-5, "double": 1e-10, "half": 5e-3, "bfloat16": 3e-2}


def window(n, k, d, s, padding, pb=0, pa=0):
    """TF's GetWindowedOutputSizeVerbose with effective filter (k-1)*d+1 (tf_semantics.md 2.3)."""
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = (n + s - 1) // s
        total = max(0, (out - 1) * s + eff - n)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        pb = pa = 0
    num = n + pb + pa - eff + s
    out = int(num / s)  # C++ truncation toward zero
    return out, pb, pa


def round_to(dtype, a):
    """Rounds float64 values to dtype; returns (values as float64, array to save)."""
    if dtype == "float":
        v = a.astype(np.float32)
        return v.astype(np.float64), v
    if dtype == "double":
        return a, a
    if dtype == "half":
        v = a.astype(np.float16)
        return v.astype(np.float64), v
    t = torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    bits = t.view(torch.int16).numpy().view(np.uint16).astype("<u2")
    return t.to(torch.float64).numpy(), bits


def load_out(dtype, path):
    a = np.load(path)
    if dtype == "bfloat16":
        assert a.dtype == np.uint16, a.dtype
        return (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return a.astype(np.float64)


def expected(c, x_shape_nchw, f, g_nchw):
    """dx (NCHW, float64) by autograd of the forward depthwise convolution."""
    n, ch, h, w = x_shape_nchw
    fh, fw, _, m = f.shape
    oh, pt, pbot = window(h, fh, c["dh"], c["sh"], c["padding"], *c.get("pad_h", (0, 0)))
    ow, pl, pr = window(w, fw, c["dw"], c["sw"], c["padding"], *c.get("pad_w", (0, 0)))
    if oh <= 0 or ow <= 0 or n * ch * h * w == 0:
        return np.zeros(x_shape_nchw)
    x = torch.zeros(x_shape_nchw, dtype=torch.float64, requires_grad=True)
    wt = torch.from_numpy(f).permute(2, 3, 0, 1).reshape(ch * m, 1, fh, fw)
    xp = F.pad(x, (pl, pr, pt, pbot))
    y = F.conv2d(xp, wt, stride=(c["sh"], c["sw"]), dilation=(c["dh"], c["dw"]), groups=ch)
    assert tuple(y.shape) == (n, ch * m, oh, ow), (tuple(y.shape), (n, ch * m, oh, ow))
    y.backward(torch.from_numpy(g_nchw))
    return x.grad.numpy()


def run_case(cli, c, rng, tmp):
    nchw = c["fmt"] == "NCHW"
    n, h, w, ch = c["in"]
    fh, fw, m = c["k"][0], c["k"][1], c["m"]
    oh, _, _ = window(h, fh, c["dh"], c["sh"], c["padding"], *c.get("pad_h", (0, 0)))
    ow, _, _ = window(w, fw, c["dw"], c["sw"], c["padding"], *c.get("pad_w", (0, 0)))
    f, f_save = round_to(c["T"], rng.uniform(-1, 1, (fh, fw, ch, m)))
    g_nhwc, g_save = round_to(c["T"], rng.uniform(-1, 1, (n, oh, ow, ch * m)))
    g_nchw = g_nhwc.transpose(0, 3, 1, 2).copy()
    if nchw:
        g_save = g_save.transpose(0, 3, 1, 2).copy()
        sizes = np.array([n, ch, h, w], dtype="<i4")
    else:
        sizes = np.array([n, h, w, ch], dtype="<i4")
    want = expected(c, (n, ch, h, w), f, g_nchw)
    if not nchw:
        want = want.transpose(0, 2, 3, 1)
    d = tempfile.mkdtemp(dir=tmp)
    np.save(os.path.join(d, "sizes.npy"), sizes)
    np.save(os.path.join(d, "f.npy"), f_save)
    np.save(os.path.join(d, "g.npy"), g_save)
    st = [1, c["sh"], c["sw"], 1] if not nchw else [1, 1, c["sh"], c["sw"]]
    args = [cli, "run", "DepthwiseConv2dNativeBackpropInput",
            "--attr", "strides=" + ",".join(map(str, st)), "--attr", "padding=" + c["padding"]]
    if c["padding"] == "EXPLICIT":
        ph, pw = c.get("pad_h", (0, 0)), c.get("pad_w", (0, 0))
        ep = [0, 0, ph[0], ph[1], pw[0], pw[1], 0, 0] if not nchw else [0, 0, 0, 0, ph[0], ph[1], pw[0], pw[1]]
        args += ["--attr", "explicit_paddings=" + ",".join(map(str, ep))]
    if c["dh"] != 1 or c["dw"] != 1:
        dl = [1, c["dh"], c["dw"], 1] if not nchw else [1, 1, c["dh"], c["dw"]]
        args += ["--attr", "dilations=" + ",".join(map(str, dl))]
    if nchw:
        args += ["--attr", "data_format=NCHW"]
    if c["T"] == "bfloat16":
        args += ["--attr", "T=bfloat16"]
    args += ["--out", d, "input_sizes=" + os.path.join(d, "sizes.npy"), "filter=" + os.path.join(d, "f.npy"),
             "out_backprop=" + os.path.join(d, "g.npy")]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        return False, "kforge exited %d: %s" % (p.returncode, (p.stderr or p.stdout).strip()[:300])
    got = load_out(c["T"], os.path.join(d, "output.npy"))
    if got.shape != want.shape:
        return False, "shape %s, want %s" % (got.shape, want.shape)
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-300)
    err = float(np.max(np.abs(got - want))) / scale if want.size else 0.0
    if not err <= TOL[c["T"]]:
        return False, "rel err %.3g > %.3g" % (err, TOL[c["T"]])
    return True, "rel err %.3g" % err


def base(**kw):
    c = {"fmt": "NHWC", "T": "float", "in": (2, 7, 8, 3), "k": (3, 3), "m": 1, "sh": 1, "sw": 1, "dh": 1, "dw": 1,
         "padding": "SAME"}
    c.update(kw)
    return c


CASES = [
    base(),
    base(sh=2, sw=2, padding="VALID", m=2, **{"in": (1, 9, 10, 4)}),
    base(T="double", sh=2, sw=2, padding="EXPLICIT", k=(5, 5), pad_h=(1, 3), pad_w=(2, 0)),
    base(fmt="NCHW", m=2),
    base(fmt="NCHW", T="double", sh=2, sw=2, padding="VALID", **{"in": (2, 11, 9, 2)}),
    base(sh=1, sw=2, k=(3, 5)),
    base(fmt="NCHW", sh=2, sw=1, padding="EXPLICIT", pad_h=(2, 2), pad_w=(0, 1)),
    base(dh=2, dw=2, **{"in": (1, 9, 9, 5)}),
    base(fmt="NCHW", T="double", dh=2, dw=2, padding="VALID", m=2, **{"in": (1, 10, 9, 3)}),
    base(T="half", sh=2, sw=2, m=2, **{"in": (2, 8, 7, 6)}),
    base(fmt="NCHW", T="bfloat16", padding="EXPLICIT", k=(5, 5), pad_h=(2, 1), pad_w=(3, 3)),
    base(T="bfloat16", sh=2, sw=2, dh=2, dw=2, **{"in": (1, 12, 11, 4)}),
    base(T="half", fmt="NCHW", k=(7, 7), padding="VALID", **{"in": (1, 13, 12, 2)}),
    base(padding="VALID", k=(5, 5), sh=4, sw=4, **{"in": (1, 2, 2, 3)}),  # TF quirk: 0 out rows, zeros
]


def describe(c):
    s = "%s %s in=%s k=%dx%d m=%d s=%dx%d d=%dx%d %s" % (c["T"], c["fmt"], list(c["in"]), c["k"][0], c["k"][1],
                                                      c["m"], c["sh"], c["sw"], c["dh"], c["dw"], c["padding"])
    if c["padding"] == "EXPLICIT":
        s += " pads=%s,%s" % (c["pad_h"], c["pad_w"])
    return s


def main():
    if len(sys.argv) != 2:
        print("usage: dwbpi_torch.py PATH/TO/kforge", file=sys.stderr)
        return 2
    cli = sys.argv[1]
    rng = np.random.default_rng(20240611)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in CASES:
            ok, msg = run_case(cli, c, rng, tmp)
            print("%s - %s: %s" % ("ok" if ok else "FAIL", describe(c), msg))
            passed += ok
            failed += not ok
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
