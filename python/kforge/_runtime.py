"""The ctypes layer under the generated op functions (kforge/_ops.py).

A call is marshalled as: a signature (op, dtypes, shapes, values of the
inputs read at plan time, attrs with floats by their bits, threads), a plan
from a bounded LRU cache of plans keyed by that signature (kf_plan_op on a
miss, so the op's rules are checked before any input is copied; each plan
owns its scratch, allocated once), then the inputs as C-contiguous native
arrays (copied only when they are not) and kf_execute into fresh 64-byte
aligned or caller-given (``out=``) arrays. Op metadata comes from the generated _ops.py (the specs)
and is checked against the library's own tables (kf_op_input_name, ...) at
import.
"""
import atexit
import collections
import ctypes
import math
import os
import struct
import threading
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import ml_dtypes
import numpy as np

from . import _capi
from ._native import lib

__all__ = ["KforgeError", "Plan", "plan", "last_kernel", "last_plan", "kernels", "cache_info", "clear_cache",
           "set_cache_size", "dtypes"]


class KforgeError(Exception):
    """Every error kforge reports: TF's message (str(e)), .status (the kf_status
    name: "InvalidArgument", "Unimplemented", ...) and .rule (the spec's rule id,
    "bngrad.same_shape"; rules the Python layer checks itself are "py.*")."""

    def __init__(self, message: str, status: str = "InvalidArgument", rule: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.rule = rule

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return "KforgeError(%r, status=%r, rule=%r)" % (self.message, self.status, self.rule)


# ------------------------------------------------------------ kforge.h's structs
_MAX_RANK = 8  # KF_MAX_RANK (checked against the library below)
_MAX_KEY = 12  # KF_MAX_KEY


class _TensorDesc(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int), ("dims", ctypes.c_int64 * _MAX_RANK),
                ("host_data", ctypes.c_void_p)]


class _Error(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("rule", ctypes.c_char_p), ("message", ctypes.c_char * 320)]


class _PlanOptions(ctypes.Structure):
    _fields_ = [("kernel", ctypes.c_char_p), ("generic_only", ctypes.c_int), ("isas", ctypes.c_uint),
                ("threads", ctypes.c_void_p), ("measure", ctypes.c_int), ("buffers", ctypes.c_void_p),
                ("fresh_outputs", ctypes.c_int)]


class _KernelInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("config", ctypes.c_char_p), ("family", ctypes.c_char_p),
                ("isa", ctypes.c_uint), ("generic", ctypes.c_int), ("num_keys", ctypes.c_int),
                ("key_name", ctypes.c_char_p * _MAX_KEY), ("key_value", (ctypes.c_char * 16) * _MAX_KEY)]


class _Threads(ctypes.Structure):
    _fields_ = [("parallel_for", ctypes.c_void_p), ("pool", ctypes.c_void_p), ("num_threads", ctypes.c_int)]


_P = ctypes.c_void_p
# kforge.h's functions: their signatures are generated from the header
# (generated/python/_capi.py); the pool's (python/src/kfpy_pool.h) are here.
_sig = [
    ("kfpy_sizeof", ctypes.c_size_t, [ctypes.c_int]),
    ("kfpy_alignof", ctypes.c_size_t, [ctypes.c_int]),
    ("kfpy_pool_create", _P, [ctypes.c_int]),
    ("kfpy_pool_destroy", None, [_P]),
    ("kfpy_pool_threads", _P, [_P]),
] + _capi.SIGNATURES
for _name, _res, _args in _sig:
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args
lib.kf_plan_output_desc.restype = ctypes.POINTER(_TensorDesc)

for _i, _cls in ((2, _TensorDesc), (3, _Error), (4, _PlanOptions), (5, _KernelInfo), (6, _Threads)):
    if (lib.kfpy_sizeof(_i), lib.kfpy_alignof(_i)) != (ctypes.sizeof(_cls), ctypes.alignment(_cls)):
        raise ImportError("kforge: the library's %s does not match kforge/_runtime.py's mirror "
                          "(size %d, alignment %d; mirror %d, %d): reinstall the package"
                          % (_cls.__name__, lib.kfpy_sizeof(_i), lib.kfpy_alignof(_i),
                             ctypes.sizeof(_cls), ctypes.alignment(_cls)))


