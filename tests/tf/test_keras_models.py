"""test_keras_models.py -- the manifests traced from Keras models, in the
suite (through tests/tf/run_keras.sh, with the pinned TensorFlow venv's
python):

    python tests/tf/test_keras_models.py [--kforge build/kforge] [--seed S] [--jobs J]

1. Re-traces MobileNetV2 0.35 at 96x96, batch 1 (tools/models/keras_manifest.py,
   the options recorded in the manifest's header) and requires exactly the
   checked-in specs/models/mobilenet_v2_96.lua: a change in TensorFlow,
   tf-keras or the tool shows as a diff.
2. Runs every recorded call of that manifest through kforge (the CLI) and
   TF 2.21's tf.raw_ops (Eigen CPU kernels, oneDNN off, one thread) on the
   same random tensors (seeded; batch norm gets the batch statistics a
   forward pass saves) and compares them as tests/tf/differential.py does:
   same shapes and dtypes, values within docs/testing.md's per-dtype
   tolerance, kforge's error against float64 no worse than TF's.
3. Traces the same model under the mixed_bfloat16 policy (--policies) and
   runs its calls (T=bfloat16, U=float) the same way.
One check per call plus one for the re-trace; ends with "N passed, M failed".
The seed is fresh per run unless --seed or KFORGE_TF_SEED is given; it is
printed with every failure.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "models"))

import numpy as np  # noqa: E402

import differential as D  # noqa: E402  (sets TF's environment: oneDNN off)
import keras_manifest as K  # noqa: E402

MANIFEST = "specs/models/mobilenet_v2_96.lua"
PASSED, FAILED = [0], [0]


def ok(what):
    PASSED[0] += 1
    print("ok - %s" % what)


def fail(what, detail=""):
    FAILED[0] += 1
    print("FAIL - %s" % what)
    for line in detail.splitlines():
        print("       %s" % line)


def header_options(path):
    """The keras-manifest.sh options recorded in the manifest's header."""
    with open(path) as f:
        for line in f:
            m = re.match(r"^--\s+bash tools/keras-manifest.sh (.*) --out FILE$", line.rstrip("\n"))
            if m:
                return shlex.split(m.group(1))
    return None


def tf_attr(op, name, text):
    if name == "T" or name == "U":
        return None  # TF infers them from the inputs
    if name == "epsilon":
        return float(text)
    if name == "is_training":
        return text == "true"
    if name in ("strides", "dilations", "explicit_paddings"):
        return [int(v) for v in text.split(",") if v != ""]
    return text


def make_call(idx, inst, seed):
    """A differential.Call of a manifest instance with seeded random tensors."""
    rng = np.random.default_rng([seed, idx])
    c = D.Call(idx, inst["op"])
    a = inst["attrs"]
    c.T = a["T"]
    c.attrs = {k: tf_attr(inst["op"], k, v) for k, v in a.items() if tf_attr(inst["op"], k, v) is not None}
    c.kind = "valid"
    c.size_kind = "model"
    shp = inst["inputs"]
    if inst["op"] in D.BN_OPS:
        T, U = a["T"], a.get("U", "float")
        last = a.get("data_format", "NHWC") in ("NHWC", "NDHWC")
        x = D.as_dtype(rng.normal(rng.uniform(-1, 1), 1.0, shp["x"]), T)
        dy = D.as_dtype(rng.normal(0.0, 1.0, shp["y_backprop"]), T)
        rank = len(shp["x"])
        ax = tuple(i for i in range(rank) if i != (rank - 1 if last else 1))
        x64 = x.astype(np.float64)
        training = c.attrs.get("is_training", True)
        C = shp["scale"][0]
        if training:  # the statistics the forward pass saved (biased variance)
            mean, var = x64.mean(axis=ax), x64.var(axis=ax)
        else:
            mean, var = rng.normal(0, 1, C), rng.uniform(0.05, 2.0, C)
        c.inputs["y_backprop"] = dy
        c.inputs["x"] = x
        c.inputs["scale"] = D.as_dtype(rng.uniform(-1.5, 1.5, C), U)
        c.inputs["reserve_space_1"] = D.as_dtype(mean, U)
        c.inputs["reserve_space_2"] = D.as_dtype(var, U)
        if "reserve_space_3" in shp:
            c.inputs["reserve_space_3"] = np.zeros(shp["reserve_space_3"], np.float32)
    elif inst["op"] == D.DW_OP:
        T = a["T"]
        c.inputs["input_sizes"] = np.array(inst["values"]["input_sizes"], np.int32)
        c.inputs["filter"] = D.as_dtype(rng.uniform(-1, 1, shp["filter"]), T)
        c.inputs["out_backprop"] = D.as_dtype(rng.uniform(-1, 1, shp["out_backprop"]), T)
    else:
        return None
    return c


