#!/usr/bin/python3
"""PyTorch timings of the cases of bench/bench_dwbpf.c (DepthwiseConv2dNativeBackpropFilter).

torch.ops.aten.convolution_backward with groups = C, weight gradient only
(what autograd of F.conv2d(groups=C) runs for the filter; the same as
torch.nn.grad.conv2d_weight), channels_last for NHWC, contiguous for NCHW;
how it runs (served row by row to kforge_bench, or every case into a file):
bench/torch_timing.py.

    /usr/bin/python3 bench/bench_torch_dwbpf.py --serve | --prefix | OUT_FILE [--reps N] [--filter TEXT]

PyTorch's weight gradient is [C*M, 1, KH, KW] (kforge writes TF's
[KH, KW, C, M]); no layout change of it is timed. PyTorch takes symmetric
padding only: the stride-2 case runs with padding 1 (same output size and
FLOPs; TF SAME pads 0 before, 1 after). A dtype PyTorch's CPU convolution
does not implement is reported, not timed.
"""
import torch_timing

# (n, h, w, c, k, s, m, layout, dtype), as in bench_dwbpf.c
CASES = [(8, 112, 112, 32, 3, 1, 1, "nhwc", "f32"), (8, 112, 112, 96, 3, 2, 1, "nhwc", "f32"),
         (8, 56, 56, 144, 3, 1, 1, "nhwc", "f32"), (8, 28, 28, 192, 3, 1, 1, "nhwc", "f32"),
         (8, 14, 14, 576, 3, 1, 1, "nhwc", "f32"), (8, 7, 7, 960, 3, 1, 1, "nhwc", "f32"),
         (8, 14, 14, 240, 5, 1, 1, "nhwc", "f32"), (8, 56, 56, 144, 3, 1, 1, "nchw", "f32"),
         (8, 28, 28, 192, 3, 1, 1, "nchw", "f32"), (8, 56, 56, 144, 3, 1, 1, "nhwc", "bf16"),
         (8, 28, 28, 192, 3, 1, 1, "nhwc", "bf16"), (8, 56, 56, 144, 3, 1, 1, "nhwc", "f16"),
         (8, 28, 28, 192, 3, 1, 1, "nhwc", "f16")]


def key(case):
    n, h, w, c, k, s, m, layout, t = case
    return "dwbpf %s %s %dx%dx%dx%d k%d s%d m%d" % (t, layout, n, h, w, c, k, s, m)


def setup(torch, case):
    n, h, w, c, k, s, m, layout, t = case
    dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}[t]
    oh, ow = (h + s - 1) // s, (w + s - 1) // s
    fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
    g = torch.Generator().manual_seed(1)
    x = (torch.rand(n, c, h, w, generator=g) * 2 - 1).to(dt).contiguous(memory_format=fmt)
    dy = (torch.rand(n, c * m, oh, ow, generator=g) * 2 - 1).to(dt).contiguous(memory_format=fmt)
    wt = torch.empty(c * m, 1, k, k, dtype=dt).contiguous(memory_format=fmt)
    fn, pad = torch.ops.aten.convolution_backward, (k - 1) // 2

    def call():  # what autograd of F.conv2d(groups=C) runs for the weight gradient
        return fn(dy, x, wt, None, [s, s], [pad, pad], [1, 1], False, [0, 0], c, [False, True, False])
    r = call()[1]
    if tuple(r.shape) != (c * m, 1, k, k):
        raise RuntimeError("weight gradient of shape %s" % (tuple(r.shape),))
    return call


if __name__ == "__main__":
    torch_timing.main(torch_timing.Family("dwbpf", "aten.convolution_backward(groups=C, weight grad)", CASES, key, setup),
                      __doc__)
