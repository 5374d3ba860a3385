import os
import subprocess
import sys

import pytest

from npulab.core import device
from npulab.core.device import Device, by_device, cann_env_loaded, guard_torch_import, pick_device


def test_cann_env_loaded_needs_existing_folder(tmp_path):
    assert not cann_env_loaded({})
    assert not cann_env_loaded({"ASCEND_HOME_PATH": str(tmp_path / "missing")})
    assert cann_env_loaded({"ASCEND_HOME_PATH": str(tmp_path)})


def test_guard_disables_autoload_only_without_cann(tmp_path):
    env = {}
    guard_torch_import(env)
    assert env["TORCH_DEVICE_BACKEND_AUTOLOAD"] == "0"
    env = {"ASCEND_OPP_PATH": str(tmp_path)}
    guard_torch_import(env)
    assert "TORCH_DEVICE_BACKEND_AUTOLOAD" not in env
    env = {"TORCH_DEVICE_BACKEND_AUTOLOAD": "1"}  # an explicit choice of the user is kept
    guard_torch_import(env)
    assert env["TORCH_DEVICE_BACKEND_AUTOLOAD"] == "1"


def test_pick_device_on_this_machine_is_cpu_and_never_imports_torch_npu():
    # CI has neither CANN nor CUDA: the order npu -> cuda -> cpu must end at cpu without touching torch_npu
    code = "import sys; from npulab.core.device import pick_device; d = pick_device(); print(d.kind, 'torch_npu' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={k: v for k, v in os.environ.items() if not k.startswith("ASCEND")}).stdout.split()
    assert out == ["cpu", "False"]


def test_prefer_cpu_is_honoured():
    device.best_device.cache_clear()
    assert pick_device("cpu").kind == "cpu"


def test_missing_preference_falls_back(monkeypatch):
    device.best_device.cache_clear()
    monkeypatch.setattr(device, "_npu_device", lambda: None)
    monkeypatch.setattr(device, "_cuda_device", lambda: Device("cuda", "Fake GPU"))
    assert pick_device("npu").kind == "cuda"
    device.best_device.cache_clear()


def test_environment_preference_is_read_on_every_call(monkeypatch):
    device.best_device.cache_clear()
    monkeypatch.setattr(device, "_npu_device", lambda: None)
    monkeypatch.setattr(device, "_cuda_device", lambda: Device("cuda", "Fake GPU"))
    monkeypatch.setenv("NPULAB_DEVICE", "cpu")
    assert pick_device().kind == "cpu"
    monkeypatch.setenv("NPULAB_DEVICE", "cuda")
    assert pick_device().kind == "cuda"  # not the cached CPU answer
    device.best_device.cache_clear()


def test_device_strings_and_sizes():
    npu = Device("npu", "Ascend910B3", 1)
    assert npu.torch == "npu:1" and npu.is_accelerator
    cpu = Device("cpu", "x")
    assert cpu.torch == "cpu" and not cpu.is_accelerator
    assert by_device(cpu, cpu=512, accelerator=4096) == 512
    assert by_device(npu, cpu=512, accelerator=4096) == 4096


@pytest.mark.parametrize("value,expected", [("1", True), ("yes", True), ("0", False), ("no", False)])
def test_npu_available_can_be_forced(monkeypatch, value, expected):
    monkeypatch.setenv("NPULAB_NPU_AVAILABLE", value)
    assert device.npu_available() is expected


def test_npu_available_false_without_cann(monkeypatch):
    monkeypatch.delenv("NPULAB_NPU_AVAILABLE", raising=False)
    for name in device.CANN_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    assert device.npu_available() is False
