#!/usr/bin/python3
"""End-to-end test of the kforge CLI.

Usage: /usr/bin/python3 tests/cli/test_cli.py path/to/kforge

Prints "ok - ..." / "FAIL - ..." per check and ends with "N passed, M failed";
exits non-zero on failures. Needs numpy (hence /usr/bin/python3).
"""
import fcntl
import io
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

if len(sys.argv) != 2:
    sys.exit("usage: test_cli.py path/to/kforge")
KFORGE = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="kforge_cli_test_")
RESULTS = [0, 0]  # passed, failed


def check(cond, what, detail=""):
    RESULTS[0 if cond else 1] += 1
    print(("ok - " if cond else "FAIL - ") + what + ("" if cond or not detail else ": " + str(detail).strip()))
    return cond


def kforge(*args):
    return subprocess.run([KFORGE, *args], capture_output=True, text=True, timeout=300)


def save(name, arr):
    path = os.path.join(WORK, name)
    np.save(path, arr)
    return path


def fresh_dir(tag):
    """A path that does not exist yet (the CLI must create it)."""
    return tempfile.mktemp(prefix=tag + "_", dir=WORK)


def close(got, want, rtol, what):
    """max|got-want| <= rtol * max|want| (want in float64)."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    if got.shape != want.shape:
        return check(False, what, "shape %s, expected %s" % (got.shape, want.shape))
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1e-30)
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    return check(err <= rtol * scale, what, "max abs error %.3g, allowed %.3g" % (err, rtol * scale))


def numpy_bytes(arr):
    b = io.BytesIO()
    np.save(b, arr)
    return b.getvalue()


# --------------------------------------------------------------- bfloat16
def to_bf16_bits(a):
    """float32 -> bfloat16 bit patterns (<u2), round to nearest even."""
    u = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype("<u2")


def from_bf16_bits(b):
    return (np.asarray(b, np.uint32) << 16).view(np.float32)


# --------------------------------------------------------------- references
def bn_grad_ref(dy, x, scale, mean, var, eps, training, data_format="NHWC"):
    """TF's FusedBatchNormGrad in float64. Returns dx, scale_bp, offset_bp."""
    dy = np.asarray(dy, np.float64)
    x = np.asarray(x, np.float64)
    if data_format.startswith("NC"):  # channels to the last axis and back
        dy, x = np.moveaxis(dy, 1, -1), np.moveaxis(x, 1, -1)
    scale, mean, var = (np.asarray(v, np.float64) for v in (scale, mean, var))
    axes = tuple(range(x.ndim - 1))
    m = x.size // x.shape[-1]
    xc = x - mean
    coef0 = 1.0 / np.sqrt(var + eps)
    offset_bp = dy.sum(axis=axes)
    if training:
        sum_dy_xc = (dy * xc).sum(axis=axes)
        scale_bp = sum_dy_xc * coef0
        dx = scale * coef0 * ((dy - offset_bp / m) - xc * coef0**2 * sum_dy_xc / m)
    else:
        scale_bp = (dy * xc).sum(axis=axes) * coef0
        dx = dy * coef0 * scale
    if data_format.startswith("NC"):
        dx = np.moveaxis(dx, -1, 1)
    return dx, scale_bp, offset_bp


