"""Training with kforge's gradients: one line swaps TF's gradient functions.

    import kforge.tf
    kforge.tf.enable()            # from now on, gradients of batch norm and depthwise
                                  # convolutions run kforge's kernels
    model.fit(...)                # or a GradientTape / tf.function training step

    with kforge.tf.gradients():   # the same, for a block; restores the previous state
        ...
    kforge.tf.disable(); kforge.tf.enabled()

The forward ops stay TF's (FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3,
DepthwiseConv2dNative); what changes is the Python gradient function TF
looks up for them. (Keras 3's BatchNormalization has no fused op: enable()
also has .keras3 route it through FusedBatchNormV3.) TF 2.21 keeps one registry of gradient functions,
``tensorflow.python.framework.ops.gradient_registry`` (a
``registry.Registry``: ``_registry[op_type] = {"type": fn, "location": ...}``),
and reads it at the moment it builds a gradient:

- graph mode (tf.function, Keras ``fit``), when the step is traced:
  ``gradients_util`` -> ``ops.get_gradient_function(op)`` ->
  ``gradient_registry.lookup(op.type)`` (unless the op carries a per-graph
  override: ``_gradient_op_type`` from ``gradient_override_map`` /
  ``custom_gradient``, which this leaves alone);
- eager (GradientTape), at every ``tape.gradient``: the tape's C++ calls
  ``backprop._gradient_function`` -> ``ops._gradient_registry.lookup(op_name)``.

Both go through the same entry, so enable() replaces the function stored
in the entry of each of the four op types (and disable() puts TF's back).
A tf.function traced before enable() keeps the gradients it was traced
with: enable before the first step (for Keras, before the first fit(), or
set ``model.train_function = None`` to make Keras trace again).

The replacement functions reproduce TF's own (``nn_grad.py``:
``_BaseFusedBatchNormGrad`` and ``_DepthwiseConv2dNativeGrad``: the same
inputs and outputs of the forward op, the same attrs passed through, the
same None gradients for the mean/variance inputs) with kforge's ops
(``kforge.tf.ops``) in place of ``gen_nn_ops``':

- FusedBatchNorm/V2/V3, is_training true: the grad op on (dy, x, scale,
  reserve_space_1, reserve_space_2[, reserve_space_3]) -- the batch
  statistics the forward op saved;
- is_training false: on the population mean/variance (inputs 3 and 4).
  TF's function transposes NCHW/NCDHW to channels-last around the grad op
  (TF's CPU kernel has no NCHW inference gradient); kforge computes NCHW
  natively, so no transposes (the same values up to rounding);
- DepthwiseConv2dNative: both the input gradient (input_sizes =
  shape(input)) and the filter gradient (filter_sizes = shape(filter)),
  with the forward op's strides, padding, explicit_paddings, data_format
  and dilations.

TF's own gradient function (the one enable() replaced, called as it is)
runs instead where kforge does not cover the call: a forward op placed on a
non-CPU device (kforge's ops are CPU kernels), or FusedBatchNormV3 with
U = bfloat16 (kforge's U is float). Everything TF's CPU forward ops accept
is otherwise covered (T float for V1; half, bfloat16, float for V2/V3;
half, bfloat16, float, double for depthwise; every layout and padding).

``stats()`` counts, per op type, the gradients built with kforge's ops and
with TF's (in graph mode once per trace, in eager once per tape.gradient).
"""
import contextlib
import threading

__all__ = ["enable", "disable", "enabled", "gradients", "stats", "reset_stats", "COVERED_OP_TYPES"]

COVERED_OP_TYPES = ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3", "DepthwiseConv2dNative")

# The Kforge ops are gradients; their own gradients (second derivatives) are
# TF's gradient functions of the ops they mirror, which read only inputs and
# attrs with the same names.
_SECOND_ORDER = {
    "KforgeFusedBatchNormGrad": "FusedBatchNormGrad",
    "KforgeFusedBatchNormGradV2": "FusedBatchNormGradV2",
    "KforgeFusedBatchNormGradV3": "FusedBatchNormGradV3",
    "KforgeDepthwiseConv2dNativeBackpropInput": "DepthwiseConv2dNativeBackpropInput",
    "KforgeDepthwiseConv2dNativeBackpropFilter": "DepthwiseConv2dNativeBackpropFilter",
}

