"""Each gradient call of a model in model order, TF's kernel against kforge's, from TF's profiler.

    bash bench/grad_nodes.sh [--model mobilenet_v2_96] [--rounds 10] [--batch 16] [--threads 1] [--consume]

bench_train_step.py times the model's FusedBatchNormGradV3 and depthwise gradient calls
together, as one tf.function per side (TF's kernels, kforge's), in model order. This script
runs the same two functions, interleaved, under TF's profiler and splits them per graph node:
the median over rounds of each call's kernel time on each side, the sums per op, and the calls
sorted from where kforge trails TF most. Kernel times leave out what both sides share (the
executor, the function call, the outputs' hand-over), so their ratio is the ops' own.
--consume adds a reduce_sum of each batch-norm dx in the call's scope (counted with the call),
as a step's next op reads it: streaming choices then pay their cost on the consumer.
The CPU it ran on heads the output; docs/performance.md, "Per call in model order".
"""
import argparse
import collections
import os
import platform
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            info = dict(line.split(":", 1) for line in f if ":" in line)
        return "%s family %s model %s (%s)" % (info.get("vendor_id\t", "?").strip(), info.get("cpu family\t", "?").strip(),
                                              info.get("model\t\t", "?").strip(), info.get("model name\t", "?").strip())
    except OSError:
        return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="mobilenet_v2_96")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--consume", action="store_true")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import numpy as np
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    import kforge.tf
    import bench_train_step as bts
    import step_profile
    kforge.tf.load()
    calls, table = bts.model_gradient_calls(args.model, args.batch)

    def op_set(which):
        def run():
            outs = []
            for i, (typ, attrs, ins) in enumerate(calls):
                names, tf_fn, kf_fn = table[typ]
                with tf.name_scope("call%03d" % i):
                    r = (kf_fn if which == "kforge" else tf_fn)(**dict(zip(names, ins)), **attrs)
                    o = r[0] if isinstance(r, (tuple, list)) else r
                    if args.consume and typ.startswith("FusedBatchNormGrad"):
                        o = tf.reduce_sum(o, axis=[0, 1, 2])
                outs.append(o)
            return outs
        f = tf.function(run)
        for _ in range(3):
            f()
        return f
    sides = {w: op_set(w) for w in ("tf", "kforge")}
    spans, events = step_profile.trace(args.rounds, sides)
    starts = [sp[0] for sp in spans]
    per = collections.Counter()  # (round span, call) -> us, the call's kernels summed
    for start, dur, name in events:
        if name.startswith("call") and ":" in name:  # "callNNN/<op or consumer>:<type>"
            i = step_profile.span_of(spans, starts, start)
            if i >= 0:
                per[(i, name.split("/", 1)[0])] += dur / 1e6
    times = collections.defaultdict(list)
    for (i, node), us in per.items():
        times[(spans[i][2], node)].append(us)
    rows = []
    for i, (typ, attrs, ins) in enumerate(calls):
        node = "call%03d" % i
        t, k = (statistics.median(times[(w, node)]) if times[(w, node)] else float("nan") for w in ("tf", "kforge"))
        shape = max((a.shape.as_list() for a in ins if a.dtype != tf.int32 and a.shape.rank == 4),
                    key=lambda s: np.prod(s), default=[])  # x (or dy), not the filter
        rows.append((node, typ, "x".join(map(str, shape)), "s%d" % attrs["strides"][1] if "strides" in attrs else "", t, k))
    print("%s, %s, batch %d, %d thread(s), %d rounds%s: kernel time per call in model order, medians (us)" % (
        cpu_name(), args.model, args.batch, args.threads, args.rounds, ", batch-norm dx consumed" if args.consume else ""))
    by = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for _, typ, _, _, t, k in rows:
        by[typ][0] += t
        by[typ][1] += k
        by[typ][2] += 1
    tt, kk = sum(r[4] for r in rows), sum(r[5] for r in rows)
    for typ, (t, k, n) in sorted(by.items()):
        print("  %-38s %3d calls  TF %9.0f  kforge %9.0f  %.2fx" % (typ, n, t, k, t / k))
    print("  %-38s %3d calls  TF %9.0f  kforge %9.0f  %.2fx" % ("all", len(rows), tt, kk, tt / kk))
    print("the %d calls where kforge trails TF most (kforge - TF):" % min(args.top, len(rows)))
    for node, typ, shape, st, t, k in sorted(rows, key=lambda r: r[4] - r[5])[:args.top]:
        print("  %s %-36s %-14s %-3s TF %7.1f  kforge %7.1f  %.2fx" % (node, typ, shape, st, t, k, t / k))


if __name__ == "__main__":
    main()