def same_pad(size, k, stride, dil):
    eff = (k - 1) * dil + 1
    out = -(-size // stride)
    return max((out - 1) * stride + eff - size, 0) // 2


def dw_bpi_ref(input_sizes, filt, dy, stride, padding, dil=1):
    """Depthwise conv input gradient, NHWC, scatter form, float64."""
    n, ih, iw, c = input_sizes
    fh, fw, _, mult = filt.shape
    filt = filt.astype(np.float64)
    dy = dy.astype(np.float64)
    pt = same_pad(ih, fh, stride, dil) if padding == "SAME" else 0
    pl = same_pad(iw, fw, stride, dil) if padding == "SAME" else 0
    dx = np.zeros((n, ih, iw, c))
    for oh in range(dy.shape[1]):
        for ow in range(dy.shape[2]):
            for kh in range(fh):
                for kw in range(fw):
                    y, x = oh * stride - pt + kh * dil, ow * stride - pl + kw * dil
                    if 0 <= y < ih and 0 <= x < iw:
                        for m in range(mult):
                            dx[:, y, x, :] += filt[kh, kw, :, m] * dy[:, oh, ow, m::mult]
    return dx


# --------------------------------------------------------------- basic commands
p = kforge("help")
check(p.returncode == 0 and "usage" in p.stdout and "kforge run" in p.stdout, "help prints usage")
p = kforge("--help")
check(p.returncode == 0 and "usage" in p.stdout, "--help prints usage")

p = kforge("list")
lines = p.stdout.splitlines()
check(p.returncode == 0 and len(lines) > 0 and all(len(l.split()) >= 2 for l in lines),
      "list prints kernels with their configuration (%d)" % len(lines), p.stdout + p.stderr)

p = kforge("ops")
ops = {l.split("(")[0]: l for l in p.stdout.splitlines()}
want_ops = ["FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3",
            "DepthwiseConv2dNativeBackpropInput"]
check(p.returncode == 0 and all(o in ops for o in want_ops), "ops lists the four ops", p.stdout)
check("reserve_space_3" in ops.get("FusedBatchNormGradV3", "") and
      "reserve_space_5" in ops.get("FusedBatchNormGradV3", ""), "ops shows input and output names",
      ops.get("FusedBatchNormGradV3"))

# --------------------------------------------------------------- batch norm grad
rng = np.random.default_rng(1234)
shape = (2, 4, 5, 3)
x = rng.standard_normal(shape).astype(np.float32) * 2 + 0.5
dy = rng.standard_normal(shape).astype(np.float32)
scale = rng.uniform(0.5, 1.5, 3).astype(np.float32)
mean = x.mean(axis=(0, 1, 2)).astype(np.float32)
var = x.var(axis=(0, 1, 2)).astype(np.float32)
rs3 = np.zeros((7,), np.float32)  # V3's reserve_space_3: anything, ignored
files = {
    "y_backprop": save("dy.npy", dy), "x": save("x.npy", x), "scale": save("scale.npy", scale),
    "reserve_space_1": save("mean.npy", mean), "reserve_space_2": save("var.npy", var),
    "reserve_space_3": save("rs3.npy", rs3),
}
V3_IN = ["y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3"]
V3_OUT = ["x_backprop", "scale_backprop", "offset_backprop", "reserve_space_4", "reserve_space_5"]


def args_for(names, overrides=None):
    f = dict(files, **(overrides or {}))
    return ["%s=%s" % (n, f[n]) for n in names]


def check_bn_outputs(out, tag, dyv, xv, training, eps=1e-4, rtol=1e-5, out_names=V3_OUT):
    check(sorted(os.listdir(out)) == sorted(n + ".npy" for n in out_names),
          tag + ": writes exactly the outputs", sorted(os.listdir(out)))
    got = {n: np.load(os.path.join(out, n + ".npy")) for n in out_names}
    want = bn_grad_ref(dyv, xv, scale, mean, var, eps, training)
    close(got["x_backprop"], want[0], rtol, tag + ": x_backprop matches the float64 reference")
    close(got["scale_backprop"], want[1], rtol, tag + ": scale_backprop matches")
    close(got["offset_backprop"], want[2], rtol, tag + ": offset_backprop matches")
    check(got["scale_backprop"].dtype == np.float32 and got["offset_backprop"].dtype == np.float32,
          tag + ": scale/offset_backprop are float32")
    for n in out_names[3:]:
        check(got[n].dtype == np.float32 and got[n].shape == (0,),
              tag + ": %s is float32 shape (0,)" % n, (got[n].dtype, got[n].shape))
    check(all(open(os.path.join(out, n + ".npy"), "rb").read() == numpy_bytes(got[n])
              for n in out_names), tag + ": files are byte-identical to numpy.save")
    return got


out = fresh_dir("v3")
p = kforge("run", "FusedBatchNormGradV3", "--attr", "data_format=NHWC", "--attr",
           "is_training=true", "--out", out, *args_for(V3_IN))
if check(p.returncode == 0 and p.stderr == "", "run FusedBatchNormGradV3 float NHWC training",
         p.stderr):
    got = check_bn_outputs(out, "V3 float", dy, x, True)
    check(got["x_backprop"].dtype == np.float32 and got["x_backprop"].shape == shape,
          "V3 float: x_backprop is float32 of x's shape")

out = fresh_dir("v3v")
p = kforge("run", "FusedBatchNormGradV3", "--verbose", "--out", out,
           *args_for(V3_IN))
err_lines = p.stderr.splitlines()
check(p.returncode == 0 and err_lines and err_lines[0].startswith("kforge: kernel "),
      "--verbose names the kernel on stderr", p.stderr)

# NCHW: the same data with channels second
out = fresh_dir("v3nchw")
xn, dyn = np.ascontiguousarray(x.transpose(0, 3, 1, 2)), np.ascontiguousarray(dy.transpose(0, 3, 1, 2))
p = kforge("run", "FusedBatchNormGradV3", "--attr", "data_format=NCHW", "--out", out,
           *args_for(V3_IN, {"x": save("x_nchw.npy", xn), "y_backprop": save("dy_nchw.npy", dyn)}))
if check(p.returncode == 0, "run FusedBatchNormGradV3 float NCHW training", p.stderr):
    want = bn_grad_ref(dyn, xn, scale, mean, var, 1e-4, True, "NCHW")
    close(np.load(os.path.join(out, "x_backprop.npy")), want[0], 1e-5, "NCHW: x_backprop matches")
    close(np.load(os.path.join(out, "scale_backprop.npy")), want[1], 1e-5,
          "NCHW: scale_backprop matches")
    close(np.load(os.path.join(out, "offset_backprop.npy")), want[2], 1e-5,
          "NCHW: offset_backprop matches")

# inference mode, V2, another epsilon
out = fresh_dir("v2")
V12_OUT = ["x_backprop", "scale_backprop", "offset_backprop", "reserve_space_3", "reserve_space_4"]
p = kforge("run", "FusedBatchNormGradV2", "--attr", "is_training=false", "--attr", "epsilon=0.001",
           "--out", out, *args_for(V3_IN[:5]))
if check(p.returncode == 0, "run FusedBatchNormGradV2 float inference", p.stderr):
    check_bn_outputs(out, "V2 inference", dy, x, False, eps=1e-3, out_names=V12_OUT)

# V1 (float only, as in TF)
out = fresh_dir("v1")
p = kforge("run", "FusedBatchNormGrad", "--out", out, *args_for(V3_IN[:5]))
if check(p.returncode == 0, "run FusedBatchNormGrad float", p.stderr):
    check_bn_outputs(out, "V1 float", dy, x, True, out_names=V12_OUT)

# half (<f2) through V2
xh, dyh = x.astype(np.float16), dy.astype(np.float16)
out = fresh_dir("v2h")
p = kforge("run", "FusedBatchNormGradV2", "--out", out,
           *args_for(V3_IN[:5], {"x": save("x16.npy", xh), "y_backprop": save("dy16.npy", dyh)}))
if check(p.returncode == 0, "run FusedBatchNormGradV2 half", p.stderr):
    want = bn_grad_ref(dyh, xh, scale, mean, var, 1e-4, True)
    dxh = np.load(os.path.join(out, "x_backprop.npy"))
    check(dxh.dtype == np.float16 and dxh.shape == shape, "half: x_backprop is <f2", dxh.dtype)
    close(dxh, want[0], 2e-3, "half: x_backprop matches (half rounding)")
    close(np.load(os.path.join(out, "scale_backprop.npy")), want[1], 1e-4,
          "half: scale_backprop matches")

# bfloat16 as <u2 bit patterns
xb, dyb = to_bf16_bits(x), to_bf16_bits(dy)
bf_files = {"x": save("x_bf16.npy", xb), "y_backprop": save("dy_bf16.npy", dyb)}
out = fresh_dir("bf16")
p = kforge("run", "FusedBatchNormGradV3", "--attr", "T=bfloat16", "--out", out,
           *args_for(V3_IN, bf_files))
if check(p.returncode == 0, "run FusedBatchNormGradV3 bfloat16 (<u2 + --attr T=bfloat16)",
         p.stderr):
    dxb = np.load(os.path.join(out, "x_backprop.npy"))
    check(dxb.dtype == np.dtype("<u2") and dxb.shape == shape, "bfloat16: x_backprop is <u2",
          dxb.dtype)
    want = bn_grad_ref(from_bf16_bits(dyb), from_bf16_bits(xb), scale, mean, var, 1e-4, True)
    close(from_bf16_bits(dxb), want[0], 1e-2, "bfloat16: x_backprop matches (bf16 rounding)")
    close(np.load(os.path.join(out, "scale_backprop.npy")), want[1], 1e-4,
          "bfloat16: scale_backprop matches")
    close(np.load(os.path.join(out, "offset_backprop.npy")), want[2], 1e-4,
          "bfloat16: offset_backprop matches")

# --------------------------------------------------------------- errors
def expect_error(what, args, contains=None, code=None):
    """Runs twice: --out in a fresh path (must not be created) and in an
    existing directory (must stay unchanged)."""
    fresh = fresh_dir("err")
    existing = tempfile.mkdtemp(prefix="err_existing_", dir=WORK)
    open(os.path.join(existing, "keep.txt"), "w").close()
    before = sorted(os.listdir(existing))
    for out_dir in (fresh, existing):
        p = kforge(*[out_dir if a == "OUT" else a for a in args])
        lines = p.stderr.splitlines()
        ok = (p.returncode != 0 and len(lines) == 1 and lines[0].startswith("kforge: error: ")
              and p.stdout == "")
        detail = "exit %d, stderr %r" % (p.returncode, p.stderr)
        if ok and contains:
            ok = contains in lines[0]
            detail += ", wanted %r" % contains
        if ok and code is not None:
            ok = p.returncode == code
            detail += ", wanted exit %d" % code
        if out_dir == fresh:
            check(ok and not os.path.exists(fresh),
                  what + ": one error line, --out not created", detail)
        else:
            after = sorted(os.listdir(existing))
            check(ok and after == before, what + ": one error line, no new file in --out",
                  detail + ", listing %s" % after)


def v3(*extra, overrides=None, names=V3_IN, op="FusedBatchNormGradV3"):
    return ["run", op, *extra, "--out", "OUT", *args_for(names, overrides)]


raw = open(files["x"], "rb").read()
trunc = os.path.join(WORK, "x_trunc.npy")
open(trunc, "wb").write(raw[:-5])
garbage = os.path.join(WORK, "x_garbage.npy")
open(garbage, "wb").write(raw + b"\0")
big = save("x_big.npy", x.astype(">f4"))
fort = save("x_fortran.npy", np.asfortranarray(x))
u2 = save("x_u2.npy", xb)

expect_error("missing input", v3(names=V3_IN[:5]), "reserve_space_3", code=2)
expect_error("unknown input", v3(names=V3_IN) + ["foo=" + files["x"]], "foo", code=2)
expect_error("duplicate input", v3() + ["x=" + files["x"]], "'x'", code=2)
expect_error("unknown op", ["run", "FusedBatchNormGradV9", "--out", "OUT"] + args_for(V3_IN),
             "FusedBatchNormGradV9", code=2)
expect_error("bad attr value", v3("--attr", "data_format=NCWH"), "NCWH")
expect_error("unknown attr", v3("--attr", "bogus=1"), "bogus")
expect_error("attr without value", v3("--attr", "epsilon"), code=2)
expect_error("missing --out", ["run", "FusedBatchNormGradV3"] + args_for(V3_IN), "--out", code=2)
expect_error("argument without '='", v3() + ["stray"], "stray", code=2)
expect_error("unknown option", v3("--frobnicate"), "--frobnicate", code=2)
expect_error("nonexistent input file", v3(overrides={"x": os.path.join(WORK, "nope.npy")}),
             "nope.npy")
expect_error("truncated .npy", v3(overrides={"x": trunc}), "truncated")
expect_error("trailing garbage .npy", v3(overrides={"x": garbage}), "trailing garbage")
expect_error("big-endian .npy", v3(overrides={"x": big}), "big-endian")
expect_error("fortran-order .npy", v3(overrides={"x": fort}), "fortran_order")
expect_error("<u2 without T=bfloat16", v3(overrides={"x": u2, "y_backprop": save("dy_u2.npy", dyb)}),
             "T=bfloat16")
expect_error("x and y_backprop shapes differ",
             v3(overrides={"y_backprop": save("dy_bad.npy", dy[:, :3])}),
             "x and y_backprop must have same shape")
expect_error("scale of wrong length", v3(overrides={"scale": save("scale4.npy", np.ones(4, np.float32))}),
             "scale")
expect_error("x of wrong dtype", v3(overrides={"x": save("x_i4.npy", x.astype(np.int32))}))
expect_error("double on FusedBatchNormGrad (T is float only)",
             v3(op="FusedBatchNormGrad", names=V3_IN[:5],
                overrides={"x": save("x64.npy", x.astype(np.float64)),
                           "y_backprop": save("dy64.npy", dy.astype(np.float64))}), "double")

p = kforge()
check(p.returncode == 2 and p.stderr.startswith("kforge: error:") and len(p.stderr.splitlines()) == 1,
      "no command: usage error (exit 2)", p.stderr)
p = kforge("frob")
check(p.returncode == 2 and len(p.stderr.splitlines()) == 1, "unknown command: exit 2", p.stderr)

# --out is a regular file
notdir = os.path.join(WORK, "not_a_dir")
open(notdir, "w").write("keep")
p = kforge("run", "FusedBatchNormGradV3", "--out", notdir, *args_for(V3_IN))
check(p.returncode == 1 and len(p.stderr.splitlines()) == 1 and open(notdir).read() == "keep",
      "--out naming a file: error, file untouched", p.stderr)

# all-or-nothing: the 3rd output cannot be renamed into place (a directory
# is in the way), so the first two must not remain and no temp file either
out = tempfile.mkdtemp(prefix="blocked_", dir=WORK)
os.mkdir(os.path.join(out, "offset_backprop.npy"))
os.mkdir(os.path.join(out, "offset_backprop.npy", "sub"))  # non-empty: rename must fail
p = kforge("run", "FusedBatchNormGradV3", "--out", out, *args_for(V3_IN))
check(p.returncode == 1 and len(p.stderr.splitlines()) == 1 and
      os.listdir(out) == ["offset_backprop.npy"],
      "an output that cannot be placed: no partial output, no temp files",
      "%r %s" % (p.stderr, os.listdir(out)))

# --------------------------------------------------------------- depthwise conv backprop input
def dw_case(tag, n, ih, iw, c, mult, k, stride, padding):
    filt = rng.standard_normal((k, k, c, mult)).astype(np.float32)
    if padding == "SAME":
        oh, ow = -(-ih // stride), -(-iw // stride)
    else:
        oh, ow = (ih - k) // stride + 1, (iw - k) // stride + 1
    dyv = rng.standard_normal((n, oh, ow, c * mult)).astype(np.float32)
    sizes = np.array([n, ih, iw, c], np.int32)
    out_dir = fresh_dir("dw")
    p = kforge("run", "DepthwiseConv2dNativeBackpropInput",
               "--attr", "strides=1,%d,%d,1" % (stride, stride), "--attr", "padding=" + padding,
               "--out", out_dir, "input_sizes=" + save(tag + "_sizes.npy", sizes),
               "filter=" + save(tag + "_filter.npy", filt),
               "out_backprop=" + save(tag + "_dy.npy", dyv))
    if check(p.returncode == 0, "run DepthwiseConv2dNativeBackpropInput " + tag, p.stderr):
        check(os.listdir(out_dir) == ["output.npy"], tag + ": writes output.npy",
              os.listdir(out_dir))
        got = np.load(os.path.join(out_dir, "output.npy"))
        check(got.dtype == np.float32, tag + ": output is float32")
        close(got, dw_bpi_ref(sizes, filt, dyv, stride, padding), 1e-5,
              tag + ": output matches the scatter-form reference")


dw_case("3x3 s1 SAME", 1, 5, 5, 4, 1, 3, 1, "SAME")
dw_case("3x3 s2 SAME mult2", 2, 7, 6, 3, 2, 3, 2, "SAME")
dw_case("3x3 s2 VALID", 1, 7, 7, 2, 1, 3, 2, "VALID")

# --------------------------------------------------------------- all or nothing, old files included
# A run leaves every output and the record in place, or --out and the record
# exactly as it found them (byte for byte, same inodes), with no stray
# .kforge-* file (temporaries, backups, journals).
T0 = time.time()
x2 = rng.standard_normal(shape).astype(np.float32) - 0.25

# attrs as TF reads them, and KFORGE_ISA as a person writes it (issue 14)
for lit, want in (("1e-40", np.float32(1e-40)), ("1e-45", np.float32(1e-45)), ("1e-50", np.float32(0)),
                  ("1e40", np.float32(np.inf))):
    out = fresh_dir("eps")
    p = kforge(*[out if a == "OUT" else a for a in v3("--attr", "epsilon=" + lit, "--attr", "is_training=false")])
    ok = p.returncode == 0
    if ok:  # frozen statistics: scale_backprop = sum(dy * (x - mean)) * rsqrt(var + eps), var from the inputs
        var = np.load(files["reserve_space_2"])
        k = 1 / np.sqrt((var + want).astype(np.float32))
        ok = np.allclose(np.load(os.path.join(out, "x_backprop.npy")),
                         dy * (np.load(files["scale"]) * k), rtol=1e-5, atol=1e-6)
    check(ok, "epsilon=%s accepted and used as %r (TF 2.21 accepts it)" % (lit, float(want)), p.stderr)
for val in ("garbage", "0", "AVX-2", "avx512f"):
    out = fresh_dir("isa")
    p = subprocess.run([KFORGE, *[out if a == "OUT" else a for a in v3()]], capture_output=True, text=True,
                       env=dict(os.environ, KFORGE_ISA=val))
    check(p.returncode == 1 and len(p.stderr.splitlines()) == 1 and "KFORGE_ISA" in p.stderr and
          "scalar, avx2, avx512 or neon" in p.stderr and not os.path.exists(out),
          "KFORGE_ISA=%r: one error line naming the accepted values, nothing written" % val, p.stderr)
for val in ("SCALAR", " scalar ", "Scalar"):
    out = fresh_dir("isa")
    p = subprocess.run([KFORGE, "run", "FusedBatchNormGradV3", "--verbose", "--out", out, *args_for(V3_IN)],
                       capture_output=True, text=True, env=dict(os.environ, KFORGE_ISA=val))
    check(p.returncode == 0 and "isa scalar" in p.stderr.splitlines()[0], "KFORGE_ISA=%r selects scalar kernels" % val,
          p.stderr)

dy2 = rng.standard_normal(shape).astype(np.float32) * 0.5
B = {"x": save("x_b.npy", x2), "y_backprop": save("dy_b.npy", dy2)}


def bn_cmd(out, over=None, record=None, name=None):
    cmd = [KFORGE, "run", "FusedBatchNormGradV3", "--out", out, *args_for(V3_IN, over)]
    if record:
        cmd += ["--record", record]
    if name:
        cmd += ["--record-name", name]
    return cmd


def bn_run(out, over=None, record=None, name=None, env=None, preexec=None, prefix=()):
    return subprocess.run([*prefix, *bn_cmd(out, over, record, name)], capture_output=True, text=True,
                          timeout=300, env=env, preexec_fn=preexec)


def outputs(d, names=V3_OUT):
    return {n: open(os.path.join(d, n + ".npy"), "rb").read() for n in names}


def snapshot(*dirs):
    """Every file (bytes and inode) and directory under dirs."""
    snap = {}
    for d in dirs:
        for root, subdirs, names in os.walk(d):
            for n in subdirs:
                snap[os.path.join(root, n)] = "dir"
            for n in names:
                path = os.path.join(root, n)
                snap[path] = (open(path, "rb").read(), os.lstat(path).st_ino)
    return snap


def strays(*dirs):
    return [n for d in dirs for n in os.listdir(d) if n.startswith(".kforge-")]


def one_error(p, contains=None):
    lines = p.stderr.splitlines()
    return (p.returncode == 1 and len(lines) == 1 and lines[0].startswith("kforge: error: ")
            and (contains is None or contains in lines[0]))


def unchanged(what, p, before, dirs, contains=None):
    after = snapshot(*dirs)
    diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    check(one_error(p, contains) and not diff and not strays(*dirs),
          what + ": one error line, --out and the record unchanged, no stray file",
          "exit %d, stderr %r, changed %s, strays %s" % (p.returncode, p.stderr, diff, strays(*dirs)))


ref_a, ref_b = fresh_dir("ref_a"), fresh_dir("ref_b")
ok_refs = bn_run(ref_a).returncode == 0 and bn_run(ref_b, B).returncode == 0
check(ok_refs, "reference runs A and B")
REF_A, REF_B = outputs(ref_a), outputs(ref_b)
check(REF_A != REF_B and all(REF_A[n] != REF_B[n] for n in V3_OUT[:3]), "runs A and B write different outputs")


def scene(tag, runs=1):
    """--out D holding run A's outputs and a user file; the record R/rec.lua
    (another directory, with a user file too) holding `runs` entries of A."""
    d, r = fresh_dir(tag), tempfile.mkdtemp(prefix=tag + "_rec_", dir=WORK)
    rec = os.path.join(r, "rec.lua")
    for i in range(runs):
        p = bn_run(d, record=rec, name="a%d" % i)
        check(p.returncode == 0, tag + ": the earlier run succeeds", p.stderr)
    open(os.path.join(d, "notes.txt"), "w").write("the user's own file\n")
    open(os.path.join(r, "keep.txt"), "w").write("another user file\n")
    return d, r, rec


# 1. a directory in the way of one output (the 2nd): the 1st is not replaced
d, r, rec = scene("inway")
os.remove(os.path.join(d, "scale_backprop.npy"))
os.mkdir(os.path.join(d, "scale_backprop.npy"))
before = snapshot(d, r)
unchanged("a directory in the way of scale_backprop", bn_run(d, B, record=rec), before, (d, r), "is a directory")

# 2. an unwritable --out (as an unprivileged user: root writes anywhere)
d, r, rec = scene("ro")
os.chmod(WORK, 0o755)
for f in os.listdir(WORK):
    if f.endswith(".npy"):
        os.chmod(os.path.join(WORK, f), 0o644)
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
probe = subprocess.run([*NOBODY, "true"], capture_output=True) if shutil.which("setpriv") else None
if os.geteuid() != 0:
    os.chmod(d, 0o555)
    before = snapshot(d, r)
    unchanged("an unwritable --out (chmod 555, not root)", bn_run(d, B), before, (d, r), "Permission denied")
    os.chmod(d, 0o755)
elif probe is not None and probe.returncode == 0:
    os.chmod(d, 0o755)
    before = snapshot(d, r)
    unchanged("an unwritable --out (run as nobody via setpriv)", bn_run(d, B, prefix=NOBODY), before, (d, r),
              "Permission denied")
else:
    print("# skipped: unwritable --out: running as root without a working setpriv")

# 2b. where old files cannot be hard-linked (here: fs.protected_hardlinks and
# root's files, run as nobody in a world-writable --out), they are renamed
# aside instead; a kill mid-commit still rolls back to the very same files
try:
    protected = open("/proc/sys/fs/protected_hardlinks").read().strip() == "1"
except OSError:
    protected = False
if os.geteuid() == 0 and probe is not None and probe.returncode == 0 and protected:
    d, r, rec = scene("nolink")
    os.chmod(d, 0o777)
    before = snapshot(d)
    p = bn_run(d, B, prefix=NOBODY, env=dict(os.environ, KFORGE_TEST_FAULT="kill-after-rename:2"))
    baks = [n for n in os.listdir(d) if n.startswith(".kforge-bak.")]
    check(p.returncode == -signal.SIGKILL and outputs(d)["scale_backprop"] == REF_B["scale_backprop"] and
          len(baks) == 2, "no hard links: killed after the 2nd rename (2 old files renamed aside, not 5 linked)",
          "exit %d, %r, %s" % (p.returncode, p.stderr, baks))
    p = bn_run(d, B, record=os.path.join(d, "notes.txt"), prefix=NOBODY)  # rolls back, then fails
    after = snapshot(d)
    diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    check(p.returncode == 1 and "rolled back" in p.stderr and not diff and not strays(d),
          "no hard links: the next run puts the very same old files back (same inodes)",
          "exit %d, stderr %r, changed %s, strays %s" % (p.returncode, p.stderr, diff, strays(d)))
    p = bn_run(d, B, prefix=NOBODY)
    check(p.returncode == 0 and outputs(d) == REF_B and not strays(d), "no hard links: a run replaces them all",
          "exit %d, stderr %r, strays %s" % (p.returncode, p.stderr, strays(d)))
else:
    print("# skipped: old files without hard links: needs root, setpriv and fs.protected_hardlinks=1")

# 3. a record that cannot be written: the earlier outputs survive
d, r, rec = scene("rec")
before = snapshot(d, r)
unchanged("--record in a directory that does not exist", bn_run(d, B, record="/nonexistent/dir/rec.lua"),
          before, (d, r), "/nonexistent/dir")
os.mkdir(os.path.join(r, "adir"))
before = snapshot(d, r)
unchanged("--record naming a directory", bn_run(d, B, record=os.path.join(r, "adir")), before, (d, r),
          "is a directory")
open(os.path.join(r, "other.lua"), "w").write("return {}\n")
before = snapshot(d, r)
unchanged("--record naming a file that is no manifest", bn_run(d, B, record=os.path.join(r, "other.lua")),
          before, (d, r), "not a manifest")


# 4. a full disk: RLIMIT_FSIZE below one output (EFBIG, not a kill by SIGXFSZ)
def fsize_limit(n):
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))


