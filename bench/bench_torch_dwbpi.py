#!/usr/bin/python3
"""PyTorch timings of the depthwise cases of bench/bench_dwbpi.c.

torch.ops.aten.convolution_backward with groups = C, input gradient only
(what autograd of F.conv2d(groups=C) runs), channels_last for NHWC; how it
runs (served row by row to kforge_bench, or every case into a file):
bench/torch_timing.py.

    /usr/bin/python3 bench/bench_torch_dwbpi.py --serve | --prefix | OUT_FILE [--reps N] [--filter TEXT]

PyTorch takes symmetric padding only: the stride-2 case runs with padding 1
(same output size and FLOPs; TF SAME pads 0 before, 1 after).
"""
import torch_timing

# (n, h, w, c, k, s, m, layout, dtype), as in bench_dwbpi.c
CASES = [(8, 112, 112, 32, 3, 1, 1, "nhwc", "f32"), (8, 112, 112, 96, 3, 2, 1, "nhwc", "f32"),
         (8, 56, 56, 144, 3, 1, 1, "nhwc", "f32"), (8, 28, 28, 192, 3, 1, 1, "nhwc", "f32"),
         (8, 14, 14, 576, 3, 1, 1, "nhwc", "f32"), (8, 7, 7, 960, 3, 1, 1, "nhwc", "f32"),
         (8, 28, 28, 240, 5, 1, 1, "nhwc", "f32"), (8, 56, 56, 32, 3, 1, 2, "nhwc", "f32"),
         (8, 56, 56, 144, 3, 1, 1, "nchw", "f32"), (8, 28, 28, 192, 3, 1, 1, "nchw", "f32"),
         (8, 56, 56, 144, 3, 1, 1, "nhwc", "bf16"), (8, 28, 28, 192, 3, 1, 1, "nhwc", "bf16")]


def key(case):
    n, h, w, c, k, s, m, layout, t = case
    return "dwbpi %s %s %dx%dx%dx%d k%d s%d m%d" % (t, layout, n, h, w, c, k, s, m)


def setup(torch, case):
    n, h, w, c, k, s, m, layout, t = case
    dt = {"f32": torch.float32, "bf16": torch.bfloat16}[t]
    oh, ow = (h + s - 1) // s, (w + s - 1) // s
    fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
    g = torch.Generator().manual_seed(1)
    wt = (torch.rand(c * m, 1, k, k, generator=g) * 2 - 1).to(dt)
    dy = (torch.rand(n, c * m, oh, ow, generator=g) * 2 - 1).to(dt).contiguous(memory_format=fmt)
    x = torch.empty(n, c, h, w, dtype=dt).contiguous(memory_format=fmt)
    fn, pad = torch.ops.aten.convolution_backward, (k - 1) // 2
    # what autograd of F.conv2d(groups=C) runs for the input gradient
    return lambda: fn(dy, x, wt, None, [s, s], [pad, pad], [1, 1], False, [0, 0], c, [True, False, False])


if __name__ == "__main__":
    torch_timing.main(torch_timing.Family("dwbpi", "aten.convolution_backward(groups=C, input grad)", CASES, key, setup),
                      __doc__)
