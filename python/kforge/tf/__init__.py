"""kforge inside TensorFlow: custom ops (kforge.tf.ops) and Keras integration.

    import kforge.tf
    mod = kforge.tf.load()            # the loaded op library (built on first use)
    from kforge.tf import ops
    ops.fused_batch_norm_grad_v3(y_backprop=..., x=..., ...)   # as tf.raw_ops

docs/tf.md describes the ops, threads, plan caching and errors.
"""
import ctypes
import importlib
import os
import threading

__all__ = ["load", "library_path", "num_threads", "plan_stats", "forwarded_outputs", "ops"]

_lock = threading.Lock()
_module = None
_cdll = None


def _intra_op_threads(tf):
    n = tf.config.threading.get_intra_op_parallelism_threads()
    return n if n and n > 0 else (os.cpu_count() or 1)


def load():
    """Builds (first use) and loads kforge's custom-op library; returns the op module (cached).

    The ops run on kforge's thread pool (TF's C kernel API does not give
    kernels TF's intra-op pool), sized from TF's intra-op setting at the
    first load (0: all cores), unless $KFORGE_TF_THREADS is set.
    """
    global _module, _cdll
    if _module is not None:
        return _module
    with _lock:
        if _module is None:
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow as tf
            from . import _build
            path = _build.build()
            # TF first: its loader watches the ops the library's constructor
            # registers (a library dlopen'ed before would register them unseen).
            module = tf.load_op_library(path)
            cdll = ctypes.CDLL(path)  # the same handle; the pool is made at the first call
            cdll.kforge_tf_set_threads.argtypes = [ctypes.c_int]
            cdll.kforge_tf_set_threads.restype = ctypes.c_int
            env = os.environ.get("KFORGE_TF_THREADS", "").strip()
            if not env:
                cdll.kforge_tf_set_threads(_intra_op_threads(tf))
            _cdll = cdll
            _module = module
    return _module


def library_path():
    """The path of the custom-op library for the running TF (building it if needed)."""
    from . import _build
    return _build.build()


def num_threads():
    """Threads of the pool the ops run on (creates the pool)."""
    load()
    _cdll.kforge_tf_num_threads.restype = ctypes.c_int
    return _cdll.kforge_tf_num_threads()


def plan_stats():
    """(plans made, calls that reused a cached plan) over all kernels of this process."""
    load()
    made, reused = ctypes.c_longlong(), ctypes.c_longlong()
    _cdll.kforge_tf_plan_stats(ctypes.byref(made), ctypes.byref(reused))
    return made.value, reused.value


def forwarded_outputs():
    """Outputs written over an input's buffer, over all kernels of this process.

    A batch-norm gradient's x_backprop takes y_backprop's buffer when TF can
    forward it (TF_ForwardInputOrAllocateOutput: nothing else holds it, e.g.
    an intermediate of a tf.function consumed only by this op).
    """
    load()
    _cdll.kforge_tf_forward_stats.restype = ctypes.c_longlong
    return _cdll.kforge_tf_forward_stats()


def __getattr__(name):
    # ops imports TF: loaded lazily. The Keras helpers live in .keras (when present).
    if name == "ops":
        return importlib.import_module(__name__ + ".ops")
    if name in ("enable", "disable", "enabled", "gradients", "stats", "reset_stats"):
        try:
            keras = importlib.import_module(__name__ + ".keras")
        except ModuleNotFoundError as e:
            if e.name != __name__ + ".keras":
                raise
            raise AttributeError("kforge.tf.%s needs kforge.tf.keras, which is not installed" % name) from e
        return getattr(keras, name)
    raise AttributeError("module 'kforge.tf' has no attribute %r" % name)
