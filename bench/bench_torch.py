#!/usr/bin/python3
"""PyTorch timings of the batch-norm gradient shapes of bench/bench_bngrad.c.

Runs torch.ops.aten.native_batch_norm_backward (train=True, batch
statistics) on the same shapes, channels_last for NHWC, with 1 and all
threads, and writes `key|threads median_ms` lines that kforge_bench reads.
Each configuration runs in a child process once with ATen's default CPU
dispatch and once with ATEN_CPU_CAPABILITY=avx512; the faster median is
kept (docs/performance.md, "Timing rules"); a caller's ATEN_CPU_CAPABILITY
(the AVX2 section's cap) holds alone. glibc is told to keep large
blocks in the heap (otherwise every 25 MB output is a fresh mmap that faults).

    /usr/bin/python3 bench/bench_torch.py OUT_FILE [--reps N] [--filter TEXT]
"""
import os
import subprocess
import sys
import time

SHAPES = [(8, 112, 112, 64), (8, 56, 56, 256), (32, 28, 28, 128),
          (8, 14, 14, 512), (1, 7, 7, 1024), (64, 1, 1, 2048)]


def cases():
    for t in ("f32", "f16", "bf16"):
        for i, s in enumerate(SHAPES):
            if t != "f32" and i >= 3:
                continue
            for layout in ("nhwc", "nchw"):
                yield t, layout, s


def key(t, layout, s):
    return "bngrad %s %s %dx%dx%dx%d" % (t, layout, *s)


def child(reps, flt, threads):
    import torch
    torch.set_num_threads(threads)
    dt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    eps = 1e-3
    for t, layout, (n, h, w, c) in cases():
        k = key(t, layout, (n, h, w, c))
        if flt and flt not in k:
            continue
        g = torch.Generator().manual_seed(1)
        fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
        x = (torch.rand(n, c, h, w, generator=g) * 5 - 2).to(dt[t]).contiguous(memory_format=fmt)
        dy = (torch.rand(n, c, h, w, generator=g) * 2 - 1).to(dt[t]).contiguous(memory_format=fmt)
        scale = torch.rand(c, generator=g) + 0.5
        mean = torch.rand(c, generator=g) * 0.4 + 0.3
        var = torch.rand(c, generator=g) + 1.5
        invstd = 1.0 / torch.sqrt(var + eps)
        fn = torch.ops.aten.native_batch_norm_backward

        def call():
            return fn(dy, x, scale, None, None, mean, invstd, True, eps, [True, True, True])
        try:
            with torch.no_grad():
                for _ in range(5):
                    call()
                ts = []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    call()
                    ts.append((time.perf_counter() - t0) * 1e3)
        except RuntimeError as e:  # e.g. a dtype ATen's CPU kernel lacks
            print("# %s: %s" % (k, str(e).splitlines()[0]), flush=True)
            continue
        ts.sort()
        print("%s|%d %.6f" % (k, threads, ts[len(ts) // 2]), flush=True)


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
            sys.exit(__doc__)
    ncpu = os.cpu_count() or 1
    best = {}
    comments = []
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
                kk = (k, int(th))
                best[kk] = min(best.get(kk, 1e30), float(ms))
    dispatch = "ATEN_CPU_CAPABILITY=" + capped if capped else "faster of default/avx512 dispatch"
    with open(out, "a") as f:
        f.write("# PyTorch %s native_batch_norm_backward, median ms, %s\n"
                % (__import__("torch").__version__, dispatch))
        for c in comments:
            f.write(c + "\n")
        for (k, th), ms in sorted(best.items()):
            f.write("%s|%d %.6f\n" % (k, th, ms))


if __name__ == "__main__":
    main()
