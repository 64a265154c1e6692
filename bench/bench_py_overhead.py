"""Calling overhead of kforge's Python API against the C API.

One small call, FusedBatchNormGradV3 on [1,4,4,8] float (NHWC, is_training,
a cached plan; the kernel itself is ~0.1 us), timed as:
  c      kf_execute from C (bench/bench_call_overhead.c, built here with the
         machine's cc against the installed package's kforge.h and libkforge.so)
  py     kforge.fused_batch_norm_grad_v3(**kw): fresh output arrays
  out    the same with out= (preallocated outputs)
  plan   a kforge.Plan called with the inputs (no cache lookup)
Each figure is the median over 15 repeats of the per-call mean.

    python3 bench/bench_py_overhead.py [--iters N]
"""
import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import kforge
from kforge import _native


def timed(fn, iters, repeats=15):
    fn()
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        runs.append((time.perf_counter() - t0) / iters)
    return statistics.median(runs)


def c_figure(iters):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None, "no C compiler"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_call_overhead.c")
    libdir = os.path.dirname(_native.library_path())
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "bench_call_overhead")
        r = subprocess.run([cc, "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O2", "-I" + _native.include_dir(), src,
                            "-o", exe, "-L" + libdir, "-lkforge", "-Wl,-rpath," + libdir],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            return None, r.stdout
        out = subprocess.run([exe, str(iters * 10)], stdout=subprocess.PIPE, text=True, check=True).stdout
    vals = dict(line.split(" ", 1) for line in out.splitlines())
    return float(vals["c_execute_ns"]) * 1e-9, vals["kernel"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=20000)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 4, 4, 8)).astype(np.float32)
    kw = dict(y_backprop=rng.standard_normal(x.shape).astype(np.float32), x=x, scale=np.ones(8, np.float32),
              reserve_space_1=x.mean((0, 1, 2)), reserve_space_2=x.var((0, 1, 2)) + 0.5,
              reserve_space_3=np.zeros(0, np.float32))
    f = kforge.fused_batch_norm_grad_v3
    out = tuple(np.empty(s, d) for s, d in zip(kforge.plan("FusedBatchNormGradV3", **kw).output_shapes,
                                               kforge.plan("FusedBatchNormGradV3", **kw).output_dtypes))
    p = kforge.plan("FusedBatchNormGradV3", **kw)
    args = tuple(kw.values())
    print("kforge %s, Python %s, numpy %s, %s, %d CPUs" % (kforge.__version__, platform.python_version(),
                                                          np.__version__, platform.machine(), os.cpu_count()))
    c, note = c_figure(a.iters)
    figs = [("py", timed(lambda: f(**kw), a.iters)), ("out", timed(lambda: f(**kw, out=out), a.iters)),
            ("plan", timed(lambda: p(*args), a.iters))]
    print("kernel %s" % p.kernel)
    if c is None:
        print("c      (not measured: %s)" % note.strip().splitlines()[-1:])
    else:
        print("c      %8.2f us per call (kf_execute)" % (c * 1e6))
    for name, t in figs:
        extra = "" if c is None else "  (+%.2f us over C)" % ((t - c) * 1e6)
        print("%-6s %8.2f us per call%s" % (name, t * 1e6, extra))
    return 0


if __name__ == "__main__":
    sys.exit(main())