d, r, rec = scene("full", runs=4)
before = snapshot(d, r)
unchanged("a full disk (RLIMIT_FSIZE 300 bytes < x_backprop)",
          bn_run(d, B, record=rec, preexec=fsize_limit(300)), before, (d, r), "File too large")
biggest = max(len(v) for v in REF_B.values())
check(os.path.getsize(rec) > biggest + 1, "full disk: the record is larger than every output")
unchanged("a full disk for the record only (RLIMIT_FSIZE %d bytes)" % (biggest + 1),
          bn_run(d, B, record=rec, preexec=fsize_limit(biggest + 1)), before, (d, r), "File too large")


# 5. killed (SIGKILL) between two renames: the next run rolls the torn commit back
def fault(what):
    return dict(os.environ, KFORGE_TEST_FAULT=what)


def entries(rec):
    return open(rec).read().count("{ name = ")


d, r, rec = scene("kill")
before = snapshot(d, r)
p = bn_run(d, B, record=rec, name="b", env=fault("kill-after-rename:1"))
check(p.returncode == -signal.SIGKILL and os.path.exists(os.path.join(d, ".kforge-journal")) and
      outputs(d)["x_backprop"] == REF_B["x_backprop"] and outputs(d)["scale_backprop"] == REF_A["scale_backprop"],
      "SIGKILL after the 1st rename: a torn commit with its journal (the fault injection works)",
      "exit %d %s" % (p.returncode, sorted(os.listdir(d))))
