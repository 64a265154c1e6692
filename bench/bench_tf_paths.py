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
and TF's own kernels (tf.raw_ops) in the first way. Medians and minima of
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

    print("%s, batch %d: %d FusedBatchNormGradV3 calls, 1 thread; median / min of %d runs (ms)"
          % (args.model, args.batch, len(calls), args.runs))
    rows = [("TF's kernels, tf-op", timed(graph_of(tf.raw_ops.FusedBatchNormGradV3), args.runs)),
            ("kforge, tf-op", timed(graph_of(kops.fused_batch_norm_grad_v3), args.runs)),
            ("kforge, c-api", timed(c_api, args.runs)),
            ("kforge, c-api-out", timed(c_api_out, args.runs)),
            ("kforge, per-call (warm)", per_call(max(5, args.runs // 4)))]
    for label, (m, n) in rows:
        print("  %-26s %8.2f %8.2f" % (label, m, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