_lock = threading.RLock()
_originals = {}          # op type -> TF's gradient function, while enabled
_stats = {}              # op type -> [kforge, tf]
_gpu_visible = None


def _registry():
    from tensorflow.python.framework import ops as tf_ops
    return tf_ops.gradient_registry


def _entry(op_type):
    reg = _registry()
    table = getattr(reg, "_registry", None)
    if not isinstance(table, dict) or op_type not in table or "type" not in table[op_type]:
        raise RuntimeError(
            "kforge.tf.enable: TF's gradient registry has no entry for %s in the form kforge "
            "knows (TF 2.21's registry.Registry); this TF version is not supported" % op_type)
    return table[op_type]


def _count(op_type, which):
    with _lock:
        _stats.setdefault(op_type, [0, 0])[which] += 1


def stats():
    """{op type: (gradients built with kforge's ops, with TF's gradient function)}."""
    with _lock:
        return {k: tuple(v) for k, v in _stats.items()}


def reset_stats():
    with _lock:
        _stats.clear()


def _attr_str(v):
    return v.decode() if isinstance(v, bytes) else v


def _in_xla():
    """True while tracing inside an XLA cluster (tf.function(jit_compile=True)): the Kforge ops
    have no XLA kernels, so TF's gradient is built there."""
    from tensorflow.python.framework import ops as tf_ops
    from tensorflow.python.ops import control_flow_util
    return control_flow_util.GraphOrParentsInXlaContext(tf_ops.get_default_graph())


def _on_cpu(op):
    """True when the forward op runs on the CPU (where kforge's kernels are), outside XLA."""
    import tensorflow as tf
    if _in_xla():
        return False
    dev = getattr(op, "device", None)          # a graph Operation
    if dev is None:                            # eager: backprop's _MockOp has no device
        t = op.inputs[0] if op.inputs else None
        dev = getattr(t, "device", "") or ""
    if not dev:
        return not _gpu_visible                # unplaced: TF would put it on a GPU if it has one
    kind = tf.DeviceSpec.from_string(dev).device_type
    return kind is None or kind.upper() == "CPU"


def _bn_grad(version, op, *grad):
    op_type = COVERED_OP_TYPES[version]
    import tensorflow as tf
    is_training = op.get_attr("is_training")
    covered = _on_cpu(op)
    if version == 2 and op.get_attr("U") != tf.float32:
        covered = False
    if not covered:
        _count(op_type, 1)
        return _originals_or_registered(op_type)(op, *grad)
    from . import ops as kops
    fn = (kops.fused_batch_norm_grad, kops.fused_batch_norm_grad_v2, kops.fused_batch_norm_grad_v3)[version]
    args = {
        "y_backprop": grad[0],
        "x": op.inputs[0],
        "scale": op.inputs[1],
        "epsilon": op.get_attr("epsilon"),
        "data_format": _attr_str(op.get_attr("data_format")),
        "is_training": is_training,
    }
    if is_training:
        # the batch mean and the variance the forward op saved for its gradient
        args["reserve_space_1"] = op.outputs[3]
        args["reserve_space_2"] = op.outputs[4]
    else:
        # population statistics; kforge computes NCHW/NCDHW natively (TF transposes)
        args["reserve_space_1"] = op.inputs[3]
        args["reserve_space_2"] = op.inputs[4]
    if version == 2:
        args["reserve_space_3"] = op.outputs[5]
    out = fn(**args)
    _count(op_type, 0)
    return out.x_backprop, out.scale_backprop, out.offset_backprop, None, None


def _fused_batch_norm_grad(op, *grad):
    return _bn_grad(0, op, *grad)


def _fused_batch_norm_v2_grad(op, *grad):
    return _bn_grad(1, op, *grad)


def _fused_batch_norm_v3_grad(op, *grad):
    return _bn_grad(2, op, *grad)