p = bn_run(d, B, record=rec, name="b")
check(p.returncode == 0 and "rolled back an interrupted kforge run in " + d in p.stderr and
      outputs(d) == REF_B and entries(rec) == 2 and not strays(d, r),
      "the next run into --out rolls it back, then writes all of its outputs and one record entry",
      "exit %d, stderr %r, %d entries, strays %s" % (p.returncode, p.stderr, entries(rec), strays(d, r)))
after = snapshot(d, r)
check(after[os.path.join(d, "notes.txt")] == before[os.path.join(d, "notes.txt")] and
      after[os.path.join(r, "keep.txt")] == before[os.path.join(r, "keep.txt")], "the user's files survive")

d, r, rec = scene("kill3")
os.mkdir(os.path.join(r, "adir"))
before = snapshot(d, r)
p = bn_run(d, B, record=rec, name="b", env=fault("kill-after-rename:3"))
check(p.returncode == -signal.SIGKILL, "SIGKILL after the 3rd rename", p.returncode)
p = bn_run(d, B, record=os.path.join(r, "adir"))  # fails after taking the lock
lines = p.stderr.splitlines()
after = snapshot(d, r)
diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
check(p.returncode == 1 and len(lines) == 2 and lines[0].startswith("kforge: note: rolled back") and
      lines[1].startswith("kforge: error: ") and not diff and not strays(d, r),
      "a failing run into --out rolls it back first: --out and the record exactly as before the killed run",
      "exit %d, stderr %r, changed %s" % (p.returncode, p.stderr, diff))

