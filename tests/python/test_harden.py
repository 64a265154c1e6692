"""Issue 28 and 26 in Python: fork safety (os.fork, a multiprocessing fork Pool, fork-then-exit,
at threads=1 and 2, each in a subprocess with a timeout), answers that do not depend on earlier
calls (floats in the plan cache by their bits), TF's refusals (scalars, NUL, long lists, huge
ints, threads), inputs checked before they are copied, and 64-byte aligned outputs."""
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kforge

TIMEOUT = 120  # seconds; a hang is the failure these tests look for


def run_child(code: str) -> str:
    """Runs code in a fresh interpreter (so the fork starts from a known state); a hang fails."""
    try:
        r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        pytest.fail("hung for %d s: %s" % (TIMEOUT, (e.stdout or "")[-2000:]))
    assert r.returncode == 0, r.stdout[-3000:]
    return r.stdout


PRELUDE = """
import os, signal, sys
import numpy as np
import kforge
rng = np.random.default_rng(5)
shape = (4, 8, 8, 16)
kw = dict(y_backprop=rng.standard_normal(shape).astype(np.float32),
          x=rng.standard_normal(shape).astype(np.float32),
          scale=rng.standard_normal(16).astype(np.float32),
          reserve_space_1=rng.standard_normal(16).astype(np.float32),
          reserve_space_2=rng.uniform(0.5, 1.5, 16).astype(np.float32),
          reserve_space_3=np.zeros(0, np.float32))
def call(threads):
    return kforge.fused_batch_norm_grad_v3(**kw, threads=threads)
want = call(1)
def same(got):
    return all(np.array_equal(a, b) for a, b in zip(got, want))
"""


@pytest.mark.parametrize("threads", [1, 2])
def test_os_fork_child_calls_kforge(threads):
    out = run_child(PRELUDE + """
assert same(call(%d))            # the parent's pool exists (threads=2: its workers run)
pid = os.fork()
if pid == 0:
    signal.alarm(60)
    ok = same(call(2)) and same(call(%d)) and same(call(3))
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
assert same(call(2))             # the parent's pool still works
print("fork ok")
""" % (threads, threads))
    assert "fork ok" in out


@pytest.mark.parametrize("threads", [1, 2])
def test_fork_then_exit_without_calling_kforge(threads):
    # sys.exit runs atexit (kforge's _shutdown destroys the pools): it must not join the
    # parent's workers, which the child does not have
    out = run_child(PRELUDE + """
assert same(call(%d)) and same(call(2))
pid = os.fork()
if pid == 0:
    signal.alarm(60)
    sys.exit(0)
_, status = os.waitpid(pid, 0)
assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
print("exit ok")
""" % threads)
    assert "exit ok" in out


@pytest.mark.parametrize("threads", [1, 2])
def test_multiprocessing_fork_pool_workers_call_kforge(threads):
    out = run_child(PRELUDE + """
import multiprocessing as mp
def work(t):
    return same(call(t))
assert same(call(2))
ctx = mp.get_context("fork")
with ctx.Pool(2) as pool:
    res = pool.map_async(work, [%d, 2, %d, 2]).get(timeout=60)
assert res == [True] * 4, res
print("pool ok")
""" % (threads, threads))
    assert "pool ok" in out


def test_fork_while_other_threads_call_kforge():
    # another thread is inside a threads=2 call while this one forks: fork waits for the
    # job to end (kfpy_pool's atfork handlers), and the child's locks are free
    out = run_child(PRELUDE + """
import threading
stop = threading.Event()
def loop():
    while not stop.is_set():
        assert same(call(2))
th = [threading.Thread(target=loop) for _ in range(2)]
for t in th: t.start()
for i in range(20):
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)
        os._exit(0 if same(call(2)) and same(call(1)) else 3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (i, status)
stop.set()
for t in th: t.join()
print("threads ok")
""")
    assert "threads ok" in out


# ------------------------------------------------------------ no answer depends on earlier calls
def bn_infer(eps):
    kw = dict(y_backprop=np.ones((1, 1, 2, 1), np.float32), x=np.ones((1, 1, 2, 1), np.float32),
              scale=np.ones(1, np.float32), reserve_space_1=np.zeros(1, np.float32),
              reserve_space_2=np.array([-0.0], np.float32), reserve_space_3=np.zeros(0, np.float32))
    return kforge.fused_batch_norm_grad_v3(**kw, epsilon=eps, is_training=False).x_backprop.reshape(-1)


