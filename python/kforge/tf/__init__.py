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
import re
import threading

__all__ = ["load", "library_path", "num_threads", "plan_stats", "forwarded_outputs", "env_threads", "ops"]

_lock = threading.Lock()
# The loaded library, in a dict rather than module globals assigned under `global`: load()
# also runs converted by AutoGraph (first use inside a tf.function), whose converted code does
# not write such globals back (kforge.tf._cdll stayed None). _cdll/_module: __getattr__.
_state = {"module": None, "cdll": None}
_MAX_THREADS = 4096  # KFPY_POOL_MAX_THREADS (python/src/kfpy_pool.h)


def _intra_op_threads(tf):
    n = tf.config.threading.get_intra_op_parallelism_threads()
    return n if n and n > 0 else (os.cpu_count() or 1)


def env_threads():
    """$KFORGE_TF_THREADS as the pool's thread count, None when unset or blank.

    Raises ValueError for anything but an integer from 1 to 4096 (the C library refuses
    the same values when it creates the pool)."""
    env = os.environ.get("KFORGE_TF_THREADS", "")
    if not env.strip():
        return None
    if not re.fullmatch(r"[ \t\n\v\f\r]*\+?[0-9]+[ \t]*", env) or not 1 <= int(env) <= _MAX_THREADS:
        raise ValueError('KFORGE_TF_THREADS="%s" is not a thread count (an integer from 1 to %d)'
                         % (env, _MAX_THREADS))
    return int(env)


def load():
    """Builds (first use) and loads kforge's custom-op library; returns the op module (cached).

    The ops run on kforge's thread pool (TF's C kernel API does not give
    kernels TF's intra-op pool), of $KFORGE_TF_THREADS threads when it is
    set (it wins; an invalid value is a ValueError), else of TF's intra-op
    setting at the first load (0: all cores).
    """
    if _state["module"] is not None:
        return _state["module"]
    threads = env_threads()
    with _lock:
        if _state["module"] is None:
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
            if threads is None:
                cdll.kforge_tf_set_threads(_intra_op_threads(tf))
            _state["cdll"] = cdll
            _state["module"] = module
    return _state["module"]


def library_path():
    """The path of the custom-op library for the running TF (building it if needed)."""
    from . import _build
    return _build.build()


def num_threads():
    """Threads of the pool the ops run on (creates the pool)."""
    load()
    cdll = _state["cdll"]
    cdll.kforge_tf_num_threads.restype = ctypes.c_int
    n = cdll.kforge_tf_num_threads()
    if n < 0:
        env_threads()  # raises: the variable changed after load()
    return n


def plan_stats():
    """(plans made, calls that reused a cached plan) over all kernels of this process."""
    load()
    made, reused = ctypes.c_longlong(), ctypes.c_longlong()
    _state["cdll"].kforge_tf_plan_stats(ctypes.byref(made), ctypes.byref(reused))
    return made.value, reused.value


def forwarded_outputs():
    """Outputs written over an input's buffer, over all kernels of this process.

    A batch-norm gradient's x_backprop takes y_backprop's buffer when TF can
    forward it (TF_ForwardInputOrAllocateOutput: nothing else holds it, e.g.
    an intermediate of a tf.function consumed only by this op).
    """
    load()
    cdll = _state["cdll"]
    cdll.kforge_tf_forward_stats.restype = ctypes.c_longlong
    return cdll.kforge_tf_forward_stats()


def __getattr__(name):
    # ops imports TF: loaded lazily. The Keras helpers live in .keras (when present).
    if name in ("_cdll", "_module"):
        return _state[name[1:]]
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