# every output and the record renamed, the journal not yet removed; the
# record's directory alone leads the next run to the torn commit
d, r, rec = scene("killrec")
before = snapshot(d, r)
p = bn_run(d, B, record=rec, name="b", env=fault("kill-after-rename:%d" % (len(V3_OUT) + 1)))
check(p.returncode == -signal.SIGKILL and entries(rec) == 2 and outputs(d) == REF_B,
      "SIGKILL after the last rename (record included), before the commit point", p.returncode)
d2 = fresh_dir("killrec_other")
p = bn_run(d2, record=rec, name="c")
after = snapshot(d)
diff = sorted(k for k in set(before) | set(after) if k.startswith(d + os.sep) and before.get(k) != after.get(k))
text = open(rec).read()
check(p.returncode == 0 and "rolled back" in p.stderr and not diff and not strays(d, r) and
      '"a0"' in text and '"b"' not in text and '"c"' in text and outputs(d2) == REF_A,
      "a run into another --out with the same record rolls the whole torn commit back (--out and record)",
      "exit %d, stderr %r, changed %s, record names %s" % (p.returncode, p.stderr, diff,
                                                           [l for l in text.splitlines() if "name =" in l]))

# 6. SIGTERM between two renames: blocked during the commit, which completes
d, r, rec = scene("term")
p = bn_run(d, B, record=rec, name="b", env=fault("term-after-rename:1"))
check(p.returncode == -signal.SIGTERM and outputs(d) == REF_B and entries(rec) == 2 and not strays(d, r),
      "SIGTERM after the 1st rename: the commit completes, then the signal ends the run",
      "exit %d, %d entries, strays %s" % (p.returncode, entries(rec), strays(d, r)))

# a signal while staging (SIGTERM just before the commit): no commit, temporaries removed
d, r, rec = scene("term0")
before = snapshot(d, r)
p = bn_run(d, B, record=rec, name="b", env=fault("term-after-rename:0"))
after = snapshot(d, r)
diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
check(p.returncode == -signal.SIGTERM and "interrupted by signal" in p.stderr and not diff and not strays(d, r),
      "SIGTERM before the commit: the run ends, --out and the record unchanged, no stray file",
      "exit %d, stderr %r, changed %s, strays %s" % (p.returncode, p.stderr, diff, strays(d, r)))
p = bn_run(d, B, record=rec, name="b", env=fault("kill-after-rename:0"))
after = snapshot(d, r)
diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k) and "/.kforge-" not in k)
left = [n for n in strays(d, r) if n.startswith(".kforge-tmp.")]
staging = open(os.path.join(d, ".kforge-journal")).read() if os.path.exists(os.path.join(d, ".kforge-journal")) else ""
check(p.returncode == -signal.SIGKILL and not diff and left and " staging\n" in staging and
      all(n in staging for n in left if n in os.listdir(d)),
      "SIGKILL before the commit: only temporaries are left, each named by a staging journal",
      "exit %d, changed %s, strays %s, journal %r" % (p.returncode, diff, strays(d, r), staging))
p = bn_run(d, B, record=rec, name="b")
check(p.returncode == 0 and p.stderr == "" and outputs(d) == REF_B and entries(rec) == 2 and not strays(d, r),
      "... which the next run removes", "exit %d, stderr %r, strays %s" % (p.returncode, p.stderr, strays(d, r)))

# files that look like ours but no journal names are someone else's: kept
# (issue 28: the record's directory can be any directory)
for where in (d, r):
    open(os.path.join(where, ".kforge-tmp.999999.0"), "w").write("not kforge's")
    open(os.path.join(where, ".kforge-bak.999999.1"), "w").write("not kforge's")
p = bn_run(d, record=rec, name="c")
check(p.returncode == 0 and outputs(d) == REF_A and
      sorted(strays(d)) == sorted(strays(r)) == [".kforge-bak.999999.1", ".kforge-tmp.999999.0"],
      "files named like kforge's temporaries that no journal names are left alone", sorted(os.listdir(d)))
for where in (d, r):
    for n in strays(where):
        os.remove(os.path.join(where, n))

# --------------------------------------------------------------- --record and the files it replaces (issue 28)
LUA = shutil.which("lua5.4")


def lua_loads(path):
    """The manifest as the model loader reads it: Lua data that loads."""
    if not LUA:  # tests/run.sh requires lua5.4 (the generator)
        return False
    q = subprocess.run([LUA, "-e", "local t = dofile(%r); assert(type(t.instances) == 'table')" % path],
                       capture_output=True, text=True)
    return q.returncode == 0


d, r, rec = scene("recname")
for bad_name, why in (("a\nb", "control characters"), ("tab\there", "control characters"),
                      ("del\x7f", "control characters"), ("n" * 257, "over the limit of 256")):
    before = snapshot(d, r)
    p = bn_run(d, B, record=rec, name=bad_name)
    after = snapshot(d, r)
    check(p.returncode == 2 and why in p.stderr and before == after,
          "--record-name %r refused (%s), nothing written" % (bad_name[:12], why), p.stderr)
p = bn_run(d, record=rec, name="n" * 256)
check(p.returncode == 0 and ('"%s"' % ("n" * 256)) in open(rec).read() and lua_loads(rec),
      "a --record-name of 256 bytes is kept whole", p.stderr)
p = bn_run(d, record=rec, name='quote " back \\ slash')
check(p.returncode == 0 and lua_loads(rec), "quotes and backslashes in --record-name are escaped", p.stderr)
p = subprocess.run(bn_cmd(d, record=rec, name="eps") + ["--attr", "epsilon=\n0.001"], capture_output=True, text=True)
check(p.returncode == 0 and "\\0100.001" in open(rec).read() and lua_loads(rec),
      "an --attr value holding a newline (strtof skips it) is recorded escaped, the manifest still loads", p.stderr)

# a corrupt record (its footer intact) is refused, not appended to
text = open(rec).read()
for tag, corrupt in (("an unfinished string", text.replace('name = "a0"', 'name = "a0\n"', 1)),
                     ("a stray token", text.replace("instances = {", "instances = { garbage garbage", 1)),
                     ("code, not data", text.replace("return {", "os.exit(3)\nreturn {", 1))):
    open(rec, "w").write(corrupt)
    before = snapshot(d, r)
    unchanged("--record to a manifest with %s (footer intact)" % tag, bn_run(d, B, record=rec), before, (d, r),
              "not a manifest written by --record")