def _aligned(what: int) -> Tuple[Any, int]:
    """A zeroed buffer for the struct kfpy_sizeof(what) describes: (owner, address)."""
    size, align = lib.kfpy_sizeof(what), lib.kfpy_alignof(what)
    buf = ctypes.create_string_buffer(size + align)
    addr = ctypes.addressof(buf)
    return buf, addr + (-addr % align)


def _s(b: Optional[bytes]) -> str:
    return b.decode() if b is not None else ""


# ------------------------------------------------------------ dtypes
_BF16 = np.dtype(ml_dtypes.bfloat16)
#: TF's dtype names and their numpy dtypes (bfloat16: ml_dtypes.bfloat16).
dtypes: Dict[str, np.dtype] = {"half": np.dtype(np.float16), "bfloat16": _BF16, "float": np.dtype(np.float32),
                               "double": np.dtype(np.float64), "int32": np.dtype(np.int32)}
_CODE_OF_NP: Dict[np.dtype, int] = {}
_NP_OF_CODE: Dict[int, np.dtype] = {}
for _tf, _np in dtypes.items():
    _c = lib.kf_dtype_from_name(_tf.encode())
    if _c == 0:
        raise ImportError("kforge: the library knows no dtype %r" % _tf)
    _CODE_OF_NP[_np] = _c
    _NP_OF_CODE[_c] = _np


def _tf_name(dt: np.dtype) -> str:
    c = _CODE_OF_NP.get(dt)
    return _s(lib.kf_dtype_name(c)) if c else str(dt)


# ------------------------------------------------------------ op metadata (from the generated _ops.py)
class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: Default of an attr that has none (TF requires it).
REQUIRED: Any = _Required()


class InputDef(NamedTuple):
    name: str
    type: str   # a dtype attr ("T") or a fixed TF type ("float", "int32")
    host: bool  # read at plan time (host_data): its values are part of the plan's signature


class AttrDef(NamedTuple):
    name: str
    kind: str   # "type", "float", "bool", "string", "int_list"
    default: Any
    allowed: Optional[Tuple[str, ...]]


class OpDef:
    """One op as the specs describe it, bound to the library's kf_op."""

    def __init__(self, name: str, family: str, snake: str, inputs: Sequence[InputDef], outputs: Sequence[str],
                 attrs: Sequence[AttrDef], result: Any) -> None:
        self.name, self.family, self.snake = name, family, snake
        self.inputs, self.outputs, self.attrs, self.result = tuple(inputs), tuple(outputs), tuple(attrs), result
        self.args = tuple(a for a in self.attrs if a.kind != "type")  # what the caller passes
        self.code = lib.kf_op_from_name(name.encode())
        if self.code == 0:
            raise ImportError("kforge: the library has no op %s" % name)
        lib_in = [_s(lib.kf_op_input_name(self.code, i)) for i in range(lib.kf_op_num_inputs(self.code))]
        lib_out = [_s(lib.kf_op_output_name(self.code, i)) for i in range(lib.kf_op_num_outputs(self.code))]
        lib_attrs = [_s(lib.kf_op_attr_name(self.code, i)) for i in range(lib.kf_op_num_attrs(self.code))]
        if (lib_in != [x.name for x in self.inputs] or lib_out != list(self.outputs)
                or lib_attrs != [a.name for a in self.attrs]):
            raise ImportError("kforge: %s: the generated _ops.py and the library disagree on the op's inputs, "
                              "outputs or attrs: reinstall the package" % name)
        self.nin, self.nout = len(self.inputs), len(self.outputs)

    def __repr__(self) -> str:
        return "<kforge op %s>" % self.name


# ------------------------------------------------------------ threads
_MAX_THREADS = 4096  # KFPY_POOL_MAX_THREADS (python/src/kfpy_pool.h)
_pools: Dict[int, Tuple[int, int]] = {}  # threads -> (pool, kf_threads address)
_pools_lock = threading.Lock()


def _threads_of(n: int) -> Optional[int]:
    """The kf_threads address for n threads (None: the calling thread)."""
    with _pools_lock:
        got = _pools.get(n)
        if got is None:
            pool = lib.kfpy_pool_create(n)
            if not pool:
                raise KforgeError("cannot start a pool of %d threads" % n, "Unimplemented", "py.threads")
            got = (pool, lib.kfpy_pool_threads(pool))
            _pools[n] = got
        return got[1]


