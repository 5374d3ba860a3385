"""npulab.ascend_tools.acl_pipeline: the pyACL call sequence and clean-up on failure, against a stand-in ``acl`` module."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from npulab.ascend_tools.acl_pipeline import AclError, run_om
from npulab.testing.fake_acl import FakeAcl


def fake(**kw) -> FakeAcl:
    return FakeAcl(**kw)


def leaks(acl: FakeAcl) -> dict:
    return acl.leaks()


def test_happy_path_order_results_and_no_leaks():
    acl = fake(shape=(2, 3))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (y,) = run_om("model.om", [x], acl=acl)
    assert y.shape == (2, 3) and y.dtype == np.float32 and np.array_equal(y, 2 * x)
    order = [c for c in acl.log if not c.startswith(("acl.mdl.add", "acl.util"))]
    first = ["acl.init", "acl.rt.set_device", "acl.rt.create_context", "acl.rt.create_stream",
             "acl.mdl.load_from_file", "acl.mdl.create_desc", "acl.mdl.get_desc"]
    assert order[:7] == first
    assert order.index("acl.rt.memcpy:1") < order.index("acl.mdl.execute") < order.index("acl.rt.memcpy:2")
    tail = order[-6:]
    assert tail == ["acl.mdl.destroy_desc", "acl.mdl.unload", "acl.rt.destroy_stream", "acl.rt.destroy_context",
                    "acl.rt.reset_device", "acl.finalize"]
    assert leaks(acl) == {}


@pytest.mark.parametrize("call", ["acl.rt.set_device", "acl.rt.create_context", "acl.rt.create_stream",
                                  "acl.mdl.load_from_file", "acl.mdl.get_desc", "acl.mdl.add_dataset_buffer",
                                  "acl.rt.memcpy:1", "acl.mdl.execute", "acl.rt.memcpy:2"])
def test_failure_anywhere_releases_everything_acquired(call):
    acl = fake(fail={call: 507011})
    with pytest.raises(AclError) as info:
        run_om("model.om", [np.zeros((1, 4), np.float32)], acl=acl)
    assert info.value.ret == 507011 and info.value.call.startswith(call.split(":")[0])
    assert leaks(acl) == {} and info.value.release_failures == []
    assert acl.log[-1] == "acl.finalize"


def test_failed_load_never_unloads_and_releases_in_reverse():
    acl = fake(fail={"acl.mdl.load_from_file": 145000})
    with pytest.raises(AclError, match="load_from_file"):
        run_om("missing.om", [np.zeros((1, 4), np.float32)], acl=acl)
    assert "acl.mdl.unload" not in acl.log
    assert acl.log[-4:] == ["acl.rt.destroy_stream", "acl.rt.destroy_context", "acl.rt.reset_device", "acl.finalize"]


def test_failed_init_releases_nothing():
    acl = fake(fail={"acl.init": 100000})
    with pytest.raises(AclError):
        run_om("m.om", [np.zeros((1, 4), np.float32)], acl=acl)
    assert acl.log == ["acl.init"]


def test_wrong_input_size_is_a_value_error_and_cleans_up():
    acl = fake()
    with pytest.raises(ValueError, match="字节"):
        run_om("m.om", [np.zeros((1, 4), np.float16)], acl=acl)
    assert leaks(acl) == {}
    with pytest.raises(ValueError, match="个输入"):
        run_om("m.om", [], acl=fake())


def test_a_failed_release_is_reported_but_does_not_stop_the_others():
    acl = fake(fail={"acl.rt.destroy_stream": 7})
    with pytest.raises(AclError, match="destroy_stream"):
        run_om("m.om", [np.ones((1, 4), np.float32)], acl=acl)
    assert leaks(acl) == {} and acl.log[-1] == "acl.finalize"
    both = fake(fail={"acl.mdl.execute": 1, "acl.mdl.unload": 2})
    with pytest.raises(AclError, match="execute") as info:
        run_om("m.om", [np.ones((1, 4), np.float32)], acl=both)
    assert [f.call for f in info.value.release_failures] == ["acl.mdl.unload"]


def test_older_pyacl_without_bytes_to_ptr():
    acl = fake(bytes_api=False)
    (y,) = run_om("m.om", [np.full((1, 4), 1.5, np.float32)], acl=acl)
    assert np.array_equal(y, np.full((1, 4), 3.0, np.float32)) and "acl.util.numpy_to_ptr" in acl.log


@pytest.mark.skipif(importlib.util.find_spec("acl") is not None, reason="pyACL is installed here")
def test_without_cann_the_message_says_what_to_do():
    with pytest.raises(ModuleNotFoundError, match="set_env.sh"):
        run_om("m.om", [np.zeros(1, np.float32)])