open(rec, "w").write(text)

# identity and mode of what a run replaces are kept, or the run refuses
os.chmod(rec, 0o600)
p = bn_run(d, B, record=rec, name="private")
check(p.returncode == 0 and os.stat(rec).st_mode & 0o777 == 0o600 and lua_loads(rec),
      "a 0600 record stays 0600 after an append", oct(os.stat(rec).st_mode))
os.chmod(os.path.join(d, "x_backprop.npy"), 0o640)
p = bn_run(d, B)
check(p.returncode == 0 and os.stat(os.path.join(d, "x_backprop.npy")).st_mode & 0o777 == 0o640,
      "a replaced output keeps its mode (0640)", oct(os.stat(os.path.join(d, "x_backprop.npy")).st_mode))
os.chmod(os.path.join(d, "scale_backprop.npy"), 0o400)
before = snapshot(d, r)
unchanged("a read-only (0400) output", bn_run(d, record=rec), before, (d, r), "is read-only (mode 0400)")
os.chmod(os.path.join(d, "scale_backprop.npy"), 0o644)
target = os.path.join(r, "target.lua")
os.rename(rec, target)
os.symlink("target.lua", rec)
before = snapshot(d, r)
unchanged("a record that is a symbolic link", bn_run(d, record=rec), before, (d, r), "is a symbolic link")
check(os.path.islink(rec) and os.readlink(rec) == "target.lua", "... the link is still the link")
os.remove(rec)
os.rename(target, rec)
os.link(rec, os.path.join(r, "hardlink.lua"))
before = snapshot(d, r)
unchanged("a record with a second hard link", bn_run(d, record=rec), before, (d, r), "has 2 hard links")
check(os.stat(rec).st_ino == os.stat(os.path.join(r, "hardlink.lua")).st_ino, "... the two links still share a file")
os.remove(os.path.join(r, "hardlink.lua"))
check(bn_run(d, record=rec, name="after").returncode == 0 and lua_loads(rec), "... and with one link it appends")

