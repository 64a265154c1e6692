"""keras_manifest.py -- a kforge model manifest (specs/models/*.lua) from a
tf-keras model, by tracing one training step in TensorFlow.

Run with the pinned TensorFlow venv's python (tests/tf/venv.sh), from the
repository root; tools/keras-manifest.sh does both:

    python tools/models/keras_manifest.py --app MobileNetV2 --arg alpha=0.35 \\
        --input-shape 96,96,3 --batch 1 --name mobilenet_v2_96 --out specs/models/mobilenet_v2_96.lua
    python tools/models/keras_manifest.py --saved-model PATH --batch 4 --name my_model --out my_model.lua

The model: a tf_keras.applications constructor (always weights=None; --arg
K=V passes constructor arguments, V a Python literal) or a tf-keras
SavedModel / .keras file (tf_keras.models.load_model). --policy
mixed_float16 / mixed_bfloat16 sets tf_keras.mixed_precision's global policy
before the model is built.

The step: tf.function of a GradientTape over model(x, training=True) and the
gradient of a scalar loss (sum of squares of the float32 outputs) with
respect to every trainable variable, traced once for an input of shape
[batch] + input shape (float32). From the concrete function's graph it keeps
the ops that the function's outputs depend on (a gradient TF builds but
never uses, such as a first layer's input gradient, is pruned as TF's
runtime prunes it), and of those every node whose op is in --ops (default:
every op kforge's specs know, `lua5.4 tools/models/write_manifest.lua
--ops`; DepthwiseConv2dNativeBackpropFilter is emitted when kforge knows it
or when --ops names it). Each becomes an instance: its TF attrs (as text, as
`kforge run --attr` takes them; float attrs at float32's shortest repr), its
inputs' static shapes and, for the int32 inputs read while planning
(input_sizes, filter_sizes), their constant values. Instances are in the
order the tape created them: backprop order, the order a training step calls
them. A FusedBatchNormGradV3's reserve_space_3 has no static shape in TF's
graph; TF's CPU FusedBatchNormV3 produces a scalar, so it is {}.

Instance names: the Keras layer (BatchNormalization: its name; a depthwise
layer: its name for the input gradient, <name>/filter for the filter
gradient, as tools/models/make_models.lua names them); a second node of the
same op in one layer gets #2, #3. The comment before each instance names the
Keras layer, its class and the TF node.

The manifest is validated against the specs and written by
tools/models/write_manifest.lua (generator/model.lua's format). --check FILE
writes nothing and exits 1 (printing a diff) when the traced manifest differs
from FILE; tests/tf/test_keras_models.py does the same through manifest().
--json FILE also writes the traced instances as JSON.
"""
import argparse
import ast
import difflib
import json
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"

import numpy as np

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
WRITER = "tools/models/write_manifest.lua"

# The ops a manifest can hold (what this tool looks for); --ops narrows it.
TRACEABLE = ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3",
             "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter")
DTYPE = {"float32": "float", "float16": "half", "bfloat16": "bfloat16", "float64": "double", "int32": "int32"}


