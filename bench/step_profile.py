"""Where a Keras training step's time goes: TF's profiler, split by op type and by owner.

bench_train_step.py --profile uses it to state the Amdahl bound of a step:
the part of Keras' own step spent in the ops kforge replaces (batch
normalization, forward and gradient, and the depthwise gradients) and the
best speed-up replacing them could give. TF's host tracer records every
executed kernel as an event named "<node name>:<op type>"; steps are marked
with a TraceMe named "STEP_<label>" so that interleaved steps of several
models separate. Durations are wall time of each kernel, so on a loaded host
a preempted kernel absorbs the wait: per op class the median over steps is
kept.
"""
import collections
import glob
import re
import shutil
import statistics
import tempfile

SKIP = {"Run", "Process", "Record", "StartRegion", "StopRegion"}  # executor events, not kernels


def bn_scopes(model, bn_classes):
    """A regex matching node names inside the model's batch-norm layers' scopes."""
    names = sorted({layer.name for layer in _layers(model) if isinstance(layer, bn_classes)})
    if not names:
        return None
    return re.compile(r"(^|/)(%s)(_\d+)?/" % "|".join(re.escape(n) for n in names))


def _layers(model):
    out, todo = [], list(getattr(model, "layers", []))
    while todo:
        layer = todo.pop()
        out.append(layer)
        todo.extend(getattr(layer, "layers", []) or [])
    return out


def owner(name, typ, bn_re):
    """"bn" (batch norm, forward or gradient), "dw-grad" (a depthwise gradient) or "other"."""
    if "DepthwiseConv2dNativeBackprop" in typ:
        return "dw-grad"
    if "FusedBatchNorm" in typ or (bn_re is not None and bn_re.search(name)):
        return "bn"  # _FusedBatchNormEx takes its activation's node name: matched by type
    return "other"


def trace(steps, runners):
    """Runs each of runners {label: fn} steps times, interleaved, under TF's profiler; each run
    marked by a TraceMe "STEP_<label>". Returns (spans, events): the runs as (start, end, label),
    sorted, and every other event as (start, duration, name), in picoseconds."""
    import tensorflow as tf
    from tensorflow.tsl.profiler.protobuf import xplane_pb2
    logdir = tempfile.mkdtemp(prefix="kforge-step-profile-")
    try:
        tf.profiler.experimental.start(logdir)
        try:
            for _ in range(steps):
                for label, fn in runners.items():
                    with tf.profiler.experimental.Trace("STEP_" + label):
                        fn()
        finally:
            tf.profiler.experimental.stop()
        path = glob.glob(logdir + "/**/*.xplane.pb", recursive=True)[0]
        space = xplane_pb2.XSpace()
        with open(path, "rb") as f:
            space.ParseFromString(f.read())
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
    spans, events = [], []
    for plane in space.planes:
        meta = plane.event_metadata
        for line in plane.lines:
            base = line.timestamp_ns * 1000
            for ev in line.events:
                name = meta[ev.metadata_id].name
                start = base + ev.offset_ps
                if name.startswith("STEP_"):
                    spans.append((start, start + ev.duration_ps, name[5:]))
                else:
                    events.append((start, ev.duration_ps, name))
    spans.sort()
    return spans, events


def span_of(spans, starts, start):
    """The index in spans (trace()'s, starts their starts) of the run holding an event that
    starts at start, or -1."""
    import bisect
    i = bisect.bisect_right(starts, start) - 1
    return i if i >= 0 and start <= spans[i][1] else -1


def profile(steps, runners, bn_res):
    """Runs each of runners {label: fn} steps times, interleaved, under TF's profiler (trace()).

    Returns {label: {"step_ms": median wall of the marked steps,
    "types": {op type: median ms per step}, "owners": {owner: median ms per
    step}, "nodes": {op type: kernels per step}}}."""
    spans, events = trace(steps, runners)
    kernels = []
    for start, dur, name in events:
        if ":" in name and not name.startswith("/"):
            node, typ = name.rsplit(":", 1)
            if typ and " " not in typ and typ not in SKIP:
                kernels.append((start, dur, node, typ))
    per_step = [(a, b, label, collections.Counter(), collections.Counter(), collections.Counter())
                for a, b, label in spans]
    starts = [s[0] for s in spans]
    for start, dur, node, typ in kernels:
        i = span_of(spans, starts, start)
        if i < 0:
            continue
        _, _, label, types, owners, nodes = per_step[i]
        ms = dur / 1e9
        types[typ] += ms
        owners[owner(node, typ, bn_res.get(label))] += ms
        nodes[typ] += 1
    out = {}
    for label in runners:
        mine = [s for s in per_step if s[2] == label]
        if not mine:
            continue
        keys_t = set().union(*(s[3] for s in mine))
        out[label] = {
            "step_ms": statistics.median((b - a) / 1e9 for a, b, *_ in mine),
            "types": {k: statistics.median(s[3][k] for s in mine) for k in keys_t},
            "owners": {k: statistics.median(s[4][k] for s in mine) for k in ("bn", "dw-grad", "other")},
            "nodes": {k: max(s[5][k] for s in mine) for k in keys_t},
        }
    return out
