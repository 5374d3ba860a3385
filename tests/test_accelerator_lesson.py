"""Lesson 03/01's ``torch.accelerator`` cell chooses a usable device when the torch build has an accelerator that this
machine cannot use (a CUDA wheel on a laptop without a GPU, the PyPI default on x86_64).

The double: ``torch._C._accelerator_getAccelerator`` is the compile-time answer that ``current_accelerator()`` returns
(torch/accelerator/__init__.py @ v2.13.0). Patching it to ``device('cuda')`` makes this CPU-only torch answer as a
CUDA build does; everything after that is real: ``is_available()`` asks the real ``torch.cuda.is_available()`` (False
here), ``device_count()`` the real ``torch.cuda.device_count()`` (0), and moving a tensor to ``cuda`` fails for real.
"""

from __future__ import annotations

import json

import pytest
import torch

from npulab.core.device import Device
from npulab.core.paths import REPO_ROOT

LESSON = REPO_ROOT / "chapters" / "03_pytorch_npu" / "01_cuda_to_npu_migration.ipynb"


def _cell(cell_id: str) -> str:
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return next("".join(c["source"]) for c in cells if c.get("id") == cell_id)


@pytest.fixture
def cuda_built_but_absent(monkeypatch):
    """A torch whose compile-time accelerator is CUDA, on a machine with no usable CUDA device."""
    if torch.cuda.is_available():
        pytest.skip("this machine has a usable CUDA device: the double would not be a missing one")
    monkeypatch.setattr(torch._C, "_accelerator_getAccelerator", lambda: torch.device("cuda"))


def test_the_double_reaches_the_failing_path(cuda_built_but_absent):
    assert torch.accelerator.current_accelerator() == torch.device("cuda")  # compile time: cuda
    assert torch.accelerator.current_accelerator(check_available=True) is None  # run time: none usable
    assert not torch.accelerator.is_available() and torch.accelerator.device_count() == 0
    with pytest.raises((RuntimeError, AssertionError)):  # the idiom the lesson used to teach
        torch.nn.Linear(2, 2).to(torch.accelerator.current_accelerator())


def test_the_lesson_cell_falls_back_to_the_npulab_device(cuda_built_but_absent, capsys):
    namespace = {"torch": torch, "device": Device("cpu", "test CPU")}
    exec(compile(_cell("acc02"), "03_01_acc02", "exec"), namespace)
    out = capsys.readouterr().out
    assert namespace["target"] == torch.device("cpu") and namespace["acc"] is None
    assert "current_accelerator() = cuda" in out and "current_accelerator(check_available=True) = None" in out
    assert "编译时带着 cuda" in out and "退回 npulab 的选择" in out
    assert "synchronize()" in out  # it says what synchronize() did without a usable accelerator


def test_the_lesson_cell_on_a_cpu_build(capsys):
    if torch._C._accelerator_getAccelerator() is not None:
        pytest.skip("this torch is built with an accelerator")
    namespace = {"torch": torch, "device": Device("cpu", "test CPU")}
    exec(compile(_cell("acc02"), "03_01_acc02", "exec"), namespace)
    out = capsys.readouterr().out
    assert "current_accelerator() = None" in out and "编译时带着" not in out


def test_every_selection_in_the_lesson_checks_availability():
    """No cell chooses a device with the compile-time answer alone."""
    for cell_id in ("acc02", "acc04"):
        for line in _cell(cell_id).splitlines():
            if "current_accelerator(" in line and line.lstrip().startswith("acc ="):
                assert "check_available=True" in line, (cell_id, line)


def test_the_gpu_check_script_runs_the_same_cell_here():
    """scripts/device_checks/accelerator_cuda.py (run on a CUDA host by hand) works on this CPU machine too."""
    import subprocess
    import sys

    script = REPO_ROOT / "scripts" / "device_checks" / "accelerator_cuda.py"
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("  current_accelerator(check_available=True) =") == 2 and "RESULT: both runs finished" in r.stdout
