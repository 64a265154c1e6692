"""Where kforge's batch-norm gradients spend their time when TF calls them.

    python bench/bench_tf_paths.py [--model mobilenet_v2_96] [--batch 16] [--runs 40]

(with the TF venv's python, kforge installed into it: see tests/tf/run_train.sh.)

Takes the FusedBatchNormGradV3 calls of one tf-keras training step (the
model's traced gradient graph, bench_train_step.MODELS), random inputs, one
thread, and times the same kernels four ways:
  tf-op        kforge.tf.ops in one tf.function, every call once in model order
  c-api        kforge.raw_ops (ctypes, the C API), same order, outputs allocated
  c-api-out    the same with preallocated out= buffers
  per-call     each call alone, repeated: its data warm in the caches (the
               way a per-call kernel benchmark measures), medians summed
and TF's own kernels (tf.raw_ops) in the first way, alternating with kforge's. Last, issue 16's
op-level method: each call alone, TF's eager and kforge's through the C API,
each less the same call on a 1x1x1xC tensor (the per-call overhead). Medians and minima of
--runs runs (ms). The first three differ by the TF op machinery and output
allocation; the last by the caches.

--per-shape: instead, per distinct call shape of the model (in model order, with its count),
each call alone and warm, three ways interleaved round by round (ABCABC, medians):
  tf     TF's kernel (tf.raw_ops) in a tf.function of --repeat copies of the call (their
         epsilons a float32 step apart, or TF merges them into one)
  kf-op  kforge's TF op, the same graph
  kf-c   kforge's kernel through the C API (ctypes, out=), --repeat calls
per call (us); then the same three in model order, each call timed alone (eager for the
TF ops). kf-op - kf-c is the TF op's per-call cost beyond ctypes' (graph executor,
plan-cache lookup, output allocation); tf / kf-op is what the model-order ratio weighs.
Run it under TF_ENABLE_ONEDNN_OPTS=0 for TF's Eigen kernels, and KFORGE_ISA=avx2 for
kforge's AVX2 kernels (both read at load time).

--isas: per call shape, kforge's kernel (C API plans) as the rule picks it against the
AVX2 one (planned under KFORGE_ISA=avx2, which the runtime reads at each plan), interleaved,
alone-warm, in model order into the same outputs (cold) and into fresh ones held to the end
of the sweep, as a graph holds them (fresh).
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_train_step as B  # noqa: E402 -- the models and the call timer


def timed(fn, runs):
    ts = B.call_times(fn, runs, 3)
    return 1e3 * statistics.median(ts), 1e3 * min(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="mobilenet_v2_96")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--per-shape", action="store_true", help="per distinct call shape (see above)")
    ap.add_argument("--repeat", type=int, default=8, help="--per-shape: calls per timed run")
    ap.add_argument("--isas", action="store_true", help="kforge's chosen kernel against its AVX2 one (see above)")
    args = ap.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import numpy as np
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    import tf_keras
    import kforge
    import kforge.tf
    from kforge.tf import ops as kops
    kforge.tf.load()
    app, kw = B.MODELS[args.model]
    tf_keras.utils.set_random_seed(1)
    model = getattr(tf_keras.applications, app)(weights=None, **kw)
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (args.batch,) + kw["input_shape"]).astype(np.float32)

    def grads():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x, training=True)))
        return tape.gradient(loss, model.trainable_variables)
    graph = tf.function(grads).get_concrete_function().graph
    names = ["y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3"]
    calls = []
    for op in graph.get_operations():
        if op.type != "FusedBatchNormGradV3":
            continue
        attrs = {a: op.get_attr(a) for a in ("epsilon", "data_format", "is_training")}
        ins = [tf.constant(rs.uniform(0.5, 1.5, t.shape.as_list()).astype(np.float32)) if t.shape.rank
               else tf.zeros([], t.dtype) for t in op.inputs]
        calls.append((attrs, ins))

    def graph_of(fn):
        return tf.function(lambda: [fn(**dict(zip(names, ins)), **attrs)[0] for attrs, ins in calls])
    np_calls = [(dict(zip(names, [t.numpy() for t in ins])),
                 {k: (v.decode() if isinstance(v, bytes) else v) for k, v in attrs.items()}) for attrs, ins in calls]
    op = kforge.raw_ops.FusedBatchNormGradV3
    outs = [tuple(np.empty_like(o) for o in op(**i, **a, threads=1)) for i, a in np_calls]

    def c_api():
        for i, a in np_calls:
            op(**i, **a, threads=1)

    def c_api_out():
        for (i, a), o in zip(np_calls, outs):
            op(**i, **a, threads=1, out=o)

    def per_call(runs):
        med = mn = 0.0
        for (i, a), o in zip(np_calls, outs):
            m, n = timed(lambda: op(**i, **a, threads=1, out=o), runs)
            med += m
            mn += n
        return med, mn

    def less_tiny(runs):
        # issue 16's op-level method: each call alone and repeated (TF eager, kforge through the
        # C API), less the same call on a 1x1x1xC tensor (its per-call overhead), summed
        tf_ms = kf_ms = 0.0
        for (attrs, ins), (i, a), o in zip(calls, np_calls, outs):
            c = ins[2].shape[0]
            tiny = [tf.constant(rs.uniform(0.5, 1.5, [1, 1, 1, c]).astype(np.float32))] * 2 + ins[2:]
            if attrs["data_format"] in (b"NCHW", "NCHW"):
                tiny[0] = tiny[1] = tf.reshape(tiny[0], [1, c, 1, 1])
            ti = dict(zip(names, [t.numpy() for t in tiny]))
            to = tuple(np.empty_like(v) for v in op(**ti, **a, threads=1))
            full_tf = timed(lambda: tf.raw_ops.FusedBatchNormGradV3(**dict(zip(names, ins)), **attrs), runs)[0]
            tiny_tf = timed(lambda: tf.raw_ops.FusedBatchNormGradV3(**dict(zip(names, tiny)), **attrs), runs)[0]
            full_kf = timed(lambda: op(**i, **a, threads=1, out=o), runs)[0]
            tiny_kf = timed(lambda: op(**ti, **a, threads=1, out=to), runs)[0]
            tf_ms += max(0.0, full_tf - tiny_tf)
            kf_ms += max(0.0, full_kf - tiny_kf)
        return tf_ms, kf_ms

    if args.isas:
        return isa_compare(args, calls, np_calls, outs)
    if args.per_shape:
        return per_shape(args, calls, np_calls, outs, names, op, kops, tf)
    print("%s, batch %d: %d FusedBatchNormGradV3 calls, 1 thread; median / min of %d runs (ms)"
          % (args.model, args.batch, len(calls), args.runs))
    pair = [graph_of(tf.raw_ops.FusedBatchNormGradV3), graph_of(kops.fused_batch_norm_grad_v3)]
    for f in pair:
        f()
    ts = [[], []]
    for _ in range(args.runs):  # the two graphs alternate (ABAB): load changes fall on both
        for k, f in enumerate(pair):
            ts[k].append(B.call_times(f, 1, 0)[0])
    rows = [("TF's kernels, tf-op", (1e3 * statistics.median(ts[0]), 1e3 * min(ts[0]))),
            ("kforge, tf-op", (1e3 * statistics.median(ts[1]), 1e3 * min(ts[1]))),
            ("kforge, c-api", timed(c_api, args.runs)),
            ("kforge, c-api-out", timed(c_api_out, args.runs)),
            ("kforge, per-call (warm)", per_call(max(5, args.runs // 4)))]
    for label, (m, n) in rows:
        print("  %-26s %8.2f %8.2f" % (label, m, n))
    t_tf, t_kf = less_tiny(max(5, args.runs // 4))
    print("issue 16's method (each call alone, less the same call on 1x1x1xC; medians summed, ms):")
    print("  TF's kernels, eager %8.2f   kforge, c-api %8.2f   (%.2fx)" % (t_tf, t_kf, t_tf / t_kf))
    return 0


def per_shape(args, calls, np_calls, outs, names, op, kops, tf):
    """Per distinct call shape, alone and warm: TF's kernel, kforge's TF op, kforge's C API."""
    import numpy as np

    def aligned_like(v):  # 64-byte aligned as TF's allocator gives (numpy's large arrays are not)
        buf = np.empty(v.nbytes + 64, np.uint8)
        at = -buf.ctypes.data % 64
        return buf[at:at + v.nbytes].view(v.dtype).reshape(v.shape)
    shapes = shapes_of(calls)
    r = args.repeat
    print("%s, batch %d: %d FusedBatchNormGradV3 calls, %d shapes, 1 thread; TF_ENABLE_ONEDNN_OPTS=%s "
          "KFORGE_ISA=%s; each call alone and warm, %d per run, %d rounds interleaved; median us per call"
          % (args.model, args.batch, len(calls), len(shapes), os.environ.get("TF_ENABLE_ONEDNN_OPTS", "(unset)"),
             os.environ.get("KFORGE_ISA", "(unset)"), r, args.runs))
    print("%-22s %3s %9s %9s %9s %7s %9s %7s" % ("y_backprop", "n", "tf", "kf-op", "kf-c", "tf/op", "op-c",
                                               "GB/s-c"))
    tot = [0.0, 0.0, 0.0]
    for shape, count, ns in shapes:
        attrs, ins = calls[ns[0]]
        i, a = np_calls[ns[0]]
        o = tuple(aligned_like(v) for v in outs[ns[0]])
        kw = dict(zip(names, ins))
        # r copies of one call in a graph would be merged into one (common subexpression
        # elimination): each copy's epsilon is one float32 step further, the kernels' time the same
        eps = [float(attrs["epsilon"])]
        for _ in range(r - 1):
            eps.append(float(np.nextafter(np.float32(eps[-1]), np.float32(1))))
        at = [dict(attrs, epsilon=e) for e in eps]
        g_tf = tf.function(lambda: [tf.raw_ops.FusedBatchNormGradV3(**kw, **a)[0] for a in at])
        g_kf = tf.function(lambda: [kops.fused_batch_norm_grad_v3(**kw, **a)[0] for a in at])

        def c_api():
            for _ in range(r):
                op(**i, **a, threads=1, out=o)
        fns = [g_tf, g_kf, c_api]
        for f in fns:
            for _ in range(3):
                f()
        ts = [[], [], []]
        for _ in range(args.runs):  # ABCABC: load changes fall on all three
            for k, f in enumerate(fns):
                ts[k].append(B.call_times(f, 1, 0)[0])
        us = [1e6 * statistics.median(t) / r for t in ts]
        for k in range(3):
            tot[k] += count * us[k]
        nbytes = 3 * 4 * int(np.prod(shape))  # dy and x read, dx written (f32)
        print("%-22s %3d %9.1f %9.1f %9.1f %6.2fx %9.1f %7.1f" % ("x".join(map(str, shape)), count, us[0], us[1],
                                                             us[2], us[0] / us[1], us[1] - us[2],
                                                             nbytes / us[2] / 1e3))
    print("%-22s %3d %9.1f %9.1f %9.1f %6.2fx %9.1f   (sums weighted by count, us)"
          % ("all", len(calls), tot[0], tot[1], tot[2], tot[0] / tot[1], tot[1] - tot[2]))
    # The same calls in model order, each timed alone (eager: TF's dispatch cost is in both TF
    # columns alike): every call's data cold, as it is after the previous call's
    eager = [lambda n: tf.raw_ops.FusedBatchNormGradV3(**dict(zip(names, calls[n][1])), **calls[n][0]),
             lambda n: kops.fused_batch_norm_grad_v3(**dict(zip(names, calls[n][1])), **calls[n][0]),
             lambda n: op(**np_calls[n][0], **np_calls[n][1], threads=1, out=aligned[n])]
    aligned = [tuple(aligned_like(v) for v in o) for o in outs]
    per = [[[] for _ in calls] for _ in eager]
    for rnd in range(args.runs + 2):  # ABCABC sweeps; the first two warm up
        for k, f in enumerate(eager):
            for n in range(len(calls)):
                t = time.perf_counter()
                f(n)
                if rnd >= 2:
                    per[k][n].append(time.perf_counter() - t)
    print("model order, each call timed alone (eager for TF's and kforge's TF op), median us per call:")
    print("%-22s %3s %9s %9s %9s %7s %9s" % ("y_backprop", "n", "tf", "kf-op", "kf-c", "tf/op", "op-c"))
    tot = [0.0, 0.0, 0.0]
    for shape, count, ns in shapes:
        us = [1e6 * statistics.median([t for n in ns for t in per[k][n]]) for k in range(3)]
        for k in range(3):
            tot[k] += count * us[k]
        print("%-22s %3d %9.1f %9.1f %9.1f %6.2fx %9.1f" % ("x".join(map(str, shape)), count, us[0], us[1], us[2],
                                                         us[0] / us[1], us[1] - us[2]))
    print("%-22s %3d %9.1f %9.1f %9.1f %6.2fx %9.1f   (sums weighted by count, us)"
          % ("all", len(calls), tot[0], tot[1], tot[2], tot[0] / tot[1], tot[1] - tot[2]))
    return 0