def _depthwise_conv2d_native_grad(op, grad):
    op_type = "DepthwiseConv2dNative"
    if not _on_cpu(op):
        _count(op_type, 1)
        return _originals_or_registered(op_type)(op, grad)
    import tensorflow as tf
    from . import ops as kops
    attrs = {
        "strides": op.get_attr("strides"),
        "padding": _attr_str(op.get_attr("padding")),
        "explicit_paddings": op.get_attr("explicit_paddings"),
        "data_format": _attr_str(op.get_attr("data_format")),
        "dilations": op.get_attr("dilations"),
    }
    dx = kops.depthwise_conv2d_native_backprop_input(
        input_sizes=tf.shape(op.inputs[0]), filter=op.inputs[1], out_backprop=grad, **attrs)
    dw = kops.depthwise_conv2d_native_backprop_filter(
        input=op.inputs[0], filter_sizes=tf.shape(op.inputs[1]), out_backprop=grad, **attrs)
    _count(op_type, 0)
    return [dx, dw]


_KFORGE_FNS = {
    "FusedBatchNorm": _fused_batch_norm_grad,
    "FusedBatchNormV2": _fused_batch_norm_v2_grad,
    "FusedBatchNormV3": _fused_batch_norm_v3_grad,
    "DepthwiseConv2dNative": _depthwise_conv2d_native_grad,
}


def _originals_or_registered(op_type):
    """TF's gradient function for op_type (saved by enable())."""
    fn = _originals.get(op_type)
    if fn is None:  # disabled meanwhile: the registry holds TF's again
        fn = _entry(op_type)["type"]
        if fn is _KFORGE_FNS[op_type]:
            raise RuntimeError("kforge.tf: TF's gradient function for %s is lost" % op_type)
    return fn


def _register_second_order():
    reg = _registry()
    have = set(reg.list())
    for kop, tf_op in _SECOND_ORDER.items():
        if kop in have:
            continue

        def second(op, *grads, _tf_op=tf_op):
            return _entry(_tf_op)["type"](op, *grads)
        second.__name__ = "_%s_grad" % kop
        reg.register(second, kop)


def enable():
    """Makes gradients of TF's batch norm and depthwise convolution ops use kforge's kernels.

    Idempotent; thread-safe (the registry entries change under a lock, each
    by one assignment). Loads (on first use builds) kforge's TF op library
    first, so a missing compiler is reported here, not in the middle of a
    trace. Affects gradients built after it: tf.functions traced before keep
    theirs.
    """
    global _gpu_visible
    with _lock:
        if _originals:
            return
        import tensorflow as tf
        from . import load
        load()
        _gpu_visible = bool(tf.config.list_logical_devices("GPU"))
        entries = {t: _entry(t) for t in COVERED_OP_TYPES}  # all or nothing
        _register_second_order()
        for t, e in entries.items():
            _originals[t] = e["type"]
        for t, e in entries.items():
            e["type"] = _KFORGE_FNS[t]
        from . import keras3  # Keras 3's batch norm has no fused op to reroute: give it one
        keras3.enable(_gpu_visible)


def disable():
    """Puts TF's gradient functions back (idempotent)."""
    with _lock:
        from . import keras3
        keras3.disable()
        for t, fn in list(_originals.items()):
            e = _entry(t)
            if e["type"] is _KFORGE_FNS[t]:
                e["type"] = fn
            del _originals[t]


def enabled():
    """True while kforge's gradient functions are in TF's registry."""
    with _lock:
        if not _originals:
            return False
        return all(_entry(t)["type"] is _KFORGE_FNS[t] for t in COVERED_OP_TYPES)


@contextlib.contextmanager
def gradients(enable_kforge=True):
    """``with kforge.tf.gradients():`` kforge's gradients inside the block, the previous state after.

    ``gradients(False)`` is TF's gradients inside the block. Gradients are
    chosen when they are built (tape.gradient, tf.function tracing), so a
    tf.function traced inside the block keeps kforge's gradients outside it.
    The registry is process-wide: the state applies to every thread.
    """
    with _lock:
        before = enabled()
        if enable_kforge:
            enable()
        else:
            disable()
    try:
        yield
    finally:
        with _lock:
            if before:
                enable()
            else:
                disable()


def _publish():
    # kforge.tf resolves enable/disable/enabled lazily from this module; make the
    # rest of the public names reachable as kforge.tf.<name> once it is imported.
    import sys
    pkg = sys.modules.get(__name__.rpartition(".")[0])
    if pkg is not None:
        for name in ("gradients", "stats", "reset_stats"):
            if name not in vars(pkg):
                setattr(pkg, name, globals()[name])


_publish()
