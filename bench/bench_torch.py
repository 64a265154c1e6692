#!/usr/bin/python3
"""PyTorch timings of the batch-norm gradient shapes of bench/bench_bngrad.c.

torch.ops.aten.native_batch_norm_backward (train=True, batch statistics)
on the same shapes, channels_last for NHWC; how it runs (served row by row
to kforge_bench, or every case into a file): bench/torch_timing.py.

    /usr/bin/python3 bench/bench_torch.py --serve | --prefix | OUT_FILE [--reps N] [--filter TEXT]
"""
import torch_timing

SHAPES = [(8, 112, 112, 64), (8, 56, 56, 256), (32, 28, 28, 128),
          (8, 14, 14, 512), (1, 7, 7, 1024), (64, 1, 1, 2048)]


def cases():
    for t in ("f32", "f16", "bf16"):
        for i, s in enumerate(SHAPES):
            if t != "f32" and i >= 3:
                continue
            for layout in ("nhwc", "nchw"):
                yield t, layout, s


def key(case):
    t, layout, s = case
    return "bngrad %s %s %dx%dx%dx%d" % (t, layout, *s)


def setup(torch, case):
    t, layout, (n, h, w, c) = case
    dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[t]
    eps = 1e-3
    g = torch.Generator().manual_seed(1)
    fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
    x = (torch.rand(n, c, h, w, generator=g) * 5 - 2).to(dt).contiguous(memory_format=fmt)
    dy = (torch.rand(n, c, h, w, generator=g) * 2 - 1).to(dt).contiguous(memory_format=fmt)
    scale = torch.rand(c, generator=g) + 0.5
    mean = torch.rand(c, generator=g) * 0.4 + 0.3
    var = torch.rand(c, generator=g) + 1.5
    invstd = 1.0 / torch.sqrt(var + eps)
    fn = torch.ops.aten.native_batch_norm_backward
    return lambda: fn(dy, x, scale, None, None, mean, invstd, True, eps, [True, True, True])


if __name__ == "__main__":
    torch_timing.main(torch_timing.Family("bngrad", "native_batch_norm_backward", list(cases()), key, setup), __doc__)
