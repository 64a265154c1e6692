"""Keras 3's BatchNormalization with kforge.tf.enable() (python/kforge/tf/keras3.py) against Keras' own.

    python tests/tf/test_keras3.py [--quick] [--verbose]

(run through tests/tf/run_keras3.sh, which installs ./python into the TF venv;
--quick, for the reruns under KFORGE_ISA=avx2 and scalar: sections 1 and 2
only, the ones whose results come from kforge's kernels).

1. Layer equivalence, 20 steps: one BatchNormalization layer trained by a
   tf.function step (loss = sum(y * w), SGD on gamma/beta) with Keras' own
   code and with kforge enabled, from the same weights on the same batches,
   for axis -1 and 1 (rank 4; also rank 2, 3 and 5 under float32, which
   fold into rank 4) under float32, mixed_float16 and mixed_bfloat16. At
   every step the outputs and the input gradients agree, after 20 steps
   gamma, beta, moving mean and moving variance (Keras' momentum, its biased
   variance). The kforge step's graph holds FusedBatchNormV3 and
   KforgeFusedBatchNormGradV3, Keras' none of them.
2. A Keras 3 model (Conv2D, BatchNormalization, DepthwiseConv2D, ...),
   compile + train_on_batch, 20 steps with kforge on and off, losses and
   weights compared. The tolerance basis: Keras' own run-to-run spread, the
   same run again with each batch's samples permuted (the same mathematics,
   other summation orders): kforge's distance from Keras' run may be at
   most 4x that spread (floor 1e-5 relative). A run whose batch-norm
   gradient is scaled by (1 + 1e-3) must fail that bound.
3. Fallbacks: mask, renorm, synchronized, axis 2 of a rank-4 input, float64
   and XLA (jit_compile) run Keras' code (the same values, no fused node),
   each reported once; a jit_compile=True model trains with kforge enabled
   (kforge's ops have no XLA kernels: TF's gradients there), as without.
4. training=False stays Keras' own graph; disable() restores Keras' own
   call (the same function object); kforge.tf.gradients() enables it.
5. A model trained and saved (.keras and SavedModel export) while enabled
   loads and runs in a subprocess where importing kforge fails.

Tolerances: the outputs and gradients of section 1 are compared in units
of the compared dtype's rounding: |a - b| <= 4 eps(dtype) max|a| (float32:
eps 2^-23 -> 4.8e-7 relative; float16 2^-10; bfloat16 2^-7), the 20-step
weights within 1e-5 relative (float32 gradients in all three policies).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.pop("TF_USE_LEGACY_KERAS", None)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

import kforge.tf  # noqa: E402
from kforge.tf import keras3 as k3  # noqa: E402

PASSED = 0
FAILED = 0
VERBOSE = False
EPS = {"float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}


def check(cond, what):
    global PASSED, FAILED
    if cond:
        PASSED += 1
        if VERBOSE:
            print("ok   " + what)
    else:
        FAILED += 1
        print("FAIL " + what)
    return cond


def rel(a, b):
    """max|a - b| / max|b| (0 for equal zeros)."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    scale = np.abs(b).max() if b.size else 0.0
    d = np.abs(a - b).max() if a.size else 0.0
    return d / scale if scale > 0 else d


