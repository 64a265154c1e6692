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
and TF's own kernels (tf.raw_ops) in the first way. Last, issue 16's
op-level method: each call alone, TF's eager and kforge's through the C API,
each less the same call on a 1x1x1xC tensor (the per-call overhead). Medians and minima of
--runs runs (ms). The first three differ by the TF op machinery and output
allocation; the last by the caches.
"""
import argparse
import os
import statistics
import sys

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

    print("%s, batch %d: %d FusedBatchNormGradV3 calls, 1 thread; median / min of %d runs (ms)"
          % (args.model, args.batch, len(calls), args.runs))
    rows = [("TF's kernels, tf-op", timed(graph_of(tf.raw_ops.FusedBatchNormGradV3), args.runs)),
            ("kforge, tf-op", timed(graph_of(kops.fused_batch_norm_grad_v3), args.runs)),
            ("kforge, c-api", timed(c_api, args.runs)),
            ("kforge, c-api-out", timed(c_api_out, args.runs)),
            ("kforge, per-call (warm)", per_call(max(5, args.runs // 4)))]
    for label, (m, n) in rows:
        print("  %-26s %8.2f %8.2f" % (label, m, n))
    t_tf, t_kf = less_tiny(max(5, args.runs // 4))
    print("issue 16's method (each call alone, less the same call on 1x1x1xC; medians summed, ms):")
    print("  TF's kernels, eager %8.2f   kforge, c-api %8.2f   (%.2fx)" % (t_tf, t_kf, t_tf / t_kf))
    return 0


if __name__ == "__main__":
    sys.exit(main())
