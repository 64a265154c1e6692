"""Measured plans and wisdom (docs/tuning.md): the package-wide plan mode and the wisdom
file, over the C library's kf_wisdom_* calls.

    import kforge, kforge.wisdom
    kforge.wisdom.set_mode("measure")     # every new plan times its candidates
    ...                                   # run the model once
    kforge.wisdom.save("model.wisdom")    # merged into the file, atomically
    kforge.wisdom.load("model.wisdom")    # later, in another process: plans use it

KFORGE_PLAN=measure and KFORGE_WISDOM=FILE do the same from the environment;
set_mode("measure-cold") (KFORGE_PLAN=measure-cold) times with the call's buffers
evicted from the caches before each run, as a model's calls find their data.
"""
import ctypes
import os
from typing import Union

from . import _runtime
from ._native import lib

__all__ = ["set_mode", "mode", "load", "save", "forget", "count"]

_MODES = {"default": 0, "measure": 1, "rule": 2, "measure-cold": 3}


def set_mode(mode_name: str) -> None:
    """"measure": new plans time their candidates (unless wisdom knows the call);
    "measure-cold": the same, each timed run's buffers evicted from the caches first; "rule": the
    rule alone, wisdom ignored; "default": wisdom when it knows the call, else as KFORGE_PLAN
    says. kforge.plan(..., measure=...) overrides it for one plan."""
    if mode_name not in _MODES:
        raise ValueError("mode must be one of %s, not %r" % (", ".join(sorted(_MODES)), mode_name))
    _runtime._mode[0] = _MODES[mode_name]


def mode() -> str:
    """The package-wide plan mode."""
    return {v: k for k, v in _MODES.items()}[_runtime._mode[0]]


def _path(path: Union[str, "os.PathLike[str]"]) -> bytes:
    return os.fsencode(os.fspath(path))


def load(path: Union[str, "os.PathLike[str]"]) -> None:
    """Imports a wisdom file: entries of this CPU and build join the table (others are skipped
    with one line on stderr each); a corrupt file raises KforgeError (rule "wisdom.corrupt")
    and imports nothing. Cached plans are dropped so that the next calls use it."""
    err = _runtime._Error()
    if lib.kf_wisdom_import(_path(path), ctypes.addressof(err)) != 0:
        raise _runtime._fail(err)
    _runtime.clear_cache()


def save(path: Union[str, "os.PathLike[str]"]) -> None:
    """Exports the table, merged under a lock with what the file holds (other CPUs' and
    other processes' entries stay), replacing the file atomically."""
    err = _runtime._Error()
    if lib.kf_wisdom_export(_path(path), ctypes.addressof(err)) != 0:
        raise _runtime._fail(err)


def forget() -> None:
    """Drops every entry in memory (and the cached plans that used them)."""
    lib.kf_wisdom_forget()
    _runtime.clear_cache()


def count() -> int:
    """Entries in memory."""
    return int(lib.kf_wisdom_count())