@pytest.mark.parametrize("first", [0.0, -0.0, np.float32(0.0), np.float64(-0.0)])
def test_epsilon_zero_and_minus_zero_plan_apart(first):
    # var + eps: -0 + -0 = -0, rsqrt(-0) = -inf (TF's answer); -0 + 0 = +0, +inf
    kforge.clear_cache()
    bn_infer(first)
    assert np.array_equal(bn_infer(-0.0), [-np.inf, -np.inf])
    assert np.array_equal(bn_infer(0.0), [np.inf, np.inf])
    assert np.array_equal(bn_infer(np.float32(-0.0)), [-np.inf, -np.inf])
    assert kforge.cache_info()["misses"] >= 2


def test_nan_epsilon_is_cached_like_any_value():
    kforge.clear_cache()
    for _ in range(3):
        bn_infer(float("nan"))
    assert kforge.cache_info()["misses"] == 1


# ------------------------------------------------------------ TF's refusals
def test_python_scalars_stay_rank_0():
    shape = (1, 2, 2, 3)
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v3(y_backprop=np.ones(shape, np.float32), x=np.ones(shape, np.float32),
                                        scale=1.0, reserve_space_1=0.0, reserve_space_2=1.0, reserve_space_3=0.0,
                                        is_training=False)
    assert str(e.value) == "scale must be 1-dimensional[]"
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v3(y_backprop=np.ones(shape, np.float32), x=np.ones(shape, np.float32),
                                        scale=np.ones(3, np.float32), reserve_space_1=np.float32(0),
                                        reserve_space_2=np.ones(3, np.float32), reserve_space_3=0.0)
    assert "[]" in str(e.value) and "[1]" not in str(e.value)


def dw(**over):
    kw = dict(input_sizes=[1, 2, 2, 3], filter=np.ones((3, 3, 3, 1), np.float32),
              out_backprop=np.ones((1, 2, 2, 3), np.float32), strides=[1, 1, 1, 1], padding="SAME")
    kw.update(over)
    return kforge.depthwise_conv2d_native_backprop_input(**kw)


@pytest.mark.parametrize("attr,value", [("padding", "SAME\0garbage"), ("padding", b"SAME\0"),
                                        ("data_format", "NHWC\0x")])
def test_nul_in_string_attr_refused(attr, value):
    with pytest.raises(kforge.KforgeError) as e:
        dw(**{attr: value})
    assert e.value.rule == "attr.allowed"
    assert str(e.value).startswith("Value for attr '%s' of \"" % attr)
    assert "\0" not in str(e.value)


def test_long_lists_and_huge_ints_get_tfs_messages():
    # TF 2.21's own messages (tests/tf checks the TF ops against TF itself)
    with pytest.raises(kforge.KforgeError, match=r"^explicit_paddings attribute must contain 8 values, but got: 20$"):
        dw(padding="EXPLICIT", explicit_paddings=[0] * 20)
    with pytest.raises(kforge.KforgeError, match=r"^Sliding window strides field must specify 4 dimensions$"):
        dw(strides=[1] * 20)
    with pytest.raises(kforge.KforgeError,
                       match=r"^Attr strides has value 1099511627776 out of range for an int32$"):
        dw(strides=[1, 2**40, 2**40, 1])
    with pytest.raises(kforge.KforgeError,
                       match=r"^Attr strides has value -1099511627776 out of range for an int32$"):
        dw(strides=[1, -2**40, 1, 1])
    with pytest.raises(kforge.KforgeError, match=r"out of range for an int32$"):
        dw(strides=[1] * 19 + [2**31])  # past the values kept: still checked
    with pytest.raises(kforge.KforgeError, match="out of range for an int64"):
        dw(strides=[1, 2**64, 1, 1])
    # explicit_paddings are int64 in TF: 2**40 passes the attr and fails a shape rule
    with pytest.raises(kforge.KforgeError) as e:
        dw(padding="EXPLICIT", explicit_paddings=[0, 0, 2**40, 0, 0, 0, 0, 0])
    assert "out of range" not in str(e.value)