def _norm_threads(threads: Any) -> int:
    if threads is None:
        return 1
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 0:
        raise KforgeError("threads must be None or an integer >= 0, got %r" % (threads,), rule="py.threads")
    threads = int(threads)
    if threads > _MAX_THREADS:  # never handed to C's int: no truncation
        raise KforgeError("threads must be at most %d, got %d" % (_MAX_THREADS, threads), rule="py.threads")
    return min(os.cpu_count() or 1, _MAX_THREADS) if threads == 0 else threads


def _after_fork_in_child() -> None:
    """A forked child has only the forking thread: a lock another thread held at the fork
    would never be released. The C pools reset themselves (pthread_atfork in kfpy_pool.c):
    the child's first call starts fresh workers, and _shutdown joins none of the parent's."""
    global _pools_lock, _cache_lock
    _pools_lock = threading.Lock()
    _cache_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _shutdown() -> None:
    clear_cache()
    with _pools_lock:
        for pool, _ in _pools.values():
            lib.kfpy_pool_destroy(pool)
        _pools.clear()


# ------------------------------------------------------------ inputs
def _convert(op: OpDef, k: int, a: Any, inputs: Sequence[Any]) -> np.ndarray:
    """A non-ndarray input (list, scalar, numpy scalar, array subclass) as TF converts it: an
    int32 input from integers; a T input in the dtype of its sibling arrays of type T (float
    when there is none: TF converts Python floats to float32)."""
    idef = op.inputs[k]
    if isinstance(a, np.ndarray):  # a subclass (np.matrix, np.memmap): its plain array
        return np.asarray(a)
    want = dtypes.get(idef.type)
    if want is None:
        for j, sib in enumerate(inputs):
            if j != k and op.inputs[j].type == idef.type and isinstance(sib, np.ndarray):
                want = sib.dtype
                break
        else:
            for ad in op.attrs:
                if ad.name == idef.type and isinstance(ad.default, str):
                    want = dtypes.get(ad.default)
            want = want if want is not None else dtypes["float"]
    try:
        v = np.asarray(a)
    except Exception as e:  # ragged lists and the like
        raise KforgeError("%s: cannot convert %r to a tensor (%s)" % (idef.name, a, e), rule="py.convert") from None
    if want.kind == "i":
        if v.size and v.dtype.kind not in "iub":
            raise KforgeError("%s must be int32, got %s values" % (idef.name, v.dtype), rule="py.convert")
        if v.size and (v.min() < -2**31 or v.max() >= 2**31):
            raise KforgeError("%s: value out of the range of int32" % idef.name, rule="py.convert")
    elif v.size and v.dtype.kind not in "iubf":
        raise KforgeError("%s: cannot convert %s values to %s" % (idef.name, v.dtype, _tf_name(want)),
                          rule="py.convert")
    return np.array(v, dtype=want, order="C")  # keeps rank 0 (ascontiguousarray makes it rank 1)


def _native_code(name: str, a: np.ndarray) -> int:
    """The kf_dtype of an array whose dtype is not one of kforge's as given: a byte-swapped one's
    (converted by _dense)."""
    if a.dtype.byteorder in "<>" and a.dtype.newbyteorder("=") in _CODE_OF_NP:
        return _CODE_OF_NP[a.dtype.newbyteorder("=")]
    raise KforgeError("%s: kforge has no dtype for numpy %s (it takes float16 (half), bfloat16 "
                      "(ml_dtypes.bfloat16), float32, float64 and int32)" % (name, a.dtype), rule="py.dtype")


def _dense(a: np.ndarray) -> np.ndarray:
    """a as a C-contiguous, aligned array of native byte order (copied only when it is not)."""
    if a.dtype not in _CODE_OF_NP:
        a = a.astype(a.dtype.newbyteorder("="))
    fl = a.flags
    if not (fl.c_contiguous and fl.aligned):
        a = np.array(a, order="C")
    return a


