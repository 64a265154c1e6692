"""Keras 3's BatchNormalization through TF's fused batch norm, so kforge's gradient runs.

Keras 3 (what ``import keras`` gives with TF 2.21) computes batch norm from
primitive ops (``ops.moments`` then ``tf.nn.batch_normalization``): a
training step has no FusedBatchNorm node, so the gradient functions that
kforge.tf.enable() swaps are never reached. While kforge is enabled this
module replaces ``BatchNormalization.call`` (the class attribute, so every
layer, stock ``keras.applications`` models included, is covered without
rewriting) by one that, in training, runs ``tf.raw_ops.FusedBatchNormV3``
(whose gradient is then kforge's ``KforgeFusedBatchNormGradV3``) and
otherwise calls Keras' own ``call`` unchanged. disable() puts Keras' function
object back.

It computes what Keras 3's layer computes:
- the input cast to float32 first (Keras' compute dtype for float16,
  bfloat16 and float32 inputs), the output cast to the layer's compute dtype;
- the batch variance is the biased one (``tf.nn.moments``) for both the
  normalization and the moving variance. FusedBatchNormV3's output 2
  (batch_variance) is Bessel-corrected on the CPU; its reserve_space_2 is
  the biased variance, so the moving update reads reserve_space_2;
- the moving statistics are updated with Keras' own expression
  (``moving * momentum + batch * (1 - momentum)``), exponential_avg_factor 1.

Inference (``training`` false, or a non-trainable layer), and every setting
the fused op cannot reproduce, run Keras' code; each reason is reported
once (a ``warnings.warn``) and counted (``fallbacks()``).
"""
import threading
import warnings

__all__ = ["enable", "disable", "patched", "stats", "reset_stats", "fallbacks"]

_lock = threading.RLock()
_cls = None             # Keras 3's BatchNormalization while patched
_original = None        # its own call (kept after disable for calls already bound)
_gpu_visible = False
_stats = {"fused": 0, "keras": 0}
_reasons = {}           # reason -> count
_said = set()


def _bn_class():
    """Keras 3's BatchNormalization, or None when Keras 3 is not installed."""
    import importlib.util
    if importlib.util.find_spec("keras") is None:
        return None
    import keras
    if not str(getattr(keras, "__version__", "")).startswith("3."):
        return None
    from keras.src.layers.normalization.batch_normalization import BatchNormalization
    return BatchNormalization


def _fallback(reason):
    with _lock:
        _stats["keras"] += 1
        _reasons[reason] = _reasons.get(reason, 0) + 1
        first = reason not in _said
        _said.add(reason)
    if first:
        warnings.warn("kforge.tf: Keras 3 BatchNormalization runs Keras' own batch norm (not kforge's "
                      "kernels): %s" % reason, RuntimeWarning, stacklevel=4)


def _layout(layer, inputs):
    """(data_format, None) for a covered input, or (None, reason)."""
    rank = inputs.shape.rank
    if rank is None or rank < 2:
        return None, "an input of unknown rank or rank < 2"
    axis = layer.axis % rank if -rank <= layer.axis < rank else None
    if axis == rank - 1:
        return "NHWC", None
    if axis == 1:
        return "NCHW", None
    return None, "axis=%d of a rank-%d input (kforge covers the last axis and axis 1)" % (layer.axis, rank)


def in_xla():
    """True while building a graph XLA compiles (tf.function(jit_compile=True), Keras'
    jit_compile=True): kforge's custom ops have no XLA kernels there."""
    import tensorflow as tf
    from tensorflow.python.ops import control_flow_util
    return bool(control_flow_util.GraphOrParentsInXlaContext(tf.compat.v1.get_default_graph()))


def _why_not(layer, inputs, mask):
    if in_xla():
        return "XLA compilation (jit_compile=True): kforge's ops have no XLA kernels"
    if mask is not None:
        return "a mask (Keras' masked moments)"
    if layer.renorm:
        return "renorm=True (batch renormalization)"
    if layer.synchronized:
        return "synchronized=True (moments all-reduced across replicas)"
    if type(layer)._moments is not _cls._moments:
        return "a subclass that overrides _moments"
    if _gpu_visible:
        return "a GPU is visible (kforge's kernels are CPU kernels; TF's fused op differs there)"
    from keras.src import backend
    if backend.result_type(inputs.dtype, "float32") != "float32":
        return "%s inputs (TF's fused batch norm computes in float32)" % inputs.dtype.name
    return None