@pytest.mark.parametrize("threads", [2**32 + 1, 2**31, 4097, 2**64])
def test_threads_beyond_the_pool_limit_refused(threads):
    with pytest.raises(kforge.KforgeError) as e:
        dw(threads=threads)
    assert e.value.rule == "py.threads" and str(threads) in str(e.value)


def test_threads_kept_as_given():
    p = kforge.plan("DepthwiseConv2dNativeBackpropInput", input_sizes=[1, 2, 2, 3],
                    filter=np.ones((3, 3, 3, 1), np.float32), out_backprop=np.ones((1, 2, 2, 3), np.float32),
                    strides=[1, 1, 1, 1], padding="SAME", threads=4096)
    assert p.threads == 4096


# ------------------------------------------------------------ checked before copied
def max_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("elements", [2**31, 2**33])
def test_huge_broadcast_input_refused_without_copying(elements):
    big = np.broadcast_to(np.float16(1), (1, elements // 2**15, 2**15, 1))  # 0 bytes, not contiguous
    c = np.ones(1, np.float32)
    before = max_rss_mib()
    with pytest.raises(kforge.KforgeError) as e:
        kforge.fused_batch_norm_grad_v3(y_backprop=big, x=big, scale=c, reserve_space_1=c, reserve_space_2=c,
                                        reserve_space_3=c)
    assert e.value.rule == "input.too_large", e.value
    assert max_rss_mib() - before < 256  # a copy would be 4 GiB (2^31) or 16 GiB (2^33)


def test_wrong_rank_refused_before_byteswapped_copy():
    # a big-endian input is converted only after the plan accepted the call
    big = np.broadcast_to(np.array(1, ">f4"), (2**15, 2**15))  # a 4 GiB copy, were it made
    c = np.ones(1, np.float32)
    before = max_rss_mib()
    with pytest.raises(kforge.KforgeError, match=r"4 or 5-dimensional\[32768,32768\]"):
        kforge.fused_batch_norm_grad(y_backprop=big, x=big, scale=c, reserve_space_1=c, reserve_space_2=c)
    assert max_rss_mib() - before < 256


def test_byteswapped_inputs_still_compute():
    rng = np.random.default_rng(1)
    kw = dict(y_backprop=rng.standard_normal((2, 3, 3, 4)).astype(np.float32),
              x=rng.standard_normal((2, 3, 3, 4)).astype(np.float32), scale=np.ones(4, np.float32),
              reserve_space_1=np.zeros(4, np.float32), reserve_space_2=np.ones(4, np.float32))
    want = kforge.fused_batch_norm_grad(**kw)
    swapped = dict(kw, x=kw["x"].astype(">f4"), scale=kw["scale"].astype(">f4"))
    got = kforge.fused_batch_norm_grad(**swapped)
    assert all(np.array_equal(a, b) for a, b in zip(want, got))


# ------------------------------------------------------------ issue 26: aligned outputs
@pytest.mark.parametrize("shape,t", [((2, 3, 4, 5), np.float32), ((8, 64, 64, 32), np.float32),
                                     ((3, 5, 7, 2), np.float16), ((1, 1, 1, 1), np.float32)])
def test_outputs_are_64_byte_aligned(shape, t):
    rng = np.random.default_rng(2)
    c = shape[-1]
    got = kforge.fused_batch_norm_grad_v3(
        y_backprop=rng.standard_normal(shape).astype(t), x=rng.standard_normal(shape).astype(t),
        scale=np.ones(c, np.float32), reserve_space_1=np.zeros(c, np.float32),
        reserve_space_2=np.ones(c, np.float32), reserve_space_3=np.zeros(0, np.float32))
    for o in got:
        if o.size:
            assert o.ctypes.data % 64 == 0, (o.shape, o.ctypes.data % 64)
        assert o.flags.c_contiguous and o.flags.writeable and o.dtype in (np.dtype(t), np.dtype(np.float32))
    assert got.x_backprop.shape == shape and got.scale_backprop.shape == (c,)
    d = dw(input_sizes=[2, 33, 17, 3], out_backprop=np.ones((2, 33, 17, 3), np.float32))
    assert d.ctypes.data % 64 == 0 and d.shape == (2, 33, 17, 3)