def shapes_of(calls):
    """[(y_backprop shape, count, indices of its calls)] in model order."""
    shapes = {}
    for n, (_, ins) in enumerate(calls):
        shapes.setdefault(tuple(ins[0].shape.as_list()), []).append(n)
    return [(s, len(ns), ns) for s, ns in shapes.items()]


def isa_compare(args, calls, np_calls, outs):
    """kforge's chosen kernel against its AVX2 kernel, per shape, warm and cold, interleaved."""
    import numpy as np
    import kforge
    aligned = [tuple(np.empty(v.nbytes + 64, np.uint8) for v in o) for o in outs]
    aligned = [tuple(b[-b.ctypes.data % 64:][:v.nbytes].view(v.dtype).reshape(v.shape) for b, v in zip(bs, o))
               for bs, o in zip(aligned, outs)]
    plans = []
    for isa in (None, "avx2"):
        kforge.clear_cache()
        if isa:
            os.environ["KFORGE_ISA"] = isa
        plans.append([kforge.plan("FusedBatchNormGradV3", **i, **a, threads=1) for i, a in np_calls])
        os.environ.pop("KFORGE_ISA", None)
    names = [p[0].kernel for p in plans]
    print("%s, batch %d: kforge's FusedBatchNormGradV3 kernels, C API, 1 thread: A = the rule's (%s), "
          "B = AVX2 (%s); median us per call of %d interleaved rounds" % (args.model, args.batch, names[0],
                                                                          names[1], args.runs))
    cold = [[[] for _ in calls] for _ in range(4)]
    for rnd in range(args.runs + 2):  # model order, ABAB: into the same outputs, then fresh ones
        for k, ps in enumerate(plans):
            for n, (i, _) in enumerate(np_calls):
                t = time.perf_counter()
                ps[n](**i, out=aligned[n])
                if rnd >= 2:
                    cold[k][n].append(time.perf_counter() - t)
        for k, ps in enumerate(plans):
            held = []  # a graph holds every output to its end: each call writes memory not in cache
            for n, (i, _) in enumerate(np_calls):
                t = time.perf_counter()
                held.append(ps[n](**i))
                if rnd >= 2:
                    cold[2 + k][n].append(time.perf_counter() - t)
            del held
    print("cold: model order into the same outputs; fresh: model order, outputs allocated per call and held")
    print("%-22s %3s %8s %8s %6s %8s %8s %6s %8s %8s %6s" % ("y_backprop", "n", "warm A", "warm B", "A/B",
                                                          "cold A", "cold B", "A/B", "fresh A", "fresh B", "A/B"))
    tot = [0.0] * 6
    for shape, count, ns in shapes_of(calls):
        n0 = ns[0]
        i = np_calls[n0][0]
        warm = [[], []]
        for _ in range(args.runs):
            for k, ps in enumerate(plans):
                warm[k].append(B.call_times(lambda: ps[n0](**i, out=aligned[n0]), 1, 2)[0])
        us = [1e6 * statistics.median(warm[0]), 1e6 * statistics.median(warm[1])]
        us += [1e6 * statistics.median([t for n in ns for t in cold[k][n]]) for k in range(4)]
        for k in range(6):
            tot[k] += count * us[k]
        print("%-22s %3d %8.1f %8.1f %5.2fx %8.1f %8.1f %5.2fx %8.1f %8.1f %5.2fx"
              % ("x".join(map(str, shape)), count, us[0], us[1], us[0] / us[1], us[2], us[3], us[2] / us[3],
                 us[4], us[5], us[4] / us[5]))
    print("%-22s %3d %8.1f %8.1f %5.2fx %8.1f %8.1f %5.2fx %8.1f %8.1f %5.2fx   (sums weighted by count, us)"
          % ("all", len(calls), tot[0], tot[1], tot[0] / tot[1], tot[2], tot[3], tot[2] / tot[3],
             tot[4], tot[5], tot[4] / tot[5]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