# a header declaring a shape the op refuses is refused before any data is read
def npy_header(shape, descr="<f4"):
    d_ = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))
    h = d_ + " " * ((64 - (10 + len(d_) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode()


fifo = os.path.join(WORK, "huge.fifo")
os.mkfifo(fifo)
out = fresh_dir("fifo")
proc = subprocess.Popen(bn_cmd(out, {"y_backprop": fifo}), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
written = 0
try:
    wfd = os.open(fifo, os.O_WRONLY)  # waits for kforge to open it
    os.write(wfd, npy_header((2147483647,)))
    chunk = bytes(1 << 16)
    while written < (64 << 20):  # at most 64 MiB: kforge closes the pipe long before
        written += os.write(wfd, chunk)
except BrokenPipeError:
    pass
finally:
    try:
        os.close(wfd)
    except (OSError, NameError):
        pass
err = proc.communicate(timeout=120)[1]
check(proc.returncode == 1 and "4 or 5-dimensional[2147483647]" in err and written < (4 << 20) and not os.path.exists(out),
      "a pipe whose .npy header declares (2147483647,) <f4 is refused by the op's rank rule before its data is read",
      "exit %d, %r, %d bytes written" % (proc.returncode, err, written))
sparse = os.path.join(WORK, "sparse.npy")
with open(sparse, "wb") as fh:
    hdr = npy_header((2147483647,))
    fh.write(hdr)
    fh.truncate(len(hdr) + 4 * 2147483647)  # 8 GiB that take no disk
proc = subprocess.Popen(bn_cmd(fresh_dir("sparse"), {"x": sparse}), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
_, status, usage = os.wait4(proc.pid, 0)
err = proc.stderr.read().decode()
check(os.WEXITSTATUS(status) == 1 and "4 or 5-dimensional[2147483647]" in err and usage.ru_maxrss < 512 * 1024,
      "a sparse 8 GiB .npy of the wrong rank is refused without being read (peak RSS %d KiB)" % usage.ru_maxrss, err)
os.remove(sparse)

# 7. concurrent runs into one directory are serialized
d = fresh_dir("lock")
check(bn_run(d).returncode == 0, "lock: first run")
fd = os.open(d, os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)
p = subprocess.Popen(bn_cmd(d, B), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
ready = select.select([p.stderr], [], [], 30)[0]
line = p.stderr.readline() if ready else ""
time.sleep(0.2)
still = p.poll() is None
check(line == "kforge: waiting for another kforge run writing to %s\n" % d and still and outputs(d) == REF_A,
      "a run finding --out locked says so in one line and waits", repr(line))
fcntl.flock(fd, fcntl.LOCK_UN)
os.close(fd)
rest = p.communicate(timeout=60)
check(p.returncode == 0 and rest[1] == "" and outputs(d) == REF_B, "... and runs once the lock is released",
      rest[1])

# 200 pairs of runs with different (small) inputs into one directory. Odd
# pairs: an existing --out that the test holds locked until both runs wait
# for it, so they always contend; even pairs: a new --out both create.
SMALL = (1, 2, 2, 3)
sa = {"x": save("x_sa.npy", rng.standard_normal(SMALL).astype(np.float32)),
      "y_backprop": save("dy_sa.npy", rng.standard_normal(SMALL).astype(np.float32))}
sb = {"x": save("x_sb.npy", rng.standard_normal(SMALL).astype(np.float32)),
      "y_backprop": save("dy_sb.npy", rng.standard_normal(SMALL).astype(np.float32))}
ref_sa, ref_sb = fresh_dir("ref_sa"), fresh_dir("ref_sb")
check(bn_run(ref_sa, sa).returncode == 0 and bn_run(ref_sb, sb).returncode == 0, "small reference runs")
REF_SA, REF_SB = outputs(ref_sa), outputs(ref_sb)
WAIT_LINE = "kforge: waiting for another kforge run writing to %s\n"
# (in a tmpfs when there is one: the runs' fsyncs cost ~50 ms each on a disk)
SHM = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else WORK
PAIRS = tempfile.mkdtemp(prefix="kforge_cli_pairs_", dir=SHM)
d = os.path.join(PAIRS, "pairs")
os.mkdir(d)
bad, waited, t = [], 0, time.time()
for i in range(200):
    forced = i % 2 == 1
    target = d if forced else os.path.join(PAIRS, "pair%d" % i)
    if forced:
        fd = os.open(d, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
    cmds = [bn_cmd(target, sa), bn_cmd(target, sb)][:: 1 if i % 4 < 2 else -1]
    procs = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in cmds]
    first = ["", ""]
    if forced:  # until both wait (or exit), then let them go at once
        pending, deadline = [0, 1], time.time() + 60
        while pending and time.time() < deadline:
            ready = select.select([procs[k].stderr for k in pending], [], [], deadline - time.time())[0]
            for k in list(pending):
                if procs[k].stderr in ready:
                    first[k] = procs[k].stderr.readline()
                    pending.remove(k)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    res = [q.communicate(timeout=120) for q in procs]
    errs = [first[k] + res[k][1] for k in range(2)]
    waited += sum(e == WAIT_LINE % target for e in errs)
    got = outputs(target)
    if not (all(q.returncode == 0 for q in procs) and got in (REF_SA, REF_SB)
            and all(e == WAIT_LINE % target if forced else e in ("", WAIT_LINE % target) for e in errs)
            and sorted(os.listdir(target)) == sorted(n + ".npy" for n in V3_OUT)):
        bad.append((i, [q.returncode for q in procs], errs, sorted(os.listdir(target)),
                    [n for n in V3_OUT if got[n] == REF_SA[n]]))
check(not bad, "200 concurrent pairs into one --out: both exit 0, all outputs from one run (%.1f s in %s, %d waited)"
      % (time.time() - t, SHM, waited), bad[:3])
shutil.rmtree(PAIRS, ignore_errors=True)

# concurrent --record appends keep every entry; crossed --out/--record
# directories do not deadlock (locks in a fixed order)
d1, d2 = fresh_dir("cross1"), fresh_dir("cross2")
os.mkdir(d1)
os.mkdir(d2)
r1, r2 = os.path.join(d1, "rec.lua"), os.path.join(d2, "rec.lua")
bad, t = [], time.time()
for i in range(20):
    procs = [subprocess.Popen(bn_cmd(d1, sa, r2, "p%d" % i), stdout=subprocess.PIPE, stderr=subprocess.PIPE),
             subprocess.Popen(bn_cmd(d2, sb, r1, "q%d" % i), stdout=subprocess.PIPE, stderr=subprocess.PIPE),
             subprocess.Popen(bn_cmd(d1, sb, r1, "s%d" % i), stdout=subprocess.PIPE, stderr=subprocess.PIPE)]
    for q in procs:
        q.communicate(timeout=120)
    if any(q.returncode != 0 for q in procs):
        bad.append((i, [q.returncode for q in procs]))
t1, t2 = open(r1).read(), open(r2).read()
names1 = sorted(l.split('"')[1] for l in t1.splitlines() if "{ name = " in l)
names2 = sorted(l.split('"')[1] for l in t2.splitlines() if "{ name = " in l)
check(not bad and names1 == sorted(["q%d" % i for i in range(20)] + ["s%d" % i for i in range(20)]) and
      names2 == sorted("p%d" % i for i in range(20)) and not strays(d1, d2),
      "concurrent --record appends (crossed --out and record directories) keep every entry (%.1f s)"
      % (time.time() - t), "%s %s %s" % (bad[:3], names1, names2))
print("# all-or-nothing and locking tests: %.1f s" % (time.time() - T0))

# --------------------------------------------------------------- kforge plan
# A call's kernel key without data (what per-model builds read: generator/model.lua).
DW = "DepthwiseConv2dNativeBackpropInput"
def plan(*args, stdin=None):
    return subprocess.run([KFORGE, "plan", *args], capture_output=True, text=True, input=stdin)
dw_args = ["--attr", "T=float", "--attr", "strides=1,2,2,1", "--attr", "padding=SAME",
           "--input", "input_sizes=int32:4", "--values", "input_sizes=1,24,24,8",
           "--input", "filter=float:3,3,8,2", "--input", "out_backprop=float:1,12,12,16"]
p = plan(DW, *dw_args)
check(p.returncode == 0 and p.stdout.count("\n") == 1 and 'family = "dwbpi"' in p.stdout and
      '["kh"] = "3"' in p.stdout and '["sh"] = "2"' in p.stdout and '["dm"] = "2"' in p.stdout and
      '["layout"] = "nhwc"' in p.stdout and '["T"] = "f32"' in p.stdout,
      "plan: one Lua line with the call's key", p.stdout + p.stderr)
p = plan(DW, *[a.replace("3,3,8,2", "3,3,4,2") for a in dw_args])
check(p.returncode == 1 and "kforge: error:" in p.stderr and "in_depth" in p.stderr and not p.stdout,
      "plan: a call breaking a TF rule fails with TF's message", p.stderr)
p = plan(DW, "--attr", "T=float")
check(p.returncode == 2 and "missing --input input_sizes" in p.stderr, "plan: every input is needed", p.stderr)
line = " ".join([DW] + dw_args)
p = plan("--batch", stdin=line + "\n\nNoSuchOp\n" + line + "\n")
outs = p.stdout.splitlines()
check(p.returncode == 1 and len(outs) == 3 and outs[0] == outs[2] and 'family = "dwbpi"' in outs[0] and
      outs[1].startswith("{ error = ") and "unknown op" in outs[1],
      "plan --batch: one line per call, errors as { error = ... }, exit 1", p.stdout + p.stderr)

# --------------------------------------------------------------- tune (docs/tuning.md)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
manifest = os.path.join(ROOT, "specs", "models", "kws_dscnn.lua")
wis = os.path.join(WORK, "kws.wisdom")
env = dict(os.environ)
env.pop("KFORGE_WISDOM", None)
env.pop("KFORGE_PLAN", None)
p = subprocess.run([KFORGE, "tune", "--manifest", manifest, "--threads", "2", "--out", wis], capture_output=True,
                   text=True, timeout=300, env=env)
lines = [x for x in p.stdout.splitlines() if " ms " in x]
text = open(wis).read() if os.path.exists(wis) else ""
entries = [x for x in text.splitlines() if x.startswith("cpu=")]
check(p.returncode == 0 and text.startswith("# kforge wisdom 1\n") and entries and
      all(" measured " in x or " wisdom " in x for x in lines) and any(" measured " in x for x in lines) and
      len(entries) == sum(" measured " in x for x in lines),
      "tune: every call of the manifest measured once, the wisdom written", p.stdout + p.stderr)
p = subprocess.run([KFORGE, "tune", "--manifest", manifest, "--threads", "2", "--out", wis], capture_output=True,
                   text=True, timeout=300, env=env)
lines = [x for x in p.stdout.splitlines() if " ms " in x]
check(p.returncode == 0 and lines and all(" wisdom " in x for x in lines) and
      len([x for x in open(wis).read().splitlines() if x.startswith("cpu=")]) == len(entries),
      "tune again: every call from the file's wisdom, nothing measured twice", p.stdout + p.stderr)
p = subprocess.run([KFORGE, "tune", "--manifest", manifest, "--out", wis, "--compare"], capture_output=True,
                   text=True, timeout=300, env=env)
rows = [x for x in p.stdout.splitlines() if "| rule " in x and "| measured plan " in x]
check(p.returncode == 0 and len(rows) == len(lines) and "rule/measured" in p.stdout.splitlines()[-2],
      "tune --compare: the rule's plan timed beside the measured one, per call and in total", p.stdout[-400:] + p.stderr)
wis_cold = os.path.join(WORK, "kws-cold.wisdom")
p = subprocess.run([KFORGE, "tune", "--manifest", manifest, "--out", wis_cold, "--cold", "--compare"],
                   capture_output=True, text=True, timeout=300, env=env)
cold_lines = [x for x in p.stdout.splitlines() if " ms " in x and "| rule " not in x]
text = open(wis_cold).read() if os.path.exists(wis_cold) else ""
check(p.returncode == 0 and len(cold_lines) == len(lines) and any(" measured " in x for x in cold_lines) and
      len([x for x in text.splitlines() if x.startswith("cpu=")]) == len(entries) and
      "cold runs" in p.stdout.splitlines()[-2],
      "tune --cold --compare: every call measured cold, the same entries, cold timings compared",
      p.stdout[-400:] + p.stderr)
wis_b3 = os.path.join(WORK, "kws-b3.wisdom")
p = subprocess.run([KFORGE, "tune", "--manifest", manifest, "--batch-size", "3", "--out", wis_b3], capture_output=True,
                   text=True, timeout=300, env=env)
calls_b3 = [x.split("\t")[2] for x in (open(wis_b3).read() if os.path.exists(wis_b3) else "").splitlines()
            if x.startswith("cpu=")]
check(p.returncode == 0 and calls_b3 and all("3x25x5x" in x and "1x25x5x" not in x for x in calls_b3) and
      len(calls_b3) == len(entries),
      "tune --batch-size 3: every call planned at batch 3", p.stdout[-400:] + p.stderr + str(calls_b3[:2]))
p = subprocess.run([KFORGE, "tune", "--batch", "--batch-size", "3"], input="", capture_output=True, text=True,
                   timeout=60, env=env)
check(p.returncode == 2 and "--batch-size goes with --manifest" in p.stderr, "tune --batch-size without a manifest: usage",
      p.stderr)
# profile: every call timed warm, cold and in model order against its floor, sums, the summary line
for fresh in ([], ["--fresh"]):
    p = subprocess.run([KFORGE, "profile", "--manifest", manifest, "--batch-size", "2", "--top", "3"] + fresh,
                       capture_output=True, text=True, timeout=300, env=env)
    rows = [x for x in p.stdout.splitlines() if x.startswith("kws_dscnn/") and x.rstrip().endswith("x")]
    summary = p.stdout.splitlines()[-1] if p.stdout else ""
    m = re.search(r"(\d+) calls, 1 thread(, fresh outputs)?: cold ([0-9.]+) ms, warm ([0-9.]+) ms, "
                  r"in model order ([0-9.]+) ms, DRAM floor ([0-9.]+) ms", summary)
    order = [float(x.split()[-2]) for x in rows if len(x.split()) > 2]
    check(p.returncode == 0 and m and int(m.group(1)) == len(lines) and len(rows) == len(lines) and
          bool(m.group(2)) == bool(fresh) and len(order) == len(rows) and all(t > 0 for t in order) and
          abs(sum(order) / 1e3 - float(m.group(5))) <= 0.01 * float(m.group(5)) + 0.002 and
          sum("us over a floor of" in x for x in p.stdout.splitlines()) == 3 and
          float(m.group(6)) > 0 and float(m.group(3)) > 0 and "by op" in p.stdout and "by kernel" in p.stdout,
          "profile%s: every call warm, cold and in model order against its DRAM floor, sums by op and kernel, the top 3"
          % (" --fresh" if fresh else ""), p.stdout[-600:] + p.stderr)
p = subprocess.run([KFORGE, "profile", "--manifest", manifest, "--frob"], capture_output=True, text=True, timeout=60,
                   env=env)
check(p.returncode == 2 and "usage: kforge profile" in p.stderr, "profile: usage", p.stderr)
# The plan of a call the wisdom knows comes from it (the reuse step of docs/tuning.md's three commands).
rs = np.random.RandomState(27)
kin = {"y_backprop": rs.uniform(-1, 1, (1, 25, 5, 64)), "x": rs.uniform(-1, 1, (1, 25, 5, 64)),
       "scale": rs.uniform(0.5, 1.5, 64), "reserve_space_1": rs.uniform(-1, 1, 64),
       "reserve_space_2": rs.uniform(0.5, 1.5, 64), "reserve_space_3": np.zeros(())}
kargs = ["%s=%s" % (k, save("kws_" + k + ".npy", v.astype(np.float32))) for k, v in kin.items()]
kcmd = [KFORGE, "run", "FusedBatchNormGradV3", "--attr", "epsilon=0.001", "--attr", "is_training=true", "--verbose",
        "--out", fresh_dir("kws_run"), *kargs]
p = subprocess.run(kcmd, capture_output=True, text=True, timeout=300, env=dict(env, KFORGE_WISDOM=wis))
q = subprocess.run(kcmd[:-len(kargs) - 1] + [fresh_dir("kws_run")] + kargs, capture_output=True, text=True,
                   timeout=300, env=env)
check(p.returncode == 0 and "kforge: plan by wisdom: kernel=" in p.stderr and
      q.returncode == 0 and "kforge: plan by rule: kernel=" in q.stderr,
      "run --verbose: a call the wisdom file knows is planned from it, without the file by the rule",
      p.stderr + q.stderr)
# tune --batch: the calls as lines (tools/tune_calls.lua writes a manifest's; a machine without Lua takes them so).
calls = subprocess.run(["lua5.4", os.path.join(ROOT, "tools", "tune_calls.lua"), manifest], capture_output=True,
                       text=True, timeout=60)
wis2 = os.path.join(WORK, "kws_batch.wisdom")
p = subprocess.run([KFORGE, "tune", "--batch", "--out", wis2], input=calls.stdout, capture_output=True, text=True,
                   timeout=300, env=env)
lines = [x for x in p.stdout.splitlines() if " ms " in x]
check(calls.returncode == 0 and p.returncode == 0 and len(lines) == len(calls.stdout.splitlines()) and
      all(x.startswith("kws_dscnn/") for x in lines) and os.path.exists(wis2),
      "tune --batch: tune_calls.lua's lines, each call named and planned, the wisdom written", p.stdout + p.stderr)
b4 = subprocess.run(["lua5.4", os.path.join(ROOT, "tools", "tune_calls.lua"), "--batch", "4", manifest],
                    capture_output=True, text=True, timeout=60)
pairs = list(zip(calls.stdout.splitlines(), b4.stdout.splitlines()))


def rebatched(one, four):
    """four is one at batch 4: activations' and input_sizes' first dim 4, filters and the rest unchanged."""
    a, b = one.split(), four.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        m = re.match(r"(\w+)=(float|int32):([0-9,]*)$", x) or re.match(r"(input_sizes)=()([0-9,]+)$", x)
        if m and (m.group(2) != "int32" or m.group(1) == "input_sizes") and not m.group(1).startswith("filter") \
                and len(m.group(3).split(",")) == 4:
            if y != x[:len(x) - len(m.group(3))] + "4" + m.group(3)[m.group(3).index(","):]:
                return False
        elif x != y:
            return False
    return True
check(b4.returncode == 0 and pairs and len(pairs) == len(calls.stdout.splitlines()) and
      all(rebatched(x, y) for x, y in pairs),
      "tune_calls.lua --batch 4: every activation and input_sizes at batch 4, filters unchanged",
      b4.stderr + str([p for p in pairs if not rebatched(*p)][:1]))
b4 = subprocess.run(["lua5.4", os.path.join(ROOT, "tools", "tune_calls.lua"), "--batch", "0", manifest],
                    capture_output=True, text=True, timeout=60)
check(b4.returncode == 1 and "--batch takes a positive integer" in b4.stderr and not b4.stdout,
      "tune_calls.lua --batch 0: an error, nothing printed", b4.stderr)
p = subprocess.run([KFORGE, "tune", "--batch", "--out", wis2], input="FusedBatchNormGradV3 --frob 1\n",
                   capture_output=True, text=True, timeout=60, env=env)
check(p.returncode == 1 and "line 1" in p.stderr and "--frob" in p.stderr, "tune --batch: a bad line is named",
      p.stderr)
p = subprocess.run([KFORGE, "tune", "--batch", "--out", os.path.join(WORK, "none.wisdom")], input="\n",
                   capture_output=True, text=True, timeout=60, env=env)
check(p.returncode == 1 and "no calls" in p.stderr and not os.path.exists(os.path.join(WORK, "none.wisdom")),
      "tune --batch without calls: an error, no file written", p.stderr)
p = subprocess.run([KFORGE, "tune", "--manifest", manifest, "--out", wis2], capture_output=True, text=True,
                   timeout=60, env=dict(env, KFORGE_LUA="/nonexistent/lua5.4"))
check(p.returncode == 1 and "needs Lua 5.4" in p.stderr and "tune --batch" in p.stderr,
      "tune --manifest without Lua: says so, and how to pass the calls instead", p.stderr)
bad = os.path.join(WORK, "bad.lua")
with open(bad, "w") as f:
    f.write("return { instances = { { name = \"x\", op = } } }\n")
p = subprocess.run([KFORGE, "tune", "--manifest", bad, "--out", wis], capture_output=True, text=True, timeout=60)
check(p.returncode == 1 and "bad.lua:1:" in p.stderr, "tune: a broken manifest names file and line", p.stderr)
p = subprocess.run([KFORGE, "tune"], capture_output=True, text=True, timeout=60)
check(p.returncode == 2 and "usage: kforge tune" in p.stderr, "tune: usage", p.stderr)

# --------------------------------------------------------------- done
if not os.environ.get("KFORGE_KEEP"):
    shutil.rmtree(WORK, ignore_errors=True)
else:
    print("# kept " + WORK)
print("%d passed, %d failed" % (RESULTS[0], RESULTS[1]))
sys.exit(1 if RESULTS[1] else 0)
