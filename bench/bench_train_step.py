"""Times a tf-keras training step with TF's gradients and with kforge's (kforge.tf.enable()).

    python bench/bench_train_step.py [--steps N] [--warmup W] [--rounds R] [--batch B]
                                     [--threads 1,all] [--json OUT]
    python bench/bench_train_step.py --models mobilenet_v2_96,efficientnet_b0 --batch 1 [--threads 1] [--per-call]

(the second form: only the gradient ops of docs/models.md's traced models,
TF's kernels against kforge's, one op-set tf.function each, in model order;
--per-call adds each call alone and repeated, its data warm in the caches,
as issue 16's op-level table measured; --wisdom FILE instead times kforge's
ops with the rule's plans against the same with FILE's wisdom
(KFORGE_WISDOM), one subprocess each, alternating over --rounds: issue 27)

(with the TF venv's python, kforge installed into it: see tests/tf/run_train.sh).

    python bench/bench_train_step.py --keras 3,2 [--step-models M,...] [--threads 1,all]
                                     [--steps N] [--rounds R] [--batch B] [--json OUT]

(the third form, issue 29: whole training steps (compile + train_on_batch)
of MobileNetV2 0.35/96, MobileNetV3-Small and EfficientNet-B0 (128x128 by
default: --step-models) in Keras 3 (`import keras`, TF 2.21's default) and/or
tf-keras ("2"), each with Keras/TF's own kernels and with kforge.tf.enable(),
one subprocess per configuration, interleaved over --rounds; then the
targets: Keras 3 + kforge >= 1.4x Keras 3's own step for MobileNetV2,
>= 1.2x for the others, and no slower than tf-keras + kforge, misses named)

Model: tf_keras.applications.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3),
weights=None, classes=10), float32, batch 16, SGD, Keras compile +
train_on_batch (Keras' traced train function). Each configuration (threads x
gradients) runs in its own subprocess, because TF's thread settings
(tf.config.threading intra/inter op) must be set before TF starts; kforge's
pool follows TF's intra-op setting. "1" is intra = inter = 1; "all" is TF's
default (0, 0: every core). The configurations are interleaved over
--rounds rounds and each one's figure is the median over its rounds of the
median step time over --steps timed steps after --warmup warm-up steps.

The gradient ops' share: in the same subprocess, the FusedBatchNormGradV3 and
DepthwiseConv2dNativeBackprop{Input,Filter} nodes of the traced step (their
attrs and static shapes) are run alone, all of them in one tf.function, on
random inputs: with tf.raw_ops (TF's kernels) or with kforge.tf.ops.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

GRAD_OPS = ("FusedBatchNormGradV3", "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter")


def child(args):
    threads = args.child_threads
    use_kforge = args.child_grads == "kforge"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import numpy as np
    import tensorflow as tf
    n = 0 if threads == "all" else int(threads)
    tf.config.threading.set_intra_op_parallelism_threads(n)
    tf.config.threading.set_inter_op_parallelism_threads(n)
    import tf_keras
    import kforge.tf
    import kforge.tf.keras as kk
    from tensorflow.python.framework import tensor_util

    kforge.tf.load()
    tf_keras.utils.set_random_seed(1)
    model = tf_keras.applications.MobileNetV2(alpha=0.35, input_shape=(96, 96, 3), weights=None, classes=10)
    model.compile(optimizer=tf_keras.optimizers.SGD(0.01), loss=tf_keras.losses.SparseCategoricalCrossentropy())
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (args.batch, 96, 96, 3)).astype(np.float32)
    y = rs.randint(0, 10, args.batch).astype(np.int32)
    if use_kforge:
        kforge.tf.enable()
    for _ in range(args.warmup):
        model.train_on_batch(x, y)
    times = []
    for _ in range(args.steps):
        t = time.perf_counter()
        model.train_on_batch(x, y)
        times.append(time.perf_counter() - t)
    kk.disable()
    types = {}
    for cf in model.train_function._list_all_concrete_functions():
        for op in cf.graph.get_operations():
            types[op.type] = types.get(op.type, 0) + 1
    kforge_nodes = sum(v for k, v in types.items() if k.startswith("Kforge"))

    # the gradient ops alone, on the traced shapes (from TF's own gradient graph)
    loss_fn = tf_keras.losses.SparseCategoricalCrossentropy()

    def grads():
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        return tape.gradient(loss, model.trainable_variables)
    graph = tf.function(grads).get_concrete_function().graph
    calls = []
    for op in graph.get_operations():
        if op.type not in GRAD_OPS:
            continue
        attrs = {a: op.get_attr(a) for a in ("epsilon", "data_format", "is_training", "strides", "padding",
                                             "explicit_paddings", "dilations") if a in op.node_def.attr}
        ins = []
        for t in op.inputs:
            v = tensor_util.constant_value(t)
            ins.append(("const", v) if v is not None and t.dtype == tf.int32 else ("rand", t.shape.as_list() if t.shape.rank is not None else [], t.dtype))
        calls.append((op.type, attrs, ins))

    def make(spec):
        if spec[0] == "const":
            return tf.constant(spec[1])
        shape, dtype = spec[1], spec[2]
        shape = [1 if d is None else d for d in shape]
        if not shape or shape == [0]:
            return tf.zeros(shape, dtype)
        return tf.constant(rs.uniform(0.5, 1.5, shape).astype(dtype.as_numpy_dtype))
    inputs = [[make(s) for s in ins] for _, _, ins in calls]
    from kforge.tf import ops as kops
    names = {
        "FusedBatchNormGradV3": (["y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3"],
                                 tf.raw_ops.FusedBatchNormGradV3, kops.fused_batch_norm_grad_v3),
        "DepthwiseConv2dNativeBackpropInput": (["input_sizes", "filter", "out_backprop"],
                                               tf.raw_ops.DepthwiseConv2dNativeBackpropInput,
                                               kops.depthwise_conv2d_native_backprop_input),
        "DepthwiseConv2dNativeBackpropFilter": (["input", "filter_sizes", "out_backprop"],
                                                tf.raw_ops.DepthwiseConv2dNativeBackpropFilter,
                                                kops.depthwise_conv2d_native_backprop_filter),
    }

    def run_all(which, only=None):
        outs = []
        for (typ, attrs, _), ins in zip(calls, inputs):
            if only and typ not in only:
                continue
            argnames, tf_fn, kf_fn = names[typ]
            fn = kf_fn if which == "kforge" else tf_fn
            r = fn(**dict(zip(argnames, ins)), **attrs)
            outs.append(r[0] if isinstance(r, (tuple, list)) else r)
        return outs

    op_times = {}
    for label, only in (("all", None), ("bn", ("FusedBatchNormGradV3",)),
                        ("dw", ("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"))):
        f = tf.function(lambda only=only: run_all(args.child_grads, only))
        for _ in range(3):
            f()
        ts = []
        for _ in range(max(10, args.steps // 2)):
            t = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t)
        op_times[label] = statistics.median(ts)
    print("RESULT " + json.dumps({
        "threads": threads, "grads": args.child_grads, "step_median_s": statistics.median(times),
        "step_min_s": min(times), "kforge_nodes": kforge_nodes, "grad_calls": len(calls),
        "grad_ops_s": op_times["all"], "bn_grad_s": op_times["bn"], "dw_grad_s": op_times["dw"],
        "kforge_pool_threads": kforge.tf.num_threads()}))


MODELS = {  # docs/models.md's traced models (batch 1), tf_keras.applications constructors
    "mobilenet_v2_96": ("MobileNetV2", dict(alpha=0.35, input_shape=(96, 96, 3))),
    "mobilenet_v2_224": ("MobileNetV2", dict(alpha=1.0, input_shape=(224, 224, 3))),
    "mobilenet_v3_small": ("MobileNetV3Small", dict(input_shape=(224, 224, 3))),
    "efficientnet_b0": ("EfficientNetB0", dict(input_shape=(224, 224, 3))),
    # the resolutions of issue 16's op-level table (batch 16, 8, 16, 8 there: --batch)
    "mobilenet_v2_160": ("MobileNetV2", dict(alpha=1.0, input_shape=(160, 160, 3))),
    "mobilenet_v3_small_128": ("MobileNetV3Small", dict(input_shape=(128, 128, 3))),
    "efficientnet_b0_128": ("EfficientNetB0", dict(input_shape=(128, 128, 3))),
}


def call_times(f, steps, warmup):
    """Seconds of each of steps calls of f(), after warmup calls (also bench_tf_paths.py's)."""
    for _ in range(warmup):
        f()
    ts = []
    for _ in range(steps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return ts


def median_time(f, steps, warmup):
    """Median seconds of f() over steps calls, after warmup calls."""
    return statistics.median(call_times(f, steps, warmup))


def child_ops(args):
    """One model's gradient ops alone, TF's kernels vs kforge's, in one process (threads as given)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import numpy as np
    import tensorflow as tf
    n = 0 if args.child_threads == "all" else int(args.child_threads)
    tf.config.threading.set_intra_op_parallelism_threads(n)
    tf.config.threading.set_inter_op_parallelism_threads(n)
    import tf_keras
    import kforge.tf
    from kforge.tf import ops as kops
    from tensorflow.python.framework import tensor_util
    kforge.tf.load()
    app, kw = MODELS[args.child_model]
    tf_keras.utils.set_random_seed(1)
    model = getattr(tf_keras.applications, app)(weights=None, **kw)
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (args.batch,) + kw["input_shape"]).astype(np.float32)

    def grads():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x, training=True)))
        return tape.gradient(loss, model.trainable_variables)
    graph = tf.function(grads).get_concrete_function().graph
    table = {
        "FusedBatchNormGradV3": (["y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3"],
                                 tf.raw_ops.FusedBatchNormGradV3, kops.fused_batch_norm_grad_v3),
        "DepthwiseConv2dNativeBackpropInput": (["input_sizes", "filter", "out_backprop"],
                                               tf.raw_ops.DepthwiseConv2dNativeBackpropInput,
                                               kops.depthwise_conv2d_native_backprop_input),
        "DepthwiseConv2dNativeBackpropFilter": (["input", "filter_sizes", "out_backprop"],
                                                tf.raw_ops.DepthwiseConv2dNativeBackpropFilter,
                                                kops.depthwise_conv2d_native_backprop_filter),
    }
    calls = []
    for op in graph.get_operations():
        if op.type not in table:
            continue
        attrs = {a: op.get_attr(a) for a in ("epsilon", "data_format", "is_training", "strides", "padding",
                                             "explicit_paddings", "dilations") if a in op.node_def.attr}
        ins = []
        for t in op.inputs:
            v = tensor_util.constant_value(t)
            if v is not None and t.dtype == tf.int32:
                ins.append(tf.constant(v))
            else:
                shape = t.shape.as_list() if t.shape.rank is not None else []
                ins.append(tf.constant(rs.uniform(0.5, 1.5, shape).astype(np.float32)) if shape
                           else tf.zeros([], t.dtype))
        calls.append((op.type, attrs, ins))
    out = {"model": args.child_model, "threads": args.child_threads, "calls": len(calls)}
    for label, only in (("bn", ("FusedBatchNormGradV3",)),
                        ("dw", ("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"))):
        for which in ("tf", "kforge"):
            def run(which=which, only=only):
                res = []
                for typ, attrs, ins in calls:
                    if typ in only:
                        names, tf_fn, kf_fn = table[typ]
                        r = (kf_fn if which == "kforge" else tf_fn)(**dict(zip(names, ins)), **attrs)
                        res.append(r[0] if isinstance(r, (tuple, list)) else r)
                return res
            out["%s_%s_s" % (label, which)] = median_time(tf.function(run), args.steps, 3)
    if args.per_call:
        # Each call alone, repeated, its data warm in the caches: the way a per-call kernel
        # benchmark (and issue 16's op-level table) measures. Per call and side, a tf.function
        # runs the op once and then REPS more times in a tf.while_loop (each iteration's output
        # is the loop's carry, so none is pruned); the call's time is the difference between
        # REPS and 0 iterations over REPS, which cancels TF's per-function overhead. TF's and
        # kforge's are timed back to back per call; the medians are summed.
        reps = 10

        def looped(fn, names, ins, attrs, n):
            def once():
                r = fn(**dict(zip(names, ins)), **attrs)
                return r[0] if isinstance(r, (tuple, list)) else r

            def run():
                return tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, once()), (tf.constant(0), once()))[1]
            return tf.function(run)
        for label, typ_want in (("bn", "FusedBatchNormGradV3"), ("dwi", "DepthwiseConv2dNativeBackpropInput")):
            tot = {"tf": 0.0, "kforge": 0.0}
            for typ, attrs, ins in calls:
                if typ != typ_want:
                    continue
                names, tf_fn, kf_fn = table[typ]
                for which, fn in (("tf", tf_fn), ("kforge", kf_fn)):
                    t0 = median_time(looped(fn, names, ins, attrs, 0), args.steps, 2)
                    tn = median_time(looped(fn, names, ins, attrs, reps), args.steps, 2)
                    tot[which] += max(0.0, tn - t0) / reps
            for which in tot:
                out["%s_%s_percall_s" % (label, which)] = tot[which]
    print("RESULT " + json.dumps(out))


def ops_child(args, m, t, env=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--child-threads", t, "--child-model", m,
           "--steps", str(args.steps), "--batch", str(args.batch)] + (["--per-call"] if args.per_call else [])
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode or not line:
        sys.stderr.write(p.stderr[-3000:])
        sys.exit("bench_train_step: the %s run failed" % m)
    return json.loads(line[-1][7:])


def wisdom_table(args):
    """kforge's gradient ops with the rule's plans and with --wisdom's, alternating subprocesses."""
    rule_env = {k: v for k, v in os.environ.items() if k not in ("KFORGE_WISDOM", "KFORGE_PLAN")}
    wis_env = dict(rule_env, KFORGE_WISDOM=os.path.abspath(args.wisdom))
    rows = []
    for m in args.models.split(","):
        for t in args.threads.split(","):
            runs = {"rule": [], "wisdom": []}
            for _ in range(args.rounds):
                runs["rule"].append(ops_child(args, m, t, rule_env))
                runs["wisdom"].append(ops_child(args, m, t, wis_env))
            med = {(w, k): statistics.median(r[k] for r in runs[w]) for w in runs for k in ("bn_kforge_s", "dw_kforge_s")}
            print("%-20s %-7s kforge's gradient ops, medians of %d rounds: bn rule %7.3f ms wisdom %7.3f ms "
                  "(rule/wisdom %.2fx)   dw rule %7.3f ms wisdom %7.3f ms (rule/wisdom %.2fx)" % (
                      m, t, args.rounds, 1e3 * med["rule", "bn_kforge_s"], 1e3 * med["wisdom", "bn_kforge_s"],
                      med["rule", "bn_kforge_s"] / med["wisdom", "bn_kforge_s"], 1e3 * med["rule", "dw_kforge_s"],
                      1e3 * med["wisdom", "dw_kforge_s"], med["rule", "dw_kforge_s"] / med["wisdom", "dw_kforge_s"]),
                  flush=True)
            rows.append({"model": m, "threads": t, "rule": runs["rule"], "wisdom": runs["wisdom"]})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


def ops_table(args):
    if args.wisdom:
        return wisdom_table(args)
    rows = []
    for m in args.models.split(","):
        for t in args.threads.split(","):
            rows.append(ops_child(args, m, t))
            r = rows[-1]
            print("%-20s %-7s %5d  bn TF %7.2f ms kforge %7.2f ms (%.2fx)   dw TF %7.2f ms kforge %7.2f ms (%.2fx)" % (
                m, t, r["calls"], 1e3 * r["bn_tf_s"], 1e3 * r["bn_kforge_s"], r["bn_tf_s"] / r["bn_kforge_s"],
                1e3 * r["dw_tf_s"], 1e3 * r["dw_kforge_s"], r["dw_tf_s"] / r["dw_kforge_s"]), flush=True)
            if args.per_call:
                print("%-20s %-7s per call, warm: bn TF %7.2f ms kforge %7.2f ms "
                      "(%.2fx)   dw-input TF %7.2f ms kforge %7.2f ms (%.2fx)" % (
                          m, t, 1e3 * r["bn_tf_percall_s"],
                          1e3 * r["bn_kforge_percall_s"], r["bn_tf_percall_s"] / r["bn_kforge_percall_s"],
                          1e3 * r["dwi_tf_percall_s"], 1e3 * r["dwi_kforge_percall_s"],
                          r["dwi_tf_percall_s"] / r["dwi_kforge_percall_s"]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


def traced_op_counts(fn):
    """{op type: nodes of the graph fn traced} (the most over its traces: tf-keras traces its
    step twice): fn a tf.function, or (Keras 3's train_function) a function that calls one
    held in its closure."""
    types, seen, todo = {}, set(), [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        if hasattr(f, "_list_all_concrete_functions"):
            for cf in f._list_all_concrete_functions():
                one = {}
                for op in cf.graph.get_operations():
                    one[op.type] = one.get(op.type, 0) + 1
                for k, v in one.items():
                    types[k] = max(types.get(k, 0), v)
        for cell in getattr(f, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if callable(v):
                todo.append(v)
    return types


def child_keras(args):
    """One whole-model step configuration (--keras 3|2): train_on_batch times and the step's fused nodes."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child_keras == "2":
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
    else:
        os.environ.pop("TF_USE_LEGACY_KERAS", None)
    import warnings
    warnings.simplefilter("ignore")
    import numpy as np
    import tensorflow as tf
    n = 0 if args.child_threads == "all" else int(args.child_threads)
    tf.config.threading.set_intra_op_parallelism_threads(n)
    tf.config.threading.set_inter_op_parallelism_threads(n)
    if args.child_keras == "2":
        import tf_keras as K
    else:
        import keras as K
    import kforge.tf
    kforge.tf.load()
    app, kw = MODELS[args.child_model]
    K.utils.set_random_seed(1)
    model = getattr(K.applications, app)(weights=None, classes=10, **kw)
    model.compile(optimizer=K.optimizers.SGD(0.01), loss=K.losses.SparseCategoricalCrossentropy())
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (args.batch,) + kw["input_shape"]).astype(np.float32)
    y = rs.randint(0, 10, args.batch).astype(np.int32)
    if args.child_grads == "kforge":
        kforge.tf.enable()
    times = call_times(lambda: model.train_on_batch(x, y), args.steps, args.warmup)
    kforge.tf.disable()
    types = traced_op_counts(model.train_function)
    print("RESULT " + json.dumps({
        "model": args.child_model, "keras": args.child_keras, "threads": args.child_threads,
        "grads": args.child_grads, "step_median_s": statistics.median(times), "step_min_s": min(times),
        "fused_bn": types.get("FusedBatchNormV3", 0), "kforge_bn": types.get("KforgeFusedBatchNormGradV3", 0),
        "kforge_nodes": sum(v for k, v in types.items() if k.startswith("Kforge"))}))


# issue 29's targets: Keras 3 + kforge over Keras 3's own step
KERAS_TARGETS = {"mobilenet_v2_96": 1.4}
KERAS_TARGET_OTHERS = 1.2


def keras_table(args):
    kerases = args.keras.split(",")
    models = args.step_models.split(",")
    threads = args.threads.split(",")
    configs = [(m, k, t, g) for m in models for k in kerases for t in threads for g in ("tf", "kforge")]
    results = {}
    for r in range(args.rounds):
        for m, k, t, g in configs:
            cmd = [sys.executable, os.path.abspath(__file__), "--child-threads", t, "--child-model", m,
                   "--child-keras", k, "--child-grads", g, "--steps", str(args.steps),
                   "--warmup", str(args.warmup), "--batch", str(args.batch)]
            p = subprocess.run(cmd, capture_output=True, text=True)
            line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
            if p.returncode or not line:
                sys.stderr.write(p.stderr[-3000:])
                sys.exit("bench_train_step: the %s keras %s threads %s %s run failed" % (m, k, t, g))
            res = json.loads(line[-1][7:])
            results.setdefault((m, k, t, g), []).append(res)
            print("# round %d: %s, Keras %s, threads %s, %s: step %.1f ms (fused bn nodes %d, kforge nodes %d)" % (
                r + 1, m, k, t, g, 1e3 * res["step_median_s"], res["fused_bn"], res["kforge_nodes"]), flush=True)

    def med(key):
        return statistics.median(x["step_median_s"] for x in results[key])
    label = {"3": "Keras 3", "2": "tf-keras"}
    print()
    print("Training step (compile + train_on_batch, SGD), batch %d, float32; medians of %d rounds x %d steps"
          % (args.batch, args.rounds, args.steps))
    print("%-24s %-9s %-7s %-8s %10s %9s %9s %9s" % ("model", "keras", "threads", "kernels", "step ms",
                                                   "speedup", "fused bn", "kforge"))
    rows = []
    for m in models:
        for k in kerases:
            for t in threads:
                base = med((m, k, t, "tf"))
                for g in ("tf", "kforge"):
                    step = med((m, k, t, g))
                    first = results[(m, k, t, g)][0]
                    rows.append({"model": m, "keras": k, "threads": t, "kernels": g, "step_ms": 1e3 * step,
                                 "speedup": base / step, "fused_bn": first["fused_bn"],
                                 "kforge_nodes": first["kforge_nodes"]})
                    print("%-24s %-9s %-7s %-8s %10.1f %8.2fx %9d %9d" % (
                        m, label[k], t, g, 1e3 * step, base / step, first["fused_bn"], first["kforge_nodes"]))
    print()
    misses = []
    if "3" in kerases:
        for m in models:
            want = KERAS_TARGETS.get(m, KERAS_TARGET_OTHERS)
            for t in threads:
                sp = med((m, "3", t, "tf")) / med((m, "3", t, "kforge"))
                ok = sp >= want
                print("target %-24s threads %-4s Keras 3 + kforge vs Keras 3's own: %.2fx (>= %.1fx) %s" % (
                    m, t, sp, want, "met" if ok else "MISSED"))
                if not ok:
                    misses.append("%s threads %s: %.2fx < %.1fx" % (m, t, sp, want))
                if "2" in kerases:
                    k3 = med((m, "3", t, "kforge"))
                    k2 = med((m, "2", t, "kforge"))
                    ok = k3 <= k2
                    print("target %-24s threads %-4s Keras 3 + kforge %.1f ms vs tf-keras + kforge %.1f ms "
                          "(no slower) %s" % (m, t, 1e3 * k3, 1e3 * k2, "met" if ok else "MISSED"))
                    if not ok:
                        misses.append("%s threads %s: Keras 3 + kforge %.2fx tf-keras + kforge's time"
                                      % (m, t, k3 / k2))
    print("targets missed: %s" % ("; ".join(misses) if misses else "none"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", help="instead of the step: the gradient ops alone of these models "
                    "(batch --batch), comma separated: " + ", ".join(MODELS))
    ap.add_argument("--child-model")
    ap.add_argument("--per-call", action="store_true",
                    help="with --models: also each call alone, repeated (warm), TF's and kforge's, summed")
    ap.add_argument("--wisdom", help="with --models: kforge's ops with the rule's plans against this wisdom file's")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", default="1,all")
    ap.add_argument("--json")
    ap.add_argument("--child-threads")
    ap.add_argument("--child-grads")
    ap.add_argument("--keras", help="whole-model steps in these Kerases: 3 (keras), 2 (tf-keras) or 3,2")
    ap.add_argument("--step-models", default="mobilenet_v2_96,mobilenet_v3_small_128,efficientnet_b0_128",
                    help="with --keras: the models (names of --models)")
    ap.add_argument("--child-keras")
    args = ap.parse_args()
    if args.child_keras:
        child_keras(args)
        return 0
    if args.child_threads and args.child_model:
        child_ops(args)
        return 0
    if args.child_threads:
        child(args)
        return 0
    if args.models:
        return ops_table(args)
    if args.keras:
        return keras_table(args)
    results = {}
    configs = [(t, g) for t in args.threads.split(",") for g in ("tf", "kforge")]
    for r in range(args.rounds):
        for t, g in configs:
            cmd = [sys.executable, os.path.abspath(__file__), "--child-threads", t, "--child-grads", g,
                   "--steps", str(args.steps), "--warmup", str(args.warmup), "--batch", str(args.batch)]
            p = subprocess.run(cmd, capture_output=True, text=True)
            line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
            if p.returncode or not line:
                sys.stderr.write(p.stderr[-3000:])
                sys.exit("bench_train_step: the %s/%s run failed" % (t, g))
            res = json.loads(line[-1][7:])
            results.setdefault((t, g), []).append(res)
            print("# round %d: threads %s, %s gradients: step %.1f ms, gradient ops %.1f ms" % (
                r + 1, t, g, 1e3 * res["step_median_s"], 1e3 * res["grad_ops_s"]), flush=True)

    def med(t, g, key):
        return statistics.median(x[key] for x in results[(t, g)])
    print()
    print("MobileNetV2 0.35, 96x96x3, batch %d, float32, Keras train_on_batch; medians of %d rounds x %d steps"
          % (args.batch, args.rounds, args.steps))
    print("%-8s %-8s %10s %8s %14s %9s %9s %10s" % ("threads", "grads", "step ms", "speedup", "grad ops ms",
                                                    "bn ms", "dw ms", "grad share"))
    table = []
    for t in args.threads.split(","):
        base = med(t, "tf", "step_median_s")
        for g in ("tf", "kforge"):
            step = med(t, g, "step_median_s")
            ops_s = med(t, g, "grad_ops_s")
            row = {"threads": t, "grads": g, "step_ms": 1e3 * step, "speedup": base / step,
                   "grad_ops_ms": 1e3 * ops_s, "bn_ms": 1e3 * med(t, g, "bn_grad_s"),
                   "dw_ms": 1e3 * med(t, g, "dw_grad_s"), "grad_share": ops_s / step,
                   "kforge_nodes": results[(t, g)][0]["kforge_nodes"],
                   "grad_calls": results[(t, g)][0]["grad_calls"]}
            table.append(row)
            print("%-8s %-8s %10.1f %7.2fx %14.1f %9.1f %9.1f %9.0f%%" % (
                t, g, row["step_ms"], row["speedup"], row["grad_ops_ms"], row["bn_ms"], row["dw_ms"],
                100 * row["grad_share"]))
    for t in args.threads.split(","):
        tf_ops = med(t, "tf", "grad_ops_s")
        kf_ops = med(t, "kforge", "grad_ops_s")
        print("threads %s: the %d gradient ops alone: TF %.1f ms, kforge %.1f ms (%.2fx)" % (
            t, results[(t, "tf")][0]["grad_calls"], 1e3 * tf_ops, 1e3 * kf_ops, tf_ops / kf_ops))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