def run_calls(instances, label, seed, rerun, jobs):
    """Every instance through kforge and TF on the same seeded tensors."""
    calls, skipped = [], []
    for i, inst in enumerate(instances):
        c = make_call(i, inst, seed)
        if c is None:
            skipped.append(inst["name"])
        else:
            c.model_name = label + inst["name"]
            calls.append(c)
    work = tempfile.mkdtemp(prefix="kforge-tf-keras-")
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futs = [pool.submit(D.run_one, c, work) for c in calls]
            for c, fu in zip(calls, futs):
                try:
                    problems = D.check_call(c, fu.result())
                except Exception as e:  # noqa: BLE001 -- a harness error fails this call, visibly
                    problems = ["harness error: %s: %s" % (type(e).__name__, e)]
                what = "%s: %s" % (c.model_name, c.describe())
                if problems:
                    fail(what, "\n".join(problems + ["seed %d; %s" % (seed, rerun),
                                                     "kforge: " + D.shell_quote(D.kforge_command(c, "DIR"))]))
                else:
                    ok("%s %s: kforge and TF agree" % (c.model_name, c.op))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name in skipped:
        print("note - %s%s: no TF comparison for this op here (not counted)" % (label, name))
    return len(calls)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kforge", default="build/kforge")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--manifest", default=MANIFEST)
    ap.add_argument("--policies", default="mixed_bfloat16",
                    help="comma-separated mixed-precision policies to trace and compare too ('' for none)")
    args = ap.parse_args()
    os.chdir(ROOT)
    D.KFORGE = os.path.abspath(args.kforge)
    D.ARGS = argparse.Namespace(verbose=False)
    if not os.access(D.KFORGE, os.X_OK):
        fail("%s is not an executable (build first: ninja)" % D.KFORGE)
        print("%d passed, %d failed" % (PASSED[0], FAILED[0]))
        return 1
    env_seed = os.environ.get("KFORGE_TF_SEED")
    seed = args.seed if args.seed is not None else (int(env_seed) if env_seed else
                                                    int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF)
    D.SEED = seed
    rerun = "rerun: KFORGE_TF_SEED=%d bash tests/tf/run_keras.sh" % seed
    print("tf-keras: seed %d (%s)" % (seed, rerun))
    t0 = time.time()
    D.import_tf()
    t_import = time.time() - t0

    # 1. the re-trace equals the checked-in manifest
    opts = header_options(args.manifest)
    if opts is None:
        fail("%s has no 'bash tools/keras-manifest.sh ... --out FILE' line" % args.manifest)
        print("%d passed, %d failed" % (PASSED[0], FAILED[0]))
        return 1
    t1 = time.time()
    kargs = K.parser().parse_args(opts)
    text, instances, report = K.manifest(kargs, opts)
    t_trace = time.time() - t1
    with open(args.manifest) as f:
        old = f.read()
    if text == old:
        ok("re-tracing gives exactly %s (%s)" % (args.manifest, report))
    else:
        import difflib
        diff = "".join(list(difflib.unified_diff(old.splitlines(True), text.splitlines(True), args.manifest,
                                                 "traced", n=0))[:40])
        fail("re-tracing differs from %s (TF, tf-keras or the tool changed; regenerate with the command in "
             "its header if intended)" % args.manifest, diff)

    # 2. every recorded call through kforge and TF; 3. the same model under
    # a mixed-precision policy
    t2 = time.time()
    ncalls = run_calls(instances, "", seed, rerun, args.jobs)
    t_mixed = 0.0
    for policy in [p for p in args.policies.split(",") if p]:
        t3 = time.time()
        margs = K.parser().parse_args(opts + ["--policy", policy])
        _, minst, mreport = K.manifest(margs, opts)
        t_mixed += time.time() - t3
        print("tf-keras: %s traced: %s" % (policy, mreport))
        ncalls += run_calls(minst, policy + " ", seed + 1, rerun, args.jobs)
    print("")
    print("tf-keras: seed %d; TensorFlow %s import %.1fs, trace %.1fs (+%.1fs mixed precision), %d calls "
          "through kforge and TF %.1fs" % (seed, D.tf.__version__, t_import, t_trace, t_mixed, ncalls,
                                           time.time() - t2 - t_mixed))
    print(D.STATS.report())
    print("%d passed, %d failed" % (PASSED[0], FAILED[0]))
    return 1 if FAILED[0] else 0


if __name__ == "__main__":
    sys.exit(main())