def _fused_call(self, inputs, training=None, mask=None):
    original = _original
    if not (isinstance(training, bool) and training and self.trainable) or _cls is None:
        return original(self, inputs, training=training, mask=mask)  # inference: Keras' own
    reason = _why_not(self, inputs, mask)
    fmt = None
    if reason is None:
        fmt, reason = _layout(self, inputs)
    if reason is not None:
        _fallback(reason)
        return original(self, inputs, training=training, mask=mask)
    import tensorflow as tf
    from keras.src import ops
    x = ops.cast(inputs, "float32")
    rank = x.shape.rank
    c = x.shape[self.axis]
    shape = tf.shape(x)
    if rank != 4:  # fold the reduced dims into W: the same per-channel statistics
        x = tf.reshape(x, [shape[0], 1, -1, c] if fmt == "NHWC" else [shape[0], c, 1, -1])
    gamma = ops.cast(self.gamma, "float32") if self.scale else tf.ones([c], tf.float32)
    beta = ops.cast(self.beta, "float32") if self.center else tf.zeros([c], tf.float32)
    empty = tf.zeros([0], tf.float32)
    y, mean, _, _, biased_var, _ = tf.raw_ops.FusedBatchNormV3(
        x=x, scale=gamma, offset=beta, mean=empty, variance=empty, epsilon=self.epsilon,
        exponential_avg_factor=1.0, data_format=fmt, is_training=True)
    # An empty batch: the fused op's variance is 0, its mean NaN; Keras' moments give NaN for
    # both. Adding 0 * mean makes the variance NaN exactly then (exactly itself otherwise).
    biased_var = biased_var + 0.0 * mean
    moving_mean = ops.cast(self.moving_mean, "float32")
    moving_variance = ops.cast(self.moving_variance, "float32")
    self.moving_mean.assign(moving_mean * self.momentum + mean * (1.0 - self.momentum))
    self.moving_variance.assign(moving_variance * self.momentum + biased_var * (1.0 - self.momentum))
    if rank != 4:
        y = tf.reshape(y, shape)
    with _lock:
        _stats["fused"] += 1
    return ops.cast(y, self.compute_dtype)


def enable(gpu_visible=False):
    """Routes Keras 3's BatchNormalization in training through the fused op (idempotent).

    Does nothing where Keras 3 is absent; says once why where its backend is
    not TensorFlow (kforge's ops are TF ops).
    """
    global _cls, _original, _gpu_visible
    with _lock:
        _gpu_visible = bool(gpu_visible)
        if _cls is not None:
            return
        cls = _bn_class()
        if cls is None:
            return
        import keras
        if keras.backend.backend() != "tensorflow":
            if "backend" not in _said:
                _said.add("backend")
                warnings.warn("kforge.tf: Keras 3's backend is %s; kforge's ops are TensorFlow ops, Keras' "
                              "batch norm is left as it is" % keras.backend.backend(), RuntimeWarning,
                              stacklevel=3)
            return
        own = cls.__dict__.get("call")
        if own is None or own is _fused_call:
            raise RuntimeError("kforge.tf: Keras 3's BatchNormalization.call is not Keras' own")
        _original = own
        cls.call = _fused_call
        _cls = cls


def disable():
    """Puts Keras' own BatchNormalization.call back (idempotent)."""
    global _cls
    with _lock:
        if _cls is None:
            return
        if _cls.__dict__.get("call") is _fused_call:
            _cls.call = _original
        _cls = None


def patched():
    """True while Keras 3's BatchNormalization.call is kforge's."""
    with _lock:
        return _cls is not None and _cls.__dict__.get("call") is _fused_call


def stats():
    """{"fused": layer calls through the fused op, "keras": training calls left to Keras}
    (graph mode: once per trace)."""
    with _lock:
        return dict(_stats)


def fallbacks():
    """{reason: training calls left to Keras' own batch norm for it}."""
    with _lock:
        return dict(_reasons)


def reset_stats():
    """Clears the counts and lets each fallback reason be reported again."""
    with _lock:
        _stats.update(fused=0, keras=0)
        _reasons.clear()
        _said.clear()
