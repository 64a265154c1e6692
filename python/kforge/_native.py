"""Where the package's C library and headers are, and the library loaded with ctypes."""
import ctypes
import os

_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib")


def library_path():
    """The shared library built at install time (kforge.h's kf_* and the pool's kfpy_*)."""
    return os.path.join(_DIR, "libkforge.so")


def include_dir():
    """The directory holding kforge.h, kforge_ops.h, kfpy_pool.h and kfg_tf_ops.h."""
    return os.path.join(_DIR, "include")


lib = ctypes.CDLL(library_path())
