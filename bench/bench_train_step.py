"""Times Keras training steps with TF's kernels and with kforge's (kforge.tf.enable()).

    python bench/bench_train_step.py --targets [--rounds R] [--steps N] [--threads 1,all]
        every target line below, then "targets missed: ..." (bench/train_targets.sh runs it);
        issue 27's: `kforge tune --manifest specs/models/mobilenet_v2_96.lua --batch-size B --cold`
        into build/bench/, then the gradient ops with that wisdom against the rule's plans
    python bench/bench_train_step.py [--rounds R] [--steps N] [--threads 1,all]
        issue 26: tf-keras MobileNetV2 0.35/96, batch 16: the whole step, and its gradient
        ops alone in model order against TF's kernels and against their DRAM floor
    python bench/bench_train_step.py --keras 3,2 [--step-models M,...] [--profile P] [--verbose]
        issue 29: whole steps of MobileNetV2 0.35/96, MobileNetV3-Small and EfficientNet-B0
        (128x128) in Keras 3 (`import keras`) and tf-keras ("2"), each Keras' own against
        kforge; Keras 3's pair also under TF's profiler (step_profile.py) for the Amdahl
        bound of the ops kforge replaces (--verbose: per op type)
    python bench/bench_train_step.py --models mobilenet_v2_96,efficientnet_b0 --batch 1 [--per-call]
        only the gradient ops of docs/models.md's traced models, TF's kernels against
        kforge's, in model order (--per-call: each call alone, warm, as issue 16 measured; --wisdom FILE:
        kforge's ops with the rule's plans against FILE's wisdom, both in one process (the rule's
        graphs plan before the file is loaded), interleaved over --rounds, and issue 27's
        traced-model line against the ops' DRAM floor; first, how many of the calls the file knows)

(with the TF venv's python, kforge installed into it: see tests/tf/run_train.sh).

Steps: compile + train_on_batch, SGD, float32, weights=None, 10 classes. One
subprocess per thread setting ("1": TF's intra = inter-op threads 1; "all":
TF's default, every core; TF's threads must be set before TF starts, and
kforge's pool follows TF's intra-op setting) and model. Inside it, every
configuration (Keras x own kernels / kforge) is built and traced with its
own kforge state, then all are timed in --rounds rounds, the order rotated
each round; a round's figure is the median of --steps steps. A speedup is
the median of the per-round ratios, printed with their range: on a loaded
host a load change then falls on both sides of a ratio alike. CPU time is
printed beside the wall time (at 1 thread it does not count the host's
other jobs).

The gradient ops: the FusedBatchNormGradV3 and DepthwiseConv2dNativeBackprop
{Input,Filter} nodes of the traced step (attrs and static shapes) run alone,
all in one tf.function, on random inputs: tf.raw_ops (TF's kernels) or
kforge.tf.ops. Their DRAM floor: the bytes of their inputs and outputs
over the bandwidth of a 1-thread 128 MiB copy, measured in the same process.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import step_profile  # noqa: E402 -- the profiler split of a step



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


def gradient_calls(model, x, rs):
    """The FusedBatchNormGradV3 and depthwise gradient nodes of the model's traced gradient
    graph (TF's own gradients), in model order, as [(op type, attrs, input tensors)] with
    random float inputs of the traced shapes and the int32 size inputs' constant values;
    and {op type: (input names, TF's raw op, kforge's op)}."""
    import numpy as np
    import tensorflow as tf
    from kforge.tf import ops as kops
    from tensorflow.python.framework import tensor_util

    def grads():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(model(x, training=True)))
        return tape.gradient(loss, model.trainable_variables)
    import kforge.tf
    with kforge.tf.gradients(False):  # TF's own gradient graph, whatever the state
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
    return calls, table


def model_gradient_calls(name, batch):
    """The tf-keras model MODELS[name] (seeded weights) and gradient_calls() of it at batch,
    on a seeded random input: (calls, table)."""
    import numpy as np
    import tf_keras
    app, kw = MODELS[name]
    tf_keras.utils.set_random_seed(1)
    model = getattr(tf_keras.applications, app)(weights=None, **kw)
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (batch,) + kw["input_shape"]).astype(np.float32)
    return gradient_calls(model, x, rs)


def child_ops(args):
    """One model's gradient ops alone, TF's kernels vs kforge's, in one process (threads as given)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import tensorflow as tf
    n = 0 if args.child_threads == "all" else int(args.child_threads)
    tf.config.threading.set_intra_op_parallelism_threads(n)
    tf.config.threading.set_inter_op_parallelism_threads(n)
    import kforge.tf
    kforge.tf.load()
    calls, table = model_gradient_calls(args.child_model, args.batch)
    out = {"model": args.child_model, "threads": args.child_threads, "calls": len(calls)}
    if args.child_wisdom:  # the rule's plans and the file's, in this one process
        print("RESULT " + json.dumps(wisdom_pair(args, tf, calls, table)))
        return
    if args.child_once:  # plan (and run) each call once: what the plans find in KFORGE_WISDOM
        distinct = set()
        for typ, attrs, ins in calls:
            names, _, kf_fn = table[typ]
            kf_fn(**dict(zip(names, ins)), **attrs)
            distinct.add((typ, repr(sorted(attrs.items())), tuple(
                repr(t.numpy().tolist()) if t.dtype == tf.int32 else tuple(t.shape.as_list()) for t in ins)))
        out["distinct"] = len(distinct)
        print("RESULT " + json.dumps(out))
        return
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
        # the group's DRAM floor: the bytes of its inputs and outputs (issue 27's target line)
        moved = 0
        for typ, attrs, ins in calls:
            if typ in only:
                names, _, kf_fn = table[typ]
                r = kf_fn(**dict(zip(names, ins)), **attrs)
                moved += sum(t.numpy().nbytes for t in ins if t.dtype != tf.int32)
                moved += sum(t.numpy().nbytes for t in (r if isinstance(r, (tuple, list)) else [r]))
        out["%s_bytes" % label] = moved
    out["copy_bandwidth"] = copy_bandwidth()
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


def wisdom_pair(args, tf, calls, table):
    """kforge's gradient ops (batch norm, depthwise) planned by the rule and by --child-wisdom's
    file, timed interleaved in this process (interleave()): the rule's graphs make their plans
    first, with no wisdom loaded; then the file is imported and a second copy of each graph
    plans from it (each graph node keeps the plan it made). Also each group's bytes and the
    1-thread copy bandwidth, for the DRAM floor."""
    import kforge.wisdom
    groups = (("bn", ("FusedBatchNormGradV3",)),
              ("dw", ("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter")))

    def op_set(only):
        def run():
            res = []
            for typ, attrs, ins in calls:
                if typ in only:
                    names, _, kf_fn = table[typ]
                    r = kf_fn(**dict(zip(names, ins)), **attrs)
                    res.append(r[0] if isinstance(r, (tuple, list)) else r)
            return res
        f = tf.function(run)
        f()  # traced and planned now
        return f
    if kforge.wisdom.count():
        sys.exit("bench_train_step: the rule's graphs need a process without wisdom (unset KFORGE_WISDOM)")
    sets = {label + "_rule": op_set(only) for label, only in groups}
    kforge.wisdom.load(args.child_wisdom)
    sets.update({label + "_wisdom": op_set(only) for label, only in groups})
    out = {"rounds": interleave(sets, args.rounds, max(10, args.steps)), "copy_bandwidth": copy_bandwidth()}
    for label, only in groups:
        moved = 0
        for typ, attrs, ins in calls:
            if typ in only:
                names, _, kf_fn = table[typ]
                r = kf_fn(**dict(zip(names, ins)), **attrs)
                moved += sum(x.numpy().nbytes for x in ins if x.dtype != tf.int32)
                moved += sum(x.numpy().nbytes for x in (r if isinstance(r, (tuple, list)) else [r]))
        out[label + "_bytes"] = moved
    return out


def ops_child(args, m, t, env=None, once=False):
    cmd = [sys.executable, os.path.abspath(__file__), "--child-threads", t, "--child-model", m,
           "--steps", str(args.steps), "--batch", str(args.batch)] + (["--per-call"] if args.per_call else [])
    cmd += ["--child-once"] if once else []
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode or not line:
        sys.stderr.write(p.stderr[-3000:])
        sys.exit("bench_train_step: the %s run failed" % m)
    return json.loads(line[-1][7:])


def wisdom_coverage(args, m, t, path):
    """(entries the model's calls found in the wisdom file, distinct calls): one child plans
    every call under KFORGE_PLAN=measure with a copy of the file; what it adds, it lacked."""
    import shutil
    import tempfile

    def entries(f):
        with open(f) as fh:
            return sum(1 for ln in fh if ln.startswith("cpu="))
    with tempfile.TemporaryDirectory() as d:
        copy = os.path.join(d, "copy.wisdom")
        shutil.copyfile(path, copy)
        before = entries(copy)
        env = {k: v for k, v in os.environ.items() if k not in ("KFORGE_WISDOM", "KFORGE_PLAN")}
        distinct = ops_child(args, m, t, dict(env, KFORGE_PLAN="measure", KFORGE_WISDOM=copy), once=True)["distinct"]
        return distinct - (entries(copy) - before), distinct


def wisdom_rounds(args, m, t):
    """{"rule": [per round: {bn_kforge_s, dw_kforge_s, bn_cpu_s, dw_cpu_s, bytes, bandwidth}],
    "wisdom": [...]}: kforge's gradient ops with the rule's plans and with --wisdom's, interleaved
    in one subprocess over --rounds (wisdom_pair)."""
    env = {k: v for k, v in os.environ.items() if k not in ("KFORGE_WISDOM", "KFORGE_PLAN")}
    cmd = [sys.executable, os.path.abspath(__file__), "--child-threads", t, "--child-model", m,
           "--steps", str(args.steps), "--batch", str(args.batch), "--rounds", str(args.rounds),
           "--child-wisdom", os.path.abspath(args.wisdom)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode or not line:
        sys.stderr.write(p.stderr[-3000:])
        sys.exit("bench_train_step: the %s wisdom run failed" % m)
    r = json.loads(line[-1][7:])
    runs = {"rule": [], "wisdom": []}
    for w in runs:
        for i in range(args.rounds):
            runs[w].append({"bn_kforge_s": r["rounds"]["bn_" + w][i][0], "dw_kforge_s": r["rounds"]["dw_" + w][i][0],
                            "bn_cpu_s": r["rounds"]["bn_" + w][i][1], "dw_cpu_s": r["rounds"]["dw_" + w][i][1],
                            "bn_bytes": r["bn_bytes"], "dw_bytes": r["dw_bytes"],
                            "copy_bandwidth": r["copy_bandwidth"]})
    return runs


def wisdom_table(args):
    """kforge's gradient ops with the rule's plans and with --wisdom's, alternating subprocesses,
    then issue 27's traced-model target line per model and thread setting."""
    from train_step_targets import issue27_line
    rows, misses = [], []
    for m in args.models.split(","):
        for t in args.threads.split(","):
            covered, distinct = wisdom_coverage(args, m, t, args.wisdom)
            print("%-20s %-7s the wisdom file knows %d of the %d distinct calls" % (m, t, covered, distinct),
                  flush=True)
            runs = wisdom_rounds(args, m, t)
            med = {(w, k): statistics.median(r[k] for r in runs[w]) for w in runs for k in ("bn_kforge_s", "dw_kforge_s")}
            print("%-20s %-7s kforge's gradient ops, one process, medians of %d interleaved rounds: bn rule %7.3f ms wisdom %7.3f ms "
                  "(rule/wisdom %.2fx)   dw rule %7.3f ms wisdom %7.3f ms (rule/wisdom %.2fx)" % (
                      m, t, args.rounds, 1e3 * med["rule", "bn_kforge_s"], 1e3 * med["wisdom", "bn_kforge_s"],
                      med["rule", "bn_kforge_s"] / med["wisdom", "bn_kforge_s"], 1e3 * med["rule", "dw_kforge_s"],
                      1e3 * med["wisdom", "dw_kforge_s"], med["rule", "dw_kforge_s"] / med["wisdom", "dw_kforge_s"]),
                  flush=True)
            miss = issue27_line(m, t, runs, (covered, distinct))
            misses += [miss] if miss else []
            rows.append({"model": m, "threads": t, "rule": runs["rule"], "wisdom": runs["wisdom"],
                         "covered": covered, "distinct": distinct})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    print("targets missed: %s" % ("; ".join(misses) if misses else "none"))
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


def interleave(runners, rounds, steps):
    """{label: [(wall s, cpu s) per round]}: each round times steps calls of every runner
    (medians of the round), in an order rotated each round (AB, BA, ...), so that a change of
    the host's load falls on every runner alike. cpu is the process's CPU time: at 1 thread
    it does not count the time the host's other jobs took the core."""
    labels = list(runners)
    out = {label: [] for label in labels}
    for label in labels:  # each warm again once all are built (the first round ran 2-10x slow)
        for _ in range(2):
            runners[label]()
    for r in range(rounds):
        k = r % len(labels)
        for label in labels[k:] + labels[:k]:
            walls, cpus = [], []
            for _ in range(steps):
                c, t = time.process_time(), time.perf_counter()
                runners[label]()
                walls.append(time.perf_counter() - t)
                cpus.append(time.process_time() - c)
            out[label].append((statistics.median(walls), statistics.median(cpus)))
    return out


def set_threads(tf, threads):
    n = 0 if threads == "all" else int(threads)
    tf.config.threading.set_intra_op_parallelism_threads(n)
    tf.config.threading.set_inter_op_parallelism_threads(n)


def set_kforge(on):
    import kforge.tf
    if on:
        kforge.tf.enable()
    else:
        kforge.tf.disable()


def step_models(K, app, kw, batch, warmup, prefix=""):
    """{prefix+"tf": step fn, prefix+"kforge": step fn} for two equal models (same seed), one
    traced with Keras/TF's own kernels and one with kforge.tf.enable(); each step fn sets the
    state it was traced with (no retrace expected; a retrace would keep its kernels), then runs
    train_on_batch. Also {label: model}."""
    import numpy as np
    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (batch,) + kw["input_shape"]).astype(np.float32)
    y = rs.randint(0, 10, batch).astype(np.int32)
    steps, models = {}, {}
    for g in ("tf", "kforge"):
        K.utils.set_random_seed(1)
        model = getattr(K.applications, app)(weights=None, classes=10, **kw)
        model.compile(optimizer=K.optimizers.SGD(0.01), loss=K.losses.SparseCategoricalCrossentropy())
        set_kforge(g == "kforge")
        for _ in range(max(1, warmup)):
            model.train_on_batch(x, y)

        def step(model=model, on=(g == "kforge")):
            set_kforge(on)
            model.train_on_batch(x, y)
        steps[prefix + g] = step
        models[prefix + g] = model
    set_kforge(False)
    return steps, models


def copy_bandwidth():
    """Bytes per second of a 1-thread copy of 128 MiB (read + write counted), best of 5."""
    import numpy as np
    a = np.ones(32 << 20, np.float32)
    b = np.empty_like(a)
    best = min(call_times(lambda: np.copyto(b, a), 5, 1))
    return 2 * a.nbytes / best


def child_issue26(args):
    """Issue 26's MobileNetV2 step (tf-keras), TF's gradients vs kforge's, interleaved in one
    process; the gradient ops alone in model order, TF's kernels vs kforge's, interleaved; at 1
    thread their DRAM floor (bytes in and out over a measured copy bandwidth)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import numpy as np
    import tensorflow as tf
    set_threads(tf, args.child_threads)
    import tf_keras
    import kforge.tf
    kforge.tf.load()
    app, kw = MODELS["mobilenet_v2_96"]
    steps, models = step_models(tf_keras, app, kw, args.batch, args.warmup)
    nodes = {g: traced_op_counts(m.train_function) for g, m in models.items()}
    step_rounds = interleave(steps, args.rounds, args.steps)

    rs = np.random.RandomState(0)
    x = rs.uniform(-1, 1, (args.batch,) + kw["input_shape"]).astype(np.float32)
    calls, table = gradient_calls(models["tf"], x, rs)

    def op_set(which, only=None):
        def run():
            outs = []
            for typ, attrs, ins in calls:
                if only and typ not in only:
                    continue
                names, tf_fn, kf_fn = table[typ]
                r = (kf_fn if which == "kforge" else tf_fn)(**dict(zip(names, ins)), **attrs)
                outs.append(r[0] if isinstance(r, (tuple, list)) else r)
            return outs
        f = tf.function(run)
        for _ in range(3):
            f()
        return f
    bn, dw = ("FusedBatchNormGradV3",), ("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter")
    ops = {"%s_%s" % (label, g): op_set(g, only) for label, only in (("all", None), ("bn", bn), ("dw", dw))
           for g in ("tf", "kforge")}
    op_rounds = interleave(ops, args.rounds, max(10, args.steps))
    out = {"threads": args.child_threads, "steps": step_rounds, "ops": op_rounds, "grad_calls": len(calls),
           "kforge_nodes": {g: sum(v for k, v in n.items() if k.startswith("Kforge")) for g, n in nodes.items()},
           "kforge_pool_threads": kforge.tf.num_threads()}
    if args.child_threads == "1":
        moved = 0
        for typ, attrs, ins in calls:
            names, _, kf_fn = table[typ]
            r = kf_fn(**dict(zip(names, ins)), **attrs)
            outs = r if isinstance(r, (tuple, list)) else [r]
            moved += sum(t.numpy().nbytes for t in ins if t.dtype != tf.int32)
            moved += sum(t.numpy().nbytes for t in outs)
        out["bytes_moved"] = moved
        out["copy_bandwidth"] = copy_bandwidth()
    print("RESULT " + json.dumps(out))


def child_keras(args):
    """One model and thread setting (--keras): each Keras' step with its own kernels and with
    kforge, all in one process, interleaved; then Keras 3's pair under TF's profiler."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.pop("TF_USE_LEGACY_KERAS", None)  # tf.keras stays Keras 3; tf_keras is imported by name
    import warnings
    warnings.simplefilter("ignore")
    import tensorflow as tf
    set_threads(tf, args.child_threads)
    import kforge.tf
    kforge.tf.load()
    app, kw = MODELS[args.child_model]
    steps, models, bn_res = {}, {}, {}
    for k in args.child_keras.split(","):
        if k == "2":
            import tf_keras as K
            from tf_keras.layers import BatchNormalization as BN
        else:
            import keras as K
            from keras.layers import BatchNormalization as BN
        s, m = step_models(K, app, kw, args.batch, args.warmup, prefix=k + "/")
        steps.update(s)
        models.update(m)
        for label, model in m.items():
            bn_res[label] = step_profile.bn_scopes(model, BN)
    nodes = {label: traced_op_counts(m.train_function) for label, m in models.items()}
    rounds = interleave(steps, args.rounds, args.steps)
    prof = {}
    if args.profile and "3/tf" in steps:
        pair = {label: steps[label] for label in ("3/tf", "3/kforge", "2/kforge") if label in steps}
        prof = step_profile.profile(args.profile, pair, bn_res)
    from kforge.tf import keras3
    print("RESULT " + json.dumps({
        "model": args.child_model, "threads": args.child_threads, "rounds": rounds, "profile": prof,
        "fused_bn": {label: n.get("FusedBatchNormV3", 0) for label, n in nodes.items()},
        "kforge_nodes": {label: sum(v for k, v in n.items() if k.startswith("Kforge")) for label, n in nodes.items()},
        "keras3_fallbacks": keras3.fallbacks()}))


def run_child(cmd, what):
    p = subprocess.run([sys.executable, os.path.abspath(__file__)] + cmd, capture_output=True, text=True)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode or not line:
        sys.stderr.write(p.stderr[-3000:])
        sys.exit("bench_train_step: the %s run failed" % what)
    return json.loads(line[-1][7:])


def common_args(args):
    return ["--steps", str(args.steps), "--warmup", str(args.warmup), "--batch", str(args.batch),
            "--rounds", str(args.rounds)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", action="store_true",
                    help="every target line: issue 26's MobileNetV2 run, then --keras 3,2 (issue 29)")
    ap.add_argument("--models", help="instead of the step: the gradient ops alone of these models "
                    "(batch --batch), comma separated: " + ", ".join(MODELS))
    ap.add_argument("--child-model")
    ap.add_argument("--child-once", action="store_true")
    ap.add_argument("--child-wisdom")
    ap.add_argument("--per-call", action="store_true",
                    help="with --models: also each call alone, repeated (warm), TF's and kforge's, summed")
    ap.add_argument("--wisdom", help="with --models: kforge's ops with the rule's plans against this wisdom file's")
    ap.add_argument("--steps", type=int, default=5, help="timed steps per configuration and round")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", default="1,all")
    ap.add_argument("--json")
    ap.add_argument("--child-threads")
    ap.add_argument("--child-issue26", action="store_true")
    ap.add_argument("--keras", help="whole-model steps in these Kerases: 3 (keras), 2 (tf-keras) or 3,2")
    ap.add_argument("--step-models", default="mobilenet_v2_96,mobilenet_v3_small_128,efficientnet_b0_128",
                    help="with --keras: the models (names of --models)")
    ap.add_argument("--profile", type=int, default=5,
                    help="with --keras: steps of Keras 3's pair under TF's profiler (the Amdahl bound); 0: none")
    ap.add_argument("--verbose", action="store_true", help="with --profile: the op types of each step")
    ap.add_argument("--child-keras")
    args = ap.parse_args()
    if args.child_keras:
        child_keras(args)
        return 0
    if args.child_issue26:
        child_issue26(args)
        return 0
    if args.child_threads and args.child_model:
        child_ops(args)
        return 0
    if args.models:
        return ops_table(args)
    from train_step_targets import issue26_table, issue27_table, keras_table
    t0 = time.time()
    misses = []
    if args.targets or not args.keras:
        misses += issue26_table(args)
        print()
    if args.targets:
        misses += issue27_table(args)
        print()
    if args.targets or args.keras:
        if args.targets:
            args.keras = args.keras or "3,2"
        misses += keras_table(args)
    print("targets missed: %s" % ("; ".join(misses) if misses else "none"))
    print("(%.0f s)" % (time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
