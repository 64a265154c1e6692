"""Independent numpy float64 references for the tests (no kforge code), and the
tolerance check per dtype."""
import math

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)

# Tolerance per output dtype, as a fraction of the largest |reference| (plus the same
# fraction of each element): the kernels accumulate in float (double for double) and
# round the result once to the output dtype, so the bound is a few units of the output
# dtype's epsilon times the cancellation in the batch-norm formula.
TOL = {
    F64: 1e-12,  # double accumulation: only summation-order rounding (~1e-16 per op)
    F32: 2e-5,   # float accumulation over <= a few hundred terms (eps 1.2e-7)
    F16: 4e-3,   # output rounded to half (eps 9.8e-4), inputs exact in the reference
    BF16: 3e-2,  # output rounded to bfloat16 (eps 7.8e-3), inputs exact in the reference
}


def check(got, ref, dtype, tol=None):
    """got (any dtype) within TOL[dtype] of ref (float64), relative to max |ref|."""
    tol = TOL[np.dtype(dtype)] if tol is None else tol
    g = np.asarray(got).astype(np.float64)
    assert g.shape == ref.shape, (g.shape, ref.shape)
    scale = max(float(np.max(np.abs(ref))) if ref.size else 0.0, 1e-30)
    err = np.abs(g - ref)
    bound = tol * scale + tol * np.abs(ref)
    bad = err > bound
    assert not bad.any(), "max err %g (bound %g of max|ref| %g) at %s" % (
        float(err.max()), tol, scale, np.argwhere(bad)[:3].tolist())


def rand(rng, shape, dtype, lo=-1.0, hi=1.0):
    """Random values already representable in dtype (so the reference sees the kernel's inputs)."""
    return rng.uniform(lo, hi, shape).astype(dtype)


def f64(a):
    return np.asarray(a).astype(np.float64)


# ------------------------------------------------------------ batch norm gradient
def bn_grad_ref(dy, x, scale, mean, var, eps, is_training, channels_last=True):
    """(x_backprop, scale_backprop, offset_backprop) in float64, NHWC-like or NCHW-like input."""
    dy, x, scale, mean, var = map(f64, (dy, x, scale, mean, var))
    if not channels_last:  # channels at axis 1: move them last
        dy, x = np.moveaxis(dy, 1, -1), np.moveaxis(x, 1, -1)
    c = x.shape[-1]
    dy2, x2 = dy.reshape(-1, c), x.reshape(-1, c)
    m = x2.shape[0]
    xc = x2 - mean
    rs = 1.0 / np.sqrt(var + eps)
    offset_bp = dy2.sum(0)
    scale_bp = (dy2 * xc).sum(0) * rs
    if is_training:
        dx = scale * rs * (dy2 - offset_bp / m - xc * (dy2 * xc).sum(0) / m * rs * rs)
    else:
        dx = dy2 * (scale * rs)
    dx = dx.reshape(dy.shape)
    if not channels_last:
        dx = np.moveaxis(dx, -1, 1)
    return dx, scale_bp, offset_bp


# ------------------------------------------------------------ depthwise gradients (NHWC, direct loops)
def window(size, k, s, d, padding, pads=(0, 0)):
    """(output size, top/left padding) as TF computes them."""
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (size - eff + s) // s, 0
    if padding == "SAME":
        out = -(-size // s)
        return out, max((out - 1) * s + eff - size, 0) // 2
    return (size + pads[0] + pads[1] - eff) // s + 1, pads[0]


def dw_geometry(in_shape, fshape, strides, dilations, padding, explicit):
    _, h, w, _ = in_shape
    kh, kw = fshape[:2]
    ph = (explicit[2], explicit[3]) if padding == "EXPLICIT" else (0, 0)
    pw = (explicit[4], explicit[5]) if padding == "EXPLICIT" else (0, 0)
    oh, pt = window(h, kh, strides[0], dilations[0], padding, ph)
    ow, pl = window(w, kw, strides[1], dilations[1], padding, pw)
    return oh, ow, pt, pl


def dwbpi_ref(in_shape, filt, g, strides, dilations, padding, explicit=()):
    """Input gradient, NHWC: dx[n,ih,iw,c] += g[n,oh,ow,c*M+m] * f[kh,kw,c,m]."""
    f, g = f64(filt), f64(g)
    n, h, w, c = in_shape
    kh, kw, _, mult = f.shape
    oh, ow, pt, pl = dw_geometry(in_shape, f.shape, strides, dilations, padding, explicit)
    assert g.shape == (n, oh, ow, c * mult), (g.shape, (n, oh, ow, c * mult))
    dx = np.zeros(in_shape)
    gm = g.reshape(n, oh, ow, c, mult)
    for y in range(oh):
        for xx in range(ow):
            for i in range(kh):
                ih = y * strides[0] - pt + i * dilations[0]
                if not 0 <= ih < h:
                    continue
                for j in range(kw):
                    iw = xx * strides[1] - pl + j * dilations[1]
                    if 0 <= iw < w:
                        dx[:, ih, iw, :] += (gm[:, y, xx] * f[i, j]).sum(-1)
    return dx


def dwbpf_ref(inp, fshape, g, strides, dilations, padding, explicit=()):
    """Filter gradient, NHWC: df[kh,kw,c,m] += in[n,ih,iw,c] * g[n,oh,ow,c*M+m]."""
    x, g = f64(inp), f64(g)
    n, h, w, c = x.shape
    kh, kw, _, mult = fshape
    oh, ow, pt, pl = dw_geometry(x.shape, fshape, strides, dilations, padding, explicit)
    assert g.shape == (n, oh, ow, c * mult), (g.shape, (n, oh, ow, c * mult))
    df = np.zeros(fshape)
    gm = g.reshape(n, oh, ow, c, mult)
    for y in range(oh):
        for xx in range(ow):
            for i in range(kh):
                ih = y * strides[0] - pt + i * dilations[0]
                if not 0 <= ih < h:
                    continue
                for j in range(kw):
                    iw = xx * strides[1] - pl + j * dilations[1]
                    if 0 <= iw < w:
                        df[i, j] += (x[:, ih, iw, :, None] * gm[:, y, xx]).sum(0)
    return df


def to_nchw(a):
    return np.ascontiguousarray(np.moveaxis(a, -1, 1))


def to_nhwc(a):
    return np.moveaxis(np.asarray(a), 1, -1)


assert math.isclose(window(5, 3, 2, 1, "SAME")[0], 3)