def _prepare(op: OpDef, inputs: Sequence[Any]) -> Tuple[List[np.ndarray], tuple]:
    """The inputs as arrays and the call's input signature. Only the inputs read at plan time
    are made dense here: the others are copied (_dense) after the plan has checked the call,
    so that an input the op refuses (too large, wrong rank) is never copied."""
    arrays = []
    sig = []
    for k, a in enumerate(inputs):
        if type(a) is not np.ndarray:
            a = _convert(op, k, a, inputs)
        code = _CODE_OF_NP.get(a.dtype)
        if code is None:
            code = _native_code(op.inputs[k].name, a)
        if op.inputs[k].host:
            a = _dense(a)
            sig.append((code, a.shape, a.tobytes()))
        else:
            sig.append((code, a.shape))
        arrays.append(a)
    return arrays, tuple(sig)


def _key_of(v: Any) -> tuple:
    """A hashable key of one attr value: a float by its bits (0.0 == -0.0 and nan != nan as
    values, but they plan differently: an answer must not depend on earlier calls)."""
    if isinstance(v, (float, np.floating)):
        return (type(v), struct.pack("<d", float(v)))
    return (type(v), v)


def _attr_key(attrs: tuple) -> tuple:
    """attrs made hashable, with their types (True and 1 plan differently: 1 is an error)."""
    key = []
    for v in attrs:
        if isinstance(v, (list, tuple, np.ndarray)):
            v = ("L",) + tuple(_key_of(x) for x in (v.tolist() if isinstance(v, np.ndarray) else v))
            key.append(v)
        else:
            key.append(_key_of(v))
    return tuple(key)


def _attr_text(op: OpDef, ad: AttrDef, v: Any) -> bytes:
    """An attr value in kf_attrs_set's text form, checked as TF's Python layer checks its type."""
    def bad(what: str) -> KforgeError:
        return KforgeError("%s: attr '%s' must be %s, got %r" % (op.name, ad.name, what, v), rule="py.attr_type")
    if ad.kind == "float":
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise bad("a float")
        return repr(float(v)).encode()
    if ad.kind == "bool":
        if not isinstance(v, (bool, np.bool_)):
            raise bad("a bool")
        return b"true" if v else b"false"
    if ad.kind == "string":
        if not isinstance(v, (str, bytes)):
            raise bad("a string")
        text = v.encode() if isinstance(v, str) else v
        if b"\0" in text:  # C would read up to the NUL ("SAME\0x" as "SAME"); TF refuses it
            if ad.allowed is None:
                raise KforgeError("%s: attr '%s' must not contain a NUL character, got %r" % (op.name, ad.name, v),
                                  rule="py.attr_type")
            text = text.replace(b"\0", b"\\0")  # refused as a value not allowed, shown escaped
        return text
    if ad.kind == "int_list":
        if isinstance(v, np.ndarray):
            v = v.tolist()
        if not isinstance(v, (list, tuple)) or any(
                isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) for x in v):
            raise bad("a list of ints")
        for x in v:  # what TF's Python layer refuses before its kernel sees the list
            if not -2**63 <= int(x) < 2**63:
                raise KforgeError("%s: attr '%s': value %d out of range for an int64" % (op.name, ad.name, int(x)),
                                  rule="py.attr_type")
        return ",".join(str(int(x)) for x in v).encode()
    raise bad("a value of kind " + ad.kind)


_Bytes0 = ctypes.c_char * 0


def _address(a: np.ndarray) -> int:
    """The data address of a C-contiguous array: through the buffer protocol (a third of the
    cost of a.ctypes.data), which only writeable arrays export writably."""
    try:
        return ctypes.addressof(_Bytes0.from_buffer(a))
    except (TypeError, ValueError, BufferError):
        return a.ctypes.data


def _fail(err: _Error) -> KforgeError:
    return KforgeError(err.message.decode(errors="replace"), _s(lib.kf_status_name(err.status)), _s(err.rule))


# ------------------------------------------------------------ plans
def _kernel_info(index: int) -> Optional[Dict[str, Any]]:
    if index < 0:
        return None
    info = _KernelInfo()
    if lib.kf_kernel_info_of(index, ctypes.addressof(info)) != 0:
        return None
    return _info_dict(info)


def _info_dict(info: _KernelInfo) -> Dict[str, Any]:
    return {"name": _s(info.name) or None, "config": _s(info.config) or None, "family": _s(info.family),
            "isa": _s(lib.kf_isa_name(info.isa)) if info.isa else None, "generic": bool(info.generic),
            "key": {_s(info.key_name[i]): info.key_value[i].value.decode() for i in range(info.num_keys)}}


