#!/usr/bin/python3
"""PyTorch timings of the depthwise cases of bench/bench_dwbpi.c.

torch.ops.aten.convolution_backward with groups = C, input gradient only
(what autograd of F.conv2d(groups=C) runs), channels_last for NHWC, 1 thread (pinned to CPU 0) and all
threads, in child processes with ATen's default dispatch and with
ATEN_CPU_CAPABILITY=avx512 (the faster median is kept; a caller's
ATEN_CPU_CAPABILITY holds alone). Appends
`key|threads median_ms` lines (the convention of bench/bench.h) to OUT_FILE,
so it runs after bench/bench_torch.py:

    /usr/bin/python3 bench/bench_torch_dwbpi.py OUT_FILE [--reps N] [--filter TEXT]

PyTorch takes symmetric padding only: the stride-2 case runs with padding 1
(same output size and FLOPs; TF SAME pads 0 before, 1 after).
"""
import os
import subprocess
import sys
import time

# (n, h, w, c, k, s, m, layout, dtype), as in bench_dwbpi.c
CASES = [(8, 112, 112, 32, 3, 1, 1, "nhwc", "f32"), (8, 112, 112, 96, 3, 2, 1, "nhwc", "f32"),
         (8, 56, 56, 144, 3, 1, 1, "nhwc", "f32"), (8, 28, 28, 192, 3, 1, 1, "nhwc", "f32"),
         (8, 14, 14, 576, 3, 1, 1, "nhwc", "f32"), (8, 7, 7, 960, 3, 1, 1, "nhwc", "f32"),
         (8, 28, 28, 240, 5, 1, 1, "nhwc", "f32"), (8, 56, 56, 32, 3, 1, 2, "nhwc", "f32"),
         (8, 56, 56, 144, 3, 1, 1, "nchw", "f32"), (8, 28, 28, 192, 3, 1, 1, "nchw", "f32"),
         (8, 56, 56, 144, 3, 1, 1, "nhwc", "bf16"), (8, 28, 28, 192, 3, 1, 1, "nhwc", "bf16")]


def key(n, h, w, c, k, s, m, layout, t):
    return "dwbpi %s %s %dx%dx%dx%d k%d s%d m%d" % (t, layout, n, h, w, c, k, s, m)


def child(reps, flt, threads):
    import torch
    torch.set_num_threads(threads)
    dt = {"f32": torch.float32, "bf16": torch.bfloat16}
    for cs in CASES:
        n, h, w, c, k, s, m, layout, t = cs
        kk = key(*cs)
        if flt and flt not in kk:
            continue
        oh, ow = (h + s - 1) // s, (w + s - 1) // s
        fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
        g = torch.Generator().manual_seed(1)
        wt = (torch.rand(c * m, 1, k, k, generator=g) * 2 - 1).to(dt[t])
        dy = (torch.rand(n, c * m, oh, ow, generator=g) * 2 - 1).to(dt[t]).contiguous(memory_format=fmt)

        x = torch.empty(n, c, h, w, dtype=dt[t]).contiguous(memory_format=fmt)
        fn, pad = torch.ops.aten.convolution_backward, (k - 1) // 2

        def call():  # what autograd of F.conv2d(groups=C) runs for the input gradient
            return fn(dy, x, wt, None, [s, s], [pad, pad], [1, 1], False, [0, 0], c, [True, False, False])
        try:
            with torch.no_grad():
                for _ in range(5):
                    call()
                ts = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    call()
                    ts.append((time.perf_counter() - t0) * 1e3)
        except RuntimeError as e:
            print("# %s: %s" % (kk, str(e).splitlines()[0]), flush=True)
            continue
        ts.sort()
        print("%s|%d %.6f" % (kk, threads, ts[len(ts) // 2]), flush=True)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--child":
        child(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out, reps, flt = sys.argv[1], 21, ""
    args = sys.argv[2:]
    while args:
        if args[0] == "--reps":
            reps = int(args[1]); args = args[2:]
        elif args[0] == "--filter":
            flt = args[1]; args = args[2:]
        else:
            args = args[1:]  # options meant for the other scripts
    ncpu = os.cpu_count() or 1
    best, comments = {}, []
    # A cap set by the caller (bench/run.sh's AVX2 section) holds: no avx512 pass then.
    capped = os.environ.get("ATEN_CPU_CAPABILITY")
    for cap in (None,) if capped else (None, "avx512"):
        for threads in sorted({1, ncpu}):
            env = dict(os.environ)
            env.update(MALLOC_MMAP_THRESHOLD_="33554432", MALLOC_TRIM_THRESHOLD_="4294967296",
                       MALLOC_TOP_PAD_="268435456", OMP_WAIT_POLICY="passive")
            if cap:
                env["ATEN_CPU_CAPABILITY"] = cap
            cmd = ["taskset", "-c", "0"] if threads == 1 else []
            cmd += [sys.executable, os.path.abspath(__file__), "--child", str(reps), flt, str(threads)]
            r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, universal_newlines=True)
            for line in r.stdout.splitlines():
                if line.startswith("#"):
                    if line not in comments:
                        comments.append(line)
                    continue
                k, rest = line.split("|")
                th, ms = rest.split()
                best[(k, int(th))] = min(best.get((k, int(th)), 1e30), float(ms))
    dispatch = "ATEN_CPU_CAPABILITY=" + capped if capped else "faster of default/avx512 dispatch"
    with open(out, "a") as f:
        f.write("# PyTorch %s aten.convolution_backward(groups=C, input grad), median ms, %s\n"
                % (__import__("torch").__version__, dispatch))
        for c in comments:
            f.write(c + "\n")
        for (k, th), ms in sorted(best.items()):
            f.write("%s|%d %.6f\n" % (k, th, ms))


if __name__ == "__main__":
    main()