def lua_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def lua_value(v):
    if isinstance(v, dict):
        return "{ " + ", ".join("[%s] = %s" % (lua_str(k), lua_value(x)) for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "{ " + ", ".join(lua_value(x) for x in v) + " }"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return lua_str(str(v))


def known_ops():
    p = subprocess.run(["lua5.4", WRITER, "--ops"], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("keras_manifest: %s --ops failed: %s" % (WRITER, p.stderr.strip()))
    return p.stdout.split()


def attr_text(tf, v):
    if isinstance(v, tf.dtypes.DType):
        return DTYPE[v.name]
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, float):
        return str(np.float32(v))  # the attr is a float32: its shortest repr
    if isinstance(v, (list, tuple)):
        return ",".join(str(int(e)) for e in v)
    return str(v)


def build_model(args, tf_keras):
    if args.policy:
        tf_keras.mixed_precision.set_global_policy(args.policy)
    if args.saved_model:
        return tf_keras.models.load_model(args.saved_model, compile=False)
    kw = {"weights": None}
    for a in args.arg:
        k, _, v = a.partition("=")
        try:
            kw[k] = ast.literal_eval(v)
        except (ValueError, SyntaxError):
            kw[k] = v
    if args.input_shape:
        kw["input_shape"] = tuple(int(d) for d in args.input_shape.split(","))
    ctor = getattr(tf_keras.applications, args.app, None)
    if ctor is None:
        sys.exit("keras_manifest: tf_keras.applications has no %s" % args.app)
    return ctor(**kw)


def layer_table(model):
    """name -> layer, for every layer of the model and of nested models."""
    out = {}

    def walk(m):
        for layer in m.layers:
            out.setdefault(layer.name, layer)
            if hasattr(layer, "layers"):
                walk(layer)
    walk(model)
    return out


def layer_of(node_name, layers):
    """The Keras layer a gradient node belongs to: the longest run of name
    scopes (below gradient_tape/) that is a layer's name; None if none."""
    parts = node_name.split("/")
    if parts and parts[0].startswith("gradient_tape"):
        parts = parts[1:]
    best = None
    for i in range(len(parts)):
        for j in range(len(parts), i, -1):
            cand = "/".join(parts[i:j])
            if cand in layers and (best is None or j - i > best[1]):
                best = (cand, j - i)
                break
    return best[0] if best else None


def live_ops(graph, outputs):
    """The ops the outputs depend on (data and control inputs)."""
    seen, stack = set(), [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


def trace(args):
    import tensorflow as tf
    import tf_keras
    from tensorflow.python.framework import tensor_util

    tf.random.set_seed(0)
    model = build_model(args, tf_keras)
    shape = list(model.input_shape)
    if isinstance(model.input_shape, list):
        sys.exit("keras_manifest: models with several inputs are not supported")
    if args.input_shape and args.saved_model:
        shape = [None] + [int(d) for d in args.input_shape.split(",")]
    shape[0] = args.batch
    if any(d is None for d in shape):
        sys.exit("keras_manifest: the input shape %s is not static; give --input-shape" % shape)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            y = model(x, training=True)
            ys = y if isinstance(y, (list, tuple)) else [y]
            loss = tf.add_n([tf.reduce_sum(tf.square(tf.cast(t, tf.float32))) for t in ys])
        return tape.gradient(loss, model.trainable_variables)

    cf = step.get_concrete_function(tf.TensorSpec(shape, tf.float32))
    graph = cf.graph
    live = live_ops(graph, [t for t in cf.outputs if t is not None])
    layers = layer_table(model)
    wanted = set(args.ops)

    instances, comments, used, pruned = [], [], {}, 0
    for op in graph.get_operations():
        if op.type not in TRACEABLE or op.type not in wanted:
            continue
        if op.name not in live:
            pruned += 1
            continue
        lname = layer_of(op.name, layers)
        if lname is None:
            sys.exit("keras_manifest: node %s belongs to no Keras layer" % op.name)
        layer = layers[lname]
        base = lname + ("/filter" if op.type == "DepthwiseConv2dNativeBackpropFilter" else "")
        used[base] = used.get(base, 0) + 1
        name = base if used[base] == 1 else "%s#%d" % (base, used[base])
        # the op's own attrs (not TF's internal ones, such as _has_manual_control_dependencies)
        attrs = {k: attr_text(tf, op.get_attr(k)) for k in sorted(op.node_def.attr) if not k.startswith("_")}
        in_names = [a.name for a in op.op_def.input_arg]
        inputs, values = {}, {}
        for an, t in zip(in_names, op.inputs):
            if t.shape.rank is None:
                if op.type == "FusedBatchNormGradV3" and an == "reserve_space_3":
                    inputs[an] = []  # TF's CPU FusedBatchNormV3 makes a scalar
                    continue
                sys.exit("keras_manifest: %s: input %s has no static shape" % (op.name, an))
            if not t.shape.is_fully_defined():
                sys.exit("keras_manifest: %s: input %s has shape %s (not static)" % (op.name, an, t.shape))
            inputs[an] = [int(d) for d in t.shape]
            if t.dtype == tf.int32:
                v = tensor_util.constant_value(t)
                if v is None:
                    sys.exit("keras_manifest: %s: input %s is not a constant" % (op.name, an))
                values[an] = [int(e) for e in np.asarray(v).reshape(-1)]
        inst = {"name": name, "op": op.type, "attrs": attrs, "inputs": inputs}
        if values:
            inst["values"] = values
        instances.append(inst)
        comments.append("%s (%s): %s" % (lname, type(layer).__name__, op.name))
    if not instances:
        sys.exit("keras_manifest: the traced step calls none of %s" % ", ".join(sorted(wanted)))
    return model, instances, comments, pruned


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--app", help="a tf_keras.applications constructor, e.g. MobileNetV2")
    src.add_argument("--saved-model", help="a tf-keras SavedModel directory or .keras/.h5 file")
    ap.add_argument("--arg", action="append", default=[], help="constructor argument K=V (repeatable)")
    ap.add_argument("--input-shape", help="H,W,C (without the batch)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--policy", choices=["float32", "mixed_float16", "mixed_bfloat16"])
    ap.add_argument("--ops", help="comma-separated ops to emit (default: every op kforge's specs know)")
    ap.add_argument("--name", required=True, help="the manifest's model name (an identifier)")
    ap.add_argument("--summary", help="the manifest's summary line")
    ap.add_argument("--out", default="-", help="the manifest file (default: stdout)")
    ap.add_argument("--check", help="compare with this manifest instead of writing; exit 1 if different")
    ap.add_argument("--json", help="also write the instances as JSON here")
    return ap


def reproduce(argv):
    """The options that reproduce a manifest (without --out, --check, --json)."""
    rep, skip = [], False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in ("--out", "--check", "--json"):
            skip = True
            continue
        if a.startswith(("--out=", "--check=", "--json=")):
            continue
        rep.append(a if all(c.isalnum() or c in "-_=.,/:" for c in a) else "'%s'" % a)
    return " ".join(rep)


def manifest(args, argv):
    """Traces the model; returns (manifest text, instances, one-line report)."""
    os.chdir(ROOT)
    known = known_ops()
    if args.ops:
        args.ops = [o for o in args.ops.split(",") if o]
        bad = [o for o in args.ops if o not in TRACEABLE]
        if bad:
            sys.exit("keras_manifest: --ops: %s not traceable (%s)" % (", ".join(bad), ", ".join(TRACEABLE)))
        unknown = [o for o in args.ops if o not in known]
        if unknown:
            sys.exit("keras_manifest: --ops: kforge's specs (specs/families.lua) do not know %s; its build "
                     "could not use such a manifest" % ", ".join(unknown))
    else:
        args.ops = [o for o in TRACEABLE if o in known]
    try:
        import tensorflow as tf
        import tf_keras
    except ImportError as e:
        sys.exit("keras_manifest: cannot import TensorFlow / tf-keras (%s); run it with the venv of "
                 "tests/tf/venv.sh, or use tools/keras-manifest.sh" % e)

    model, instances, comments, pruned = trace(args)
    counts = {}
    for i in instances:
        counts[i["op"]] = counts.get(i["op"], 0) + 1
    what = ", ".join("%d %s" % (n, op) for op, n in sorted(counts.items()))
    src = args.saved_model or "tf_keras.applications.%s(%s)" % (
        args.app, ", ".join(args.arg + (["input_shape=(%s)" % args.input_shape] if args.input_shape else [])
                            + ["weights=None"]))
    policy = args.policy or "float32"
    summary = args.summary or "%s, batch %d, policy %s." % (model.name, args.batch, policy)
    header = ("-- %s\n-- Traced from %s (Keras model %s) with TensorFlow %s, tf-keras %s: one training step, "
              "batch %d, policy %s:\n-- %s.\n-- Written by tools/models/keras_manifest.py; regenerate, do not "
              "edit:\n--   bash tools/keras-manifest.sh %s --out FILE\n") % (
        summary, src, model.name, tf.__version__, tf_keras.__version__, args.batch, policy, what,
        reproduce(argv))
    raw = {"model": {"name": args.name, "summary": summary, "instances": instances},
           "header": header, "comments": comments}
    with tempfile.TemporaryDirectory() as d:
        rawf = os.path.join(d, "raw.lua")
        with open(rawf, "w") as f:
            f.write("return " + lua_value(raw) + "\n")
        out = os.path.join(d, "out.lua")
        p = subprocess.run(["lua5.4", WRITER, rawf, out], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("keras_manifest: the traced manifest is rejected: %s" % p.stderr.strip())
        with open(out) as f:
            text = f.read()
    report = "%s: %d instances (%s)%s" % (args.name, len(instances), what,
                                          ", %d unused gradient nodes pruned" % pruned if pruned else "")
    return text, instances, report


def main():
    argv = sys.argv[1:]
    args = parser().parse_args(argv)
    cwd = os.getcwd()
    path = lambda p: p if p is None or p == "-" or os.path.isabs(p) else os.path.join(cwd, p)  # noqa: E731
    args.out, args.check, args.json = path(args.out), path(args.check), path(args.json)
    if args.saved_model:
        args.saved_model = path(args.saved_model)
    text, instances, report = manifest(args, argv)
    print("keras_manifest: " + report, file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"name": args.name, "instances": instances}, f, indent=1)
    if args.check:
        with open(args.check) as f:
            old = f.read()
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       args.check, "traced", n=1))
            print("keras_manifest: the traced manifest differs from %s" % args.check, file=sys.stderr)
            sys.exit(1)
        print("keras_manifest: %s is exactly the traced manifest" % args.check, file=sys.stderr)
        return
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
