"""Measured plans and wisdom from Python (docs/tuning.md): plan(..., measure=True), the
package-wide mode, a save/load round trip, a corrupt file, results against the float64
reference."""
import numpy as np
import pytest

import kforge
import kforge.wisdom
from kfrefs import F32, bn_grad_ref, check, dwbpi_ref, rand


def bn_kw(rng, shape=(2, 6, 6, 24)):
    c = shape[-1]
    return dict(y_backprop=rand(rng, shape, np.float32), x=rand(rng, shape, np.float32),
                scale=rand(rng, (c,), np.float32), reserve_space_1=rand(rng, (c,), np.float32),
                reserve_space_2=rand(rng, (c,), np.float32, 0.5, 1.5), reserve_space_3=np.zeros(0, np.float32))


def dw_kw(rng, n=2, h=9, c=16):
    return dict(input_sizes=[n, h, h, c], filter=rand(rng, (3, 3, c, 1), np.float32),
                out_backprop=rand(rng, (n, h, h, c), np.float32), strides=[1, 1, 1, 1], padding="SAME")


@pytest.fixture(autouse=True)
def fresh():
    kforge.wisdom.forget()
    kforge.wisdom.set_mode("default")
    yield
    kforge.wisdom.forget()
    kforge.wisdom.set_mode("default")


def test_measure_then_wisdom_and_results():
    rng = np.random.default_rng(1)
    kw = bn_kw(rng)
    p = kforge.plan("FusedBatchNormGradV3", **kw, is_training=True, measure=True)
    assert p.source == "measure" and p.choices.startswith("kernel=" + p.kernel)
    r = p(**kw)
    ref = bn_grad_ref(kw["y_backprop"], kw["x"], kw["scale"], kw["reserve_space_1"], kw["reserve_space_2"],
                      0.0001, True)
    check(r[0], ref[0], F32)
    kforge.clear_cache()
    again = kforge.plan("FusedBatchNormGradV3", **kw, is_training=True, measure=True)
    assert again.source == "wisdom" and again.choices == p.choices
    rule = kforge.plan("FusedBatchNormGradV3", **kw, is_training=True, measure=False)
    assert rule.source == "rule"


def test_package_wide_mode_round_trip(tmp_path):
    rng = np.random.default_rng(2)
    kw = dw_kw(rng)
    kforge.wisdom.set_mode("measure")
    assert kforge.wisdom.mode() == "measure"
    out = kforge.depthwise_conv2d_native_backprop_input(**kw)
    assert kforge.last_plan().source == "measure"
    check(out, dwbpi_ref((2, 9, 9, 16), kw["filter"], kw["out_backprop"], (1, 1), (1, 1), "SAME"), F32)
    chosen = kforge.last_plan().choices
    path = tmp_path / "py.wisdom"
    kforge.wisdom.save(path)
    assert path.read_text().startswith("# kforge wisdom 1\n")
    kforge.wisdom.forget()
    kforge.wisdom.set_mode("default")
    assert kforge.wisdom.count() == 0
    kforge.wisdom.load(path)
    assert kforge.wisdom.count() == 1
    kforge.depthwise_conv2d_native_backprop_input(**kw)
    assert kforge.last_plan().source == "wisdom" and kforge.last_plan().choices == chosen


def test_corrupt_file_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.wisdom"
    path.write_text("not wisdom\n")
    with pytest.raises(kforge.KforgeError) as e:
        kforge.wisdom.load(path)
    assert e.value.rule == "wisdom.corrupt" and "line 1" in str(e.value)
    assert kforge.wisdom.count() == 0
    rng = np.random.default_rng(3)
    kforge.depthwise_conv2d_native_backprop_input(**dw_kw(rng))
    assert kforge.last_plan().source == "rule"


def test_cold_measure_and_mode():
    """measure="cold" and set_mode("measure-cold") measure with the buffers evicted; the entry
    is the call's one entry (the warm mode finds it) and the results stay exact."""
    rng = np.random.default_rng(4)
    kw = bn_kw(rng, (2, 5, 5, 40))
    p = kforge.plan("FusedBatchNormGradV3", **kw, is_training=True, measure="cold")
    assert p.source == "measure" and kforge.wisdom.count() == 1
    ref = bn_grad_ref(kw["y_backprop"], kw["x"], kw["scale"], kw["reserve_space_1"], kw["reserve_space_2"],
                      0.0001, True)
    check(p(**kw)[0], ref[0], F32)
    kforge.clear_cache()
    again = kforge.plan("FusedBatchNormGradV3", **kw, is_training=True, measure=True)
    assert again.source == "wisdom" and again.choices == p.choices
    kforge.wisdom.forget()
    kforge.wisdom.set_mode("measure-cold")
    assert kforge.wisdom.mode() == "measure-cold"
    dkw = dw_kw(rng)
    out = kforge.depthwise_conv2d_native_backprop_input(**dkw)
    assert kforge.last_plan().source == "measure"
    check(out, dwbpi_ref((2, 9, 9, 16), dkw["filter"], dkw["out_backprop"], (1, 1), (1, 1), "SAME"), F32)
    with pytest.raises(ValueError):
        kforge.plan("FusedBatchNormGradV3", **kw, is_training=True, measure="hot")


def test_bad_mode():
    with pytest.raises(ValueError):
        kforge.wisdom.set_mode("fast")