def graph_types(fn):
    """The op types of every graph traced by fn: a tf.function, or a function that calls
    one from its closure (Keras 3's train_function), with the functions those graphs call."""
    types, seen, todo = set(), set(), [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen.add(id(f))
        if hasattr(f, "_list_all_concrete_functions"):
            for cf in f._list_all_concrete_functions():
                types |= {op.type for op in cf.graph.get_operations()}
                for fdef in cf.graph.as_graph_def().library.function:
                    types |= {n.op for n in fdef.node_def}
        for cell in getattr(f, "__closure__", None) or ():
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            if callable(v):
                todo.append(v)
    return types


# -- 1. layer equivalence -----------------------------------------------------------------------

def train_layer(on, axis, policy, shape, steps=20, permute=False):
    keras.mixed_precision.set_dtype_policy(policy)
    keras.utils.set_random_seed(0)
    layer = keras.layers.BatchNormalization(axis=axis, momentum=0.9)
    layer.build(shape)
    # gamma/beta away from 1/0 so that wrong scale/offset handling shows
    rs = np.random.RandomState(7)
    layer.gamma.assign(rs.uniform(0.5, 1.5, layer.gamma.shape).astype(np.float32))
    layer.beta.assign(rs.uniform(-0.5, 0.5, layer.beta.shape).astype(np.float32))
    compute = keras.mixed_precision.dtype_policy().compute_dtype

    def step(x, w):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = layer(x, training=True)
            loss = tf.reduce_sum(tf.cast(y, tf.float32) * w)
        gx, gg, gb = tape.gradient(loss, [x, layer.gamma.value, layer.beta.value])
        layer.gamma.assign_sub(0.05 * gg)
        layer.beta.assign_sub(0.05 * gb)
        return y, gx
    if on:
        kforge.tf.enable()
    fn = tf.function(step)
    rs = np.random.RandomState(1)
    rp = np.random.RandomState(2)
    outs = []
    for _ in range(steps):
        x = tf.cast(tf.constant(rs.normal(2, 3, shape).astype(np.float32)), compute)
        w = tf.constant(rs.normal(0, 1, shape).astype(np.float32))
        p = rp.permutation(shape[0]) if permute else np.arange(shape[0])
        y, gx = fn(tf.gather(x, p), tf.gather(w, p))
        back = np.argsort(p)  # the outputs in the unpermuted order
        outs.append((y.numpy().astype(np.float32)[back], gx.numpy().astype(np.float32)[back]))
    kforge.tf.disable()
    keras.mixed_precision.set_dtype_policy("float32")
    weights = [v.numpy() for v in (layer.gamma, layer.beta, layer.moving_mean, layer.moving_variance)]
    return outs, weights, graph_types(fn), compute


def test_layers():
    cases = [(-1, (8, 5, 6, 4), p) for p in ("float32", "mixed_float16", "mixed_bfloat16")]
    cases += [(1, (8, 4, 5, 6), p) for p in ("float32", "mixed_float16", "mixed_bfloat16")]
    cases += [(-1, (16, 3), "float32"), (1, (4, 3, 7), "float32"), (-1, (2, 3, 4, 5, 6), "float32"),
              (1, (2, 3, 4, 5, 6), "float32")]
    for axis, shape, policy in cases:
        name = "layer axis=%d %s %s" % (axis, shape, policy)
        k3.reset_stats()
        ref, wref, tref, compute = train_layer(False, axis, policy, shape)
        perm, wperm, _, _ = train_layer(False, axis, policy, shape, permute=True)
        got, wgot, tgot, _ = train_layer(True, axis, policy, shape)
        check("FusedBatchNormV3" not in tref and "KforgeFusedBatchNormGradV3" not in tref,
              name + ": Keras' own step has no fused batch norm")
        check("FusedBatchNormV3" in tgot and "KforgeFusedBatchNormGradV3" in tgot
              and "FusedBatchNormGradV3" not in tgot,
              name + ": the kforge step runs FusedBatchNormV3 and kforge's gradient")
        check(k3.stats()["fused"] >= 1 and k3.stats()["keras"] == 0, name + ": counted as fused")
        eps = EPS[compute]
        for i, what in ((0, "outputs"), (1, "input gradients")):
            spread = max(rel(q[i], r[i]) for q, r in zip(perm, ref))
            err = max(rel(g[i], r[i]) for g, r in zip(got, ref))
            bound = max(4 * spread, 4 * eps + 16 * EPS["float32"])
            check(err <= bound, name + ": %s over 20 steps %.2g <= %.2g (4x Keras' own spread %.2g, "
                  "floor 4 eps + 16 float32 eps)" % (what, err, bound, spread))
        for label, a, b, q in zip(("gamma", "beta", "moving_mean", "moving_variance"), wgot, wref, wperm):
            spread = rel(q, b)
            err = rel(a, b)
            bound = max(4 * spread, 16 * EPS["float32"])
            check(err <= bound, name + ": %s after 20 steps %.2g <= %.2g (4x Keras' own spread %.2g, "
                  "floor 16 float32 eps)" % (label, err, bound, spread))


# -- 2. a model, 20 steps -----------------------------------------------------------------------

def small_model():
    keras.utils.set_random_seed(3)
    inp = keras.Input((12, 12, 3))
    h = keras.layers.Conv2D(8, 3, padding="same", use_bias=False)(inp)
    h = keras.layers.BatchNormalization()(h)
    h = keras.layers.ReLU(6.0)(h)
    h = keras.layers.DepthwiseConv2D(3, strides=2, padding="same", use_bias=False)(h)
    h = keras.layers.BatchNormalization(momentum=0.9)(h)
    h = keras.layers.Activation("swish")(h)
    h = keras.layers.Conv2D(16, 1, use_bias=False)(h)
    h = keras.layers.BatchNormalization(scale=False)(h)
    h = keras.layers.ReLU()(h)  # (without it the next batch norm cancels this one's beta: zero gradient)
    h = keras.layers.GlobalAveragePooling2D()(h)
    h = keras.layers.Dense(8, use_bias=False)(h)  # a bias before batch norm has a zero gradient
    h = keras.layers.BatchNormalization(center=False)(h)
    out = keras.layers.Dense(5)(h)
    return keras.Model(inp, out)


def batches(steps, batch):
    rs = np.random.RandomState(11)
    return [(rs.normal(0, 1, (batch, 12, 12, 3)).astype(np.float32), rs.randint(0, 5, batch).astype(np.int32))
            for _ in range(steps)]


def train_model(on, data, permute=False, perturb=False):
    model = small_model()
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    if on:
        kforge.tf.enable()
    restore = None
    if perturb:  # a batch-norm gradient off by 1e-3: the comparison must see it
        from tensorflow.python.framework import ops as tf_ops
        entry = tf_ops.gradient_registry._registry["FusedBatchNormV3"]
        inner = entry["type"]

        def scaled(op, *grad):
            dx, ds, do, a, b = inner(op, *grad)
            return dx * (1 + 1e-3), ds, do, a, b
        entry["type"] = scaled
        restore = (entry, inner)
    rs = np.random.RandomState(5)
    losses = []
    try:
        for x, y in data:
            if permute:
                p = rs.permutation(len(x))
                x, y = x[p], y[p]
            losses.append(float(model.train_on_batch(x, y)))
    finally:
        if restore:
            restore[0]["type"] = restore[1]
        kforge.tf.disable()
    return np.array(losses), [w.copy() for w in model.get_weights()], graph_types(model.train_function)


def model_distance(a, b):
    """max over the loss curve and every weight tensor of the relative distance."""
    la, wa = a
    lb, wb = b
    return max([rel(la, lb)] + [rel(x, y) for x, y in zip(wa, wb)])


def test_model():
    data = batches(20, 16)
    ref = train_model(False, data)
    again = train_model(False, data)
    perm = train_model(False, data, permute=True)
    got = train_model(True, data)
    bad = train_model(True, data, perturb=True)
    if VERBOSE:
        for i, (a, b, c) in enumerate(zip(perm[1], got[1], ref[1])):
            print("     weight %d %s: permuted %.2g kforge %.2g" % (i, c.shape, rel(a, c), rel(b, c)))
        print("     loss: permuted %.2g kforge %.2g" % (rel(perm[0], ref[0]), rel(got[0], ref[0])))
    rerun = model_distance(again[:2], ref[:2])
    spread = model_distance(perm[:2], ref[:2])
    dist = model_distance(got[:2], ref[:2])
    bound = max(4 * spread, 1e-5)
    print("keras3 model, 20 steps: Keras' own run again %.2g, permuted batches %.2g (the spread); "
          "kforge %.2g (bound %.2g); kforge with a 1e-3 gradient error %.2g"
          % (rerun, spread, dist, bound, model_distance(bad[:2], ref[:2])))
    check("KforgeFusedBatchNormGradV3" in got[2] and "FusedBatchNormGradV3" not in got[2]
          and "KforgeDepthwiseConv2dNativeBackpropFilter" in got[2],
          "model: the kforge train function runs kforge's batch-norm and depthwise gradients")
    check("FusedBatchNormV3" not in ref[2], "model: Keras' own train function has no fused batch norm")
    check(np.all(np.isfinite(got[0])) and got[0][-1] < got[0][0], "model: the kforge run's loss decreases")
    check(dist <= bound, "model: losses and weights after 20 steps within 4x Keras' own spread "
          "(%.2g <= %.2g)" % (dist, bound))
    check(model_distance(bad[:2], ref[:2]) > bound, "model: a 1e-3 gradient error exceeds the bound")


# -- 3. fallbacks -------------------------------------------------------------------------------

def run_fallback(make, x, mask=None, policy="float32"):
    """(outputs, moving stats, graph types) of 3 training calls in a tf.function
    (jit_compiled for policy "xla")."""
    keras.mixed_precision.set_dtype_policy("float32" if policy == "xla" else policy)
    keras.utils.set_random_seed(0)
    layer = make()

    @tf.function(jit_compile=policy == "xla")
    def f(x):
        return layer(x, training=True) if mask is None else layer(x, training=True, mask=mask)
    outs = [f(x).numpy() for _ in range(3)]
    keras.mixed_precision.set_dtype_policy("float32")
    return outs, [layer.moving_mean.numpy(), layer.moving_variance.numpy()], graph_types(f)


def test_fallbacks():
    rs = np.random.RandomState(2)
    x4 = tf.constant(rs.normal(1, 2, (4, 3, 5, 6)).astype(np.float32))
    x3 = tf.constant(rs.normal(1, 2, (4, 7, 6)).astype(np.float32))
    mask = tf.constant(rs.uniform(size=(4, 7)) > 0.3)
    cases = [
        ("a mask", lambda: keras.layers.BatchNormalization(), x3, mask, "float32"),
        ("renorm", lambda: keras.layers.BatchNormalization(renorm=True), x4, None, "float32"),
        ("synchronized", lambda: keras.layers.BatchNormalization(synchronized=True), x4, None, "float32"),
        ("axis=2", lambda: keras.layers.BatchNormalization(axis=2), x4, None, "float32"),
        ("float64", lambda: keras.layers.BatchNormalization(dtype="float64"), tf.cast(x4, tf.float64), None,
         "float32"),
        ("XLA", lambda: keras.layers.BatchNormalization(), x4, None, "xla"),
    ]
    for label, make, x, mask_, policy in cases:
        ref = run_fallback(make, x, mask_, policy)
        kforge.tf.enable()
        k3.reset_stats()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            got = run_fallback(make, x, mask_, policy)
            run_fallback(make, x, mask_, policy)  # the same reason again: not said again
        kforge.tf.disable()
        said = [str(m.message) for m in w if "kforge.tf" in str(m.message)]
        check(len(said) == 1 and label.split("=")[0] in said[0],
              "fallback %s: said once why (%s)" % (label, said))
        check(k3.stats()["fused"] == 0 and k3.stats()["keras"] >= 2 and len(k3.fallbacks()) == 1,
              "fallback %s: counted (%s)" % (label, k3.fallbacks()))
        check("FusedBatchNormV3" not in got[2], "fallback %s: no fused node" % label)
        same = all(np.array_equal(a, b) for a, b in zip(got[0] + got[1], ref[0] + ref[1]))
        check(same, "fallback %s: the same outputs and moving stats as Keras' own" % label)


def test_xla_model():
    data = batches(3, 8)
    runs = []
    for on in (False, True):
        model = small_model()
        model.compile(optimizer=keras.optimizers.SGD(0.05), jit_compile=True,
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        if on:
            kforge.tf.enable()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runs.append([float(model.train_on_batch(x, y)) for x, y in data])
        except Exception as e:  # noqa: BLE001 -- the failure is the finding
            runs.append(None)
            print("     jit_compile=True with kforge enabled: %s: %s" % (type(e).__name__, str(e)[:300]))
        finally:
            kforge.tf.disable()
    check(runs[1] is not None and rel(runs[1], runs[0]) <= 1e-5,
          "a jit_compile=True model trains with kforge enabled (TF's gradients in XLA): the same losses")


# -- 4. inference, disable(), gradients() -------------------------------------------------------

def test_state():
    from keras.src.layers.normalization.batch_normalization import BatchNormalization
    own = BatchNormalization.__dict__["call"]
    x = tf.constant(np.random.RandomState(4).normal(0, 1, (4, 3, 3, 5)).astype(np.float32))
    layer = keras.layers.BatchNormalization()
    layer.build(x.shape)
    layer.moving_mean.assign(np.linspace(-1, 1, 5).astype(np.float32))
    ref = layer(x, training=False).numpy()
    kforge.tf.enable()
    check(k3.patched() and BatchNormalization.__dict__["call"] is not own, "enable() patches Keras 3's layer")
    k3.reset_stats()
    f = tf.function(lambda x: layer(x, training=False))
    got = f(x).numpy()
    check(np.array_equal(got, ref) and "FusedBatchNormV3" not in graph_types(f)
          and k3.stats() == {"fused": 0, "keras": 0},
          "training=False while enabled: Keras' own graph, the same outputs, no fallback reported")
    frozen = keras.layers.BatchNormalization()
    frozen.build(x.shape)
    frozen.trainable = False
    g = tf.function(lambda x: frozen(x, training=True))
    g(x)
    check("FusedBatchNormV3" not in graph_types(g), "a non-trainable layer stays in inference mode")
    # an empty batch: Keras' moments are NaN, so are its moving statistics; the same fused
    stats = []
    for on in (False, True):
        if on:
            kforge.tf.enable()
        e = keras.layers.BatchNormalization()
        e.build((None, 3, 3, 5))
        y = e(tf.zeros((0, 3, 3, 5)), training=True)
        stats.append((y.shape, e.moving_mean.numpy(), e.moving_variance.numpy()))
    check(stats[0][0] == stats[1][0] and all(np.array_equal(a, b, equal_nan=True)
                                             for a, b in zip(stats[0][1:], stats[1][1:])),
          "an empty batch: the same (NaN) moving statistics as Keras' own")
    kforge.tf.enable()
    kforge.tf.disable()
    check(not k3.patched() and BatchNormalization.__dict__["call"] is own,
          "disable() restores Keras' own call (the same function object)")
    h = tf.function(lambda x: layer(x, training=True))
    h(x)
    check("FusedBatchNormV3" not in graph_types(h), "after disable() training is Keras' own graph")
    with kforge.tf.gradients():
        check(k3.patched(), "kforge.tf.gradients() patches Keras 3's layer")
        with kforge.tf.gradients(False):
            check(not k3.patched(), "gradients(False) restores Keras' call inside the block")
        check(k3.patched(), "the outer block's state is back")
    check(not k3.patched() and BatchNormalization.__dict__["call"] is own, "gradients() restores on exit")


# -- 5. saved while enabled, loaded without kforge ----------------------------------------------

LOADER = r"""
import importlib.abc, os, sys
class NoKforge(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "kforge" or name.startswith("kforge."):
            raise ImportError("kforge is absent here")
sys.meta_path.insert(0, NoKforge())
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np, tensorflow as tf, keras
d = sys.argv[1]
x = np.load(os.path.join(d, "x.npy"))
m = keras.saving.load_model(os.path.join(d, "m.keras"))
a = m.predict(x, verbose=0)
s = tf.saved_model.load(os.path.join(d, "export"))
b = s.serve(tf.constant(x)).numpy()
try:
    import kforge  # noqa: F401
    sys.exit("kforge was importable")
except ImportError:
    pass
ops = set()
for f in s.signatures.values():
    ops |= {op.type for op in f.graph.get_operations()}
np.save(os.path.join(d, "a.npy"), a)
np.save(os.path.join(d, "b.npy"), b)
print("OK", sorted(t for t in ops if "Kforge" in t or "FusedBatchNorm" in t))
"""


def test_saved():
    data = batches(3, 8)
    model = small_model()
    model.compile(optimizer=keras.optimizers.SGD(0.05),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    kforge.tf.enable()
    try:
        for x, y in data:
            model.train_on_batch(x, y)
        with tempfile.TemporaryDirectory() as d:
            x = data[0][0]
            np.save(os.path.join(d, "x.npy"), x)
            model.save(os.path.join(d, "m.keras"))
            model.export(os.path.join(d, "export"), verbose=False)
            ref = model.predict(x, verbose=0)
            p = subprocess.run([sys.executable, "-c", LOADER, d], capture_output=True, text=True)
            ok = p.returncode == 0 and "OK" in p.stdout
            if not check(ok, "saved while enabled: loads and runs without kforge"):
                print(p.stdout[-2000:] + p.stderr[-2000:])
                return
            check("Kforge" not in p.stdout, "the exported serving graph holds no kforge op (%s)"
                  % p.stdout.strip())
            a = np.load(os.path.join(d, "a.npy"))
            b = np.load(os.path.join(d, "b.npy"))
            check(rel(a, ref) <= 1e-5 and rel(b, ref) <= 1e-5,
                  "the loaded .keras and SavedModel give the saving process' predictions")
    finally:
        kforge.tf.disable()


def main():
    global VERBOSE
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    VERBOSE = args.verbose
    if not check(keras.__version__.startswith("3.") and keras.backend.backend() == "tensorflow",
                 "Keras 3 on the TensorFlow backend (%s)" % keras.__version__):
        print("%d passed, %d failed" % (PASSED, FAILED))
        return 1
    kforge.tf.load()
    test_layers()
    test_model()
    if not args.quick:
        test_fallbacks()
        test_xla_model()
        test_state()
        test_saved()
    print("%d passed, %d failed" % (PASSED, FAILED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
