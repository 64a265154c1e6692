"""The PyTorch side of `ninja bench`, shared by bench/bench_torch*.py.

Each of those scripts describes one op family: its key prefix, its cases
(the rows of bench/bench_<family>.c), a case's key, and setup(torch, case),
which builds the case's tensors and returns the call to time. Three ways to
run a script:

    PY SCRIPT --serve       kforge_bench's way (bench/bench_torch_serve.c):
                            it sends "REPS KEY" lines and reads back
                            "MEDIAN_MS", or "- why" for a case PyTorch cannot
                            run, so each row's PyTorch timing comes right
                            after kforge's, under the same load. The threads
                            are the CPUs the process may use (kforge_bench
                            starts 1-thread servers pinned to CPU 0).
    PY SCRIPT --prefix      prints the family's key prefix and exits
    PY SCRIPT OUT [--reps N] [--filter TEXT]
                            every case, 1 and all threads, in child
                            processes, appended to OUT as `key|threads
                            median_ms` lines (kforge_bench --torch OUT):
                            for machines where the bench and PyTorch run
                            apart. With ATen's default dispatch and with
                            ATEN_CPU_CAPABILITY=avx512, the faster kept (a
                            caller's ATEN_CPU_CAPABILITY holds alone).

glibc is told to keep large blocks in the heap (otherwise every large
output is a fresh mmap that faults): kforge_bench sets the same variables
for its servers.
"""
import os
import subprocess
import sys
import time

HEAP_ENV = dict(MALLOC_MMAP_THRESHOLD_="33554432", MALLOC_TRIM_THRESHOLD_="4294967296",
                MALLOC_TOP_PAD_="268435456", OMP_WAIT_POLICY="passive")


class Family:
    def __init__(self, prefix, what, cases, key, setup):
        self.prefix, self.what, self.cases, self.key, self.setup = prefix, what, cases, key, setup


def median_ms(call, reps, warmup=5):
    for _ in range(warmup):
        call()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


def time_case(torch, fam, case, reps):
    """The case's median ms, or a RuntimeError's first line (a str)."""
    try:
        with torch.no_grad():
            return median_ms(fam.setup(torch, case), reps)
    except RuntimeError as e:  # e.g. a dtype ATen's CPU kernel lacks
        return str(e).splitlines()[0] if str(e) else "RuntimeError"


def serve(fam):
    import torch
    torch.set_num_threads(len(os.sched_getaffinity(0)))
    cases = {fam.key(c): c for c in fam.cases}
    print("ready %s" % fam.prefix, flush=True)
    for line in sys.stdin:
        parts = line.rstrip("\n").split(" ", 1)
        if len(parts) != 2 or not parts[0].isdigit() or parts[1] not in cases:
            print("- no such case: %s" % line.strip(), flush=True)
            continue
        r = time_case(torch, fam, cases[parts[1]], int(parts[0]))
        print(("- " + r) if isinstance(r, str) else "%.6f" % r, flush=True)


def child(fam, reps, flt, threads):
    import torch
    torch.set_num_threads(threads)
    for case in fam.cases:
        k = fam.key(case)
        if flt and flt not in k:
            continue
        r = time_case(torch, fam, case, reps)
        print(("# %s: %s" % (k, r)) if isinstance(r, str) else "%s|%d %.6f" % (k, threads, r), flush=True)


def main(fam, doc):
    argv = sys.argv[1:]
    if argv == ["--serve"]:
        return serve(fam)
    if argv == ["--prefix"]:
        return print(fam.prefix)
    if len(argv) == 4 and argv[0] == "--child":
        return child(fam, int(argv[1]), argv[2], int(argv[3]))
    if not argv or argv[0].startswith("-"):
        sys.exit(doc)
    out, reps, flt, args = argv[0], 21, "", argv[1:]
    while args:
        if args[0] == "--reps" and len(args) > 1:
            reps, args = int(args[1]), args[2:]
        elif args[0] == "--filter" and len(args) > 1:
            flt, args = args[1], args[2:]
        else:
            args = args[1:]  # options meant for kforge_bench (BENCH_ARGS goes to both)
    ncpu = os.cpu_count() or 1
    best, comments = {}, []
    capped = os.environ.get("ATEN_CPU_CAPABILITY")
    for cap in (None,) if capped else (None, "avx512"):
        for threads in sorted({1, ncpu}):
            env = dict(os.environ, **HEAP_ENV)
            if cap:
                env["ATEN_CPU_CAPABILITY"] = cap
            cmd = ["taskset", "-c", "0"] if threads == 1 else []
            cmd += [sys.executable, os.path.abspath(sys.argv[0]), "--child", str(reps), flt, str(threads)]
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
        f.write("# PyTorch %s %s, median ms, %s\n" % (__import__("torch").__version__, fam.what, dispatch))
        for c in comments:
            f.write(c + "\n")
        for (k, th), ms in sorted(best.items()):
            f.write("%s|%d %.6f\n" % (k, th, ms))