class OutputSpec(NamedTuple):
    name: str
    shape: Tuple[int, ...]
    dtype: np.dtype


class Plan:
    """A validated call with its selected kernel: what kforge.plan() returns and what the op
    functions cache. Call it with the op's inputs (keywords by TF name, or positional in TF
    order) and optionally out=; they must have the planned dtypes and shapes (and, for inputs
    read at plan time, the planned values)."""

    def __init__(self, op: OpDef, arrays: Sequence[np.ndarray], attrs: tuple, threads: int,
                 sig: tuple, measure: int = 0, fresh: bool = False) -> None:
        self.op = op
        self.threads = threads
        self.signature = sig
        self.attrs = dict(zip((a.name for a in op.args), attrs))
        self._attrs_buf, attrs_addr = _aligned(0)
        self._plan_buf, self._addr = _aligned(1)
        lib.kf_attrs_init(op.code, attrs_addr)
        err = _Error()
        for ad, v in zip(op.args, attrs):
            if v is REQUIRED:
                continue  # left unset: the planner reports it as TF does
            if lib.kf_attrs_set(op.code, attrs_addr, ad.name.encode(), _attr_text(op, ad, v),
                                ctypes.addressof(err)) != 0:
                raise _fail(err)
        descs = (_TensorDesc * op.nin)()
        for k, a in enumerate(arrays):
            d = descs[k]
            if a.ndim > _MAX_RANK:
                raise KforgeError("%s: rank %d exceeds kforge's maximum of %d" % (op.inputs[k].name, a.ndim,
                                                                                  _MAX_RANK), rule="py.rank")
            d.dtype = sig[k][0]
            d.rank = a.ndim
            for i, n in enumerate(a.shape):
                d.dims[i] = n
            d.host_data = a.ctypes.data if op.inputs[k].host else None
        self._options = None
        opt_addr = None
        if threads > 1 or measure or fresh:
            self._options = _PlanOptions(threads=_threads_of(threads) if threads > 1 else None, measure=measure,
                                         fresh_outputs=int(fresh))
            opt_addr = ctypes.addressof(self._options)
        if lib.kf_plan_op(self._addr, op.code, attrs_addr, ctypes.addressof(descs), op.nin, opt_addr,
                          ctypes.addressof(err)) != 0:
            raise _fail(err)
        outs = []
        for i in range(lib.kf_plan_num_outputs(self._addr)):
            d = lib.kf_plan_output_desc(self._addr, i).contents
            outs.append(OutputSpec(op.outputs[i], tuple(d.dims[j] for j in range(d.rank)), _NP_OF_CODE[d.dtype]))
        self.outputs: Tuple[OutputSpec, ...] = tuple(outs)
        self.scratch_bytes: int = lib.kf_plan_scratch_bytes(self._addr)
        name = lib.kf_plan_kernel_name(self._addr)
        #: The kernel that runs (None when the call computes nothing: empty outputs).
        self.kernel: Optional[str] = _s(name) or None
        self.kernel_index: int = lib.kf_plan_kernel_index(self._addr)
        #: How kernel and plan-time parameters were chosen: "rule", "wisdom" or "measure".
        self.source: str = _SOURCES.get(lib.kf_plan_source(self._addr), "rule")
        chosen = ctypes.create_string_buffer(512)
        #: The choices in wisdom's words: "kernel=NAME llc=1" ("" without a kernel).
        self.choices: str = _s(lib.kf_plan_choices(self._addr, chosen, len(chosen)))
        #: kf_kernel_info_of of the kernel: name, config, family, isa, generic, key.
        self.kernel_info: Optional[Dict[str, Any]] = _kernel_info(self.kernel_index)
        key = _KernelInfo()
        #: kf_plan_key: the call's own key (what a kernel must serve), None without a kernel.
        self.key: Optional[Dict[str, str]] = (_info_dict(key)["key"] if lib.kf_plan_key(
            self._addr, ctypes.addressof(key)) == 0 else None)
        # Scratch, pointer arrays and error block, used by one call at a time (the lock); a
        # concurrent call on the same plan gets its own.
        self._scratch = _empty_aligned((self.scratch_bytes,), np.dtype(np.uint8))
        self._lock = threading.Lock()
        self._ins = (ctypes.c_void_p * max(op.nin, 1))()
        self._outs = (ctypes.c_void_p * max(len(outs), 1))()
        self._err = _Error()
        self._run_args = (ctypes.addressof(self._ins), ctypes.addressof(self._outs),
                          self._scratch.ctypes.data if self.scratch_bytes else None, self.scratch_bytes,
                          ctypes.addressof(self._err))
        self._single = op.result is None

    @property
    def output_shapes(self) -> Tuple[Tuple[int, ...], ...]:
        return tuple(o.shape for o in self.outputs)

    @property
    def output_dtypes(self) -> Tuple[np.dtype, ...]:
        return tuple(o.dtype for o in self.outputs)

    def __repr__(self) -> str:
        return "<kforge.Plan %s kernel=%s threads=%d outputs=%s scratch=%d>" % (
            self.op.name, self.kernel, self.threads,
            ", ".join("%s%s %s" % (o.name, list(o.shape), _tf_name(o.dtype)) for o in self.outputs),
            self.scratch_bytes)

    def _check_out(self, out: Any, arrays: Sequence[np.ndarray]) -> List[np.ndarray]:
        if self._single and isinstance(out, np.ndarray):
            out = (out,)
        if isinstance(out, np.ndarray) or not isinstance(out, (list, tuple)) or len(out) != len(self.outputs):
            raise KforgeError("%s: out must be %s of %d arrays" % (
                self.op.name, "an array or a sequence" if self._single else "a sequence", len(self.outputs)),
                rule="py.out")
        outs = list(out)
        for i, (o, spec) in enumerate(zip(outs, self.outputs)):
            if type(o) is np.ndarray and o.dtype == spec.dtype and o.shape == spec.shape:
                fl = o.flags
                if fl.c_contiguous and fl.aligned and fl.writeable:
                    continue
            what = "%s: out[%d] (%s)" % (self.op.name, i, spec.name)
            if not isinstance(o, np.ndarray):
                raise KforgeError("%s must be a numpy array, got %s" % (what, type(o).__name__), rule="py.out")
            if o.dtype != spec.dtype or o.shape != spec.shape:
                raise KforgeError("%s must be %s %s, got %s %s" % (what, _tf_name(spec.dtype), list(spec.shape),
                                                                   _tf_name(o.dtype), list(o.shape)), rule="py.out")
            fl = o.flags
            if not (fl.c_contiguous and fl.aligned):
                raise KforgeError("%s must be C-contiguous and aligned" % what, rule="py.out")
            if not fl.writeable:
                raise KforgeError("%s must be writeable" % what, rule="py.out")
        return outs

    def _check_overlap(self, arrays: Sequence[np.ndarray], in_addr: Sequence[int], outs: Sequence[np.ndarray],
                       out_addr: Sequence[Optional[int]]) -> None:
        """No out= array may share a byte with an input or another output (all are C-contiguous:
        their bytes are [address, address + nbytes))."""
        for i, (o, lo) in enumerate(zip(outs, out_addr)):
            if lo is None:
                continue
            hi = lo + o.nbytes
            for k, (a, alo) in enumerate(zip(arrays, in_addr)):
                if lo < alo + a.nbytes and alo < hi and a.nbytes:
                    raise KforgeError("%s: out[%d] (%s) overlaps input %s" % (
                        self.op.name, i, self.outputs[i].name, self.op.inputs[k].name), rule="py.out")
            for j in range(i):
                blo = out_addr[j]
                if blo is not None and lo < blo + outs[j].nbytes and blo < hi:
                    raise KforgeError("%s: out[%d] (%s) overlaps out[%d]" % (
                        self.op.name, i, self.outputs[i].name, j), rule="py.out")

    def _run(self, arrays: Sequence[np.ndarray], out: Any) -> Any:
        arrays = [_dense(a) for a in arrays]
        in_addr = [_address(a) for a in arrays]
        if out is None:
            outs = [_empty_aligned(o.shape, o.dtype) for o in self.outputs]
            out_addr = [_address(o) if o.size else None for o in outs]
        else:
            outs = self._check_out(out, arrays)
            out_addr = [_address(o) if o.size else None for o in outs]
            self._check_overlap(arrays, in_addr, outs, out_addr)
        if self._lock.acquire(False):
            try:
                self._execute(self._ins, self._outs, self._run_args, in_addr, out_addr)
            finally:
                self._lock.release()
        else:  # the same plan running on another thread: own scratch and pointer arrays
            ins = (ctypes.c_void_p * max(self.op.nin, 1))()
            ptrs = (ctypes.c_void_p * max(len(outs), 1))()
            err = _Error()
            scratch = _empty_aligned((self.scratch_bytes,), np.dtype(np.uint8))
            self._execute(ins, ptrs, (ctypes.addressof(ins), ctypes.addressof(ptrs),
                                      scratch.ctypes.data if self.scratch_bytes else None, self.scratch_bytes,
                                      ctypes.addressof(err)), in_addr, out_addr)
        _tls.plan = self
        if self._single:
            return outs[0]
        return self.op.result._make(outs)

    def _execute(self, ins: Any, ptrs: Any, args: tuple, in_addr: Sequence[int],
                 out_addr: Sequence[Optional[int]]) -> None:
        for k, a in enumerate(in_addr):
            ins[k] = a
        for i, o in enumerate(out_addr):
            ptrs[i] = o
        if lib.kf_execute(self._addr, *args) != 0:
            err = _Error.from_address(args[4])
            raise _fail(err)

    def __call__(self, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        op = self.op
        if args and kwargs:
            raise TypeError("Plan: pass the inputs positionally or by name, not both")
        if kwargs:
            missing = [x.name for x in op.inputs if x.name not in kwargs]
            extra = sorted(set(kwargs) - {x.name for x in op.inputs})
            if missing or extra:
                raise TypeError("Plan(%s): missing inputs %s, unknown %s" % (op.name, missing, extra))
            args = tuple(kwargs[x.name] for x in op.inputs)
        if len(args) != op.nin:
            raise TypeError("Plan(%s) takes %d inputs, got %d" % (op.name, op.nin, len(args)))
        arrays, sig = _prepare(op, args)
        if sig != self.signature:
            raise KforgeError("%s: the inputs' dtypes, shapes or plan-time values differ from the plan's"
                              % op.name, rule="py.plan_mismatch")
        return self._run(arrays, out)


_tls = threading.local()

#: Alignment of the arrays kforge allocates (outputs, scratch): a cache line and a full
#: AVX-512 vector, where numpy's large arrays sit 16 bytes past one.
_ALIGN = 64


def _empty_aligned(shape: Tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """np.empty(shape, dtype) starting on a _ALIGN-byte boundary (over-allocated, sliced)."""
    nbytes = math.prod(shape) * dtype.itemsize
    buf = np.empty(nbytes + _ALIGN, np.uint8)
    off = -buf.ctypes.data % _ALIGN
    return buf[off:off + nbytes].view(dtype).reshape(shape)


def last_kernel() -> Optional[str]:
    """The kernel of the last call that ran on this thread (None before any, or when it
    computed nothing). last_plan() gives the whole Plan."""
    p = getattr(_tls, "plan", None)
    return p.kernel if p is not None else None


def last_plan() -> Optional[Plan]:
    """The Plan of the last call that ran on this thread (None before any)."""
    return getattr(_tls, "plan", None)


# ------------------------------------------------------------ the plan cache
_cache: "collections.OrderedDict[tuple, Plan]" = collections.OrderedDict()
_cache_lock = threading.Lock()
_cache_max = 256
_stats = {"hits": 0, "misses": 0}


def set_cache_size(n: int) -> None:
    """Bounds the plan cache to n plans (least recently used evicted; 0 disables caching)."""
    global _cache_max
    if n < 0:
        raise ValueError("cache size must be >= 0")
    with _cache_lock:
        _cache_max = n
        while len(_cache) > n:
            _cache.popitem(last=False)


def clear_cache() -> None:
    """Drops every cached plan and resets the counters."""
    with _cache_lock:
        _cache.clear()
        _stats["hits"] = _stats["misses"] = 0


def cache_info() -> Dict[str, int]:
    """{"hits", "misses", "size", "max_size"} of the plan cache."""
    with _cache_lock:
        return {"hits": _stats["hits"], "misses": _stats["misses"], "size": len(_cache), "max_size": _cache_max}


_SOURCES = {0: "rule", 1: "wisdom", 2: "measure"}
#: The package-wide plan mode (kforge.wisdom.set_mode): 0 as KFORGE_PLAN says, 1 measure, 2 rule,
#: 3 measure cold (kf_plan_options.measure's values).
_mode = [0]


def _measure_mode(measure: Any) -> int:
    """kf_plan_options.measure for plan(..., measure=...): True, False or "cold"."""
    if measure == "cold":
        return 3
    if isinstance(measure, bool):
        return 1 if measure else 2
    raise ValueError("measure must be True, False or \"cold\", not %r" % (measure,))


def _plan_for(op: OpDef, inputs: Sequence[Any], attrs: tuple, threads: Any,
              measure: Any = None, fresh: bool = False) -> Tuple[Plan, List[np.ndarray]]:
    arrays, sig = _prepare(op, inputs)
    n = 1 if threads is None else _norm_threads(threads)
    mode = _mode[0] if measure is None else _measure_mode(measure)
    key = (op.code, sig, _attr_key(attrs), n, mode, fresh)
    with _cache_lock:
        p = _cache.get(key)
        if p is not None:
            _cache.move_to_end(key)
            _stats["hits"] += 1
            return p, arrays
        _stats["misses"] += 1
    p = Plan(op, arrays, attrs, n, sig, mode, fresh)
    with _cache_lock:
        if _cache_max:
            _cache[key] = p
            while len(_cache) > _cache_max:
                _cache.popitem(last=False)
    return p, arrays


def call(op: OpDef, inputs: tuple, attrs: tuple, out: Any, threads: Any) -> Any:
    """Runs op (the generated functions call this): plan (cached), then execute. Without out=
    the outputs are allocated here, in no cache: the plan says so (kf_plan_options.fresh_outputs)."""
    p, arrays = _plan_for(op, inputs, attrs, threads, fresh=out is None)
    return p._run(arrays, out)


def _bind(op: OpDef, kwargs: Dict[str, Any]) -> Tuple[tuple, tuple, Any]:
    names = {x.name for x in op.inputs} | {a.name for a in op.args} | {"threads", "name"}
    extra = sorted(set(kwargs) - names)
    if extra:
        raise TypeError("%s() got unexpected keyword arguments %s" % (op.name, extra))
    missing = [x.name for x in op.inputs if x.name not in kwargs]
    missing += [a.name for a in op.args if a.default is REQUIRED and a.name not in kwargs]
    if missing:
        raise TypeError("%s() missing required keyword arguments %s" % (op.name, missing))
    inputs = tuple(kwargs[x.name] for x in op.inputs)
    attrs = tuple(kwargs.get(a.name, a.default) for a in op.args)
    return inputs, attrs, kwargs.get("threads")


def plan(op_name: str, **kwargs: Any) -> Plan:
    """The Plan of a call, as the op function would make it: plan("FusedBatchNormGradV3",
    y_backprop=..., x=..., ..., epsilon=..., threads=...) (same keywords, out= excepted).
    It tells the kernel (.kernel, .kernel_info, .key), the outputs (.outputs, .output_shapes,
    .output_dtypes), .scratch_bytes and .threads, and runs calls of the same signature:
    p(y_backprop=..., ...) or p(dy, x, ...). Plans come from (and go into) the plan cache.
    measure=True times the candidate kernels and plan-time parameters on this call's shapes
    (unless wisdom knows the call), measure="cold" the same with the call's buffers evicted
    from the caches before each timed run (as a model's calls find their data),
    measure=False keeps the rule alone; by default the
    package-wide mode decides (kforge.wisdom). .source says which: "rule", "wisdom", "measure".
    It is the plan of a call without out= (outputs fresh, docs/c_api.md): a call with out= plans
    apart, for buffers the caller may keep warm."""
    from ._ops import OPS
    op = OPS.get(op_name)
    if op is None:
        raise KforgeError("unknown op %r (kforge has %s)" % (op_name, ", ".join(sorted(OPS))), rule="py.op")
    measure = kwargs.pop("measure", None)
    inputs, attrs, threads = _bind(op, kwargs)
    return _plan_for(op, inputs, attrs, threads, measure, fresh=True)[0]


def kernels() -> List[Dict[str, Any]]:
    """Every kernel compiled into the library (kf_kernel_info_of), in selection order."""
    return [d for d in (_kernel_info(i) for i in range(lib.kf_kernel_count())) if d is not None]
