"""MindSpore in the course: quiet C++ logs, the device target, and a scratch folder for compile files.

MindSpore prints C++ log lines to stderr unless ``GLOG_v=4`` is set before it is imported, and graph
compilation may write ``rank_0/`` (and on Ascend ``kernel_meta/``) into the working directory. The log level
is set by the package's ``__init__``; the scratch folder is handled here.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass

import mindspore as ms  # the package __init__ has set GLOG_v already

from npulab.core.device import npu_available
from npulab.core.i18n import t

COMPILE_LEFTOVERS = ("rank_0", "kernel_meta")


def target() -> str:
    """The MindSpore device target for this machine: ``"Ascend"`` where an NPU is usable, else ``"CPU"``."""
    return "Ascend" if npu_available() else "CPU"


def use_device(device_target: str | None = None) -> str:
    """Call ``ms.set_device`` (once, before any kernel runs); return the target MindSpore uses.

    MindSpore refuses a new target once its runtime has started; asking again for the same target is fine.
    """
    wanted = device_target or target()
    try:
        ms.set_device(wanted)
    except RuntimeError as err:
        current = ms.get_context("device_target")
        if current != wanted:
            raise RuntimeError(t("ms.device_fixed", current=current, wanted=wanted)) from err
    return ms.get_context("device_target")


def precision_allowance(device_target: str | None = None) -> float:
    """How much to relax FP32 comparisons against the CPU: 1 on the CPU, 100 elsewhere.

    Ascend's Cube unit may run FP32 matmul/convolution with a shorter internal mantissa (HF32) depending on
    settings, so bit-level FP32 agreement with a CPU is not expected there (not verified on hardware here).
    """
    return 1.0 if (device_target or ms.get_context("device_target")) == "CPU" else 100.0


def synchronize() -> None:
    """Wait until all work MindSpore has queued on its device is done (``mindspore.runtime.synchronize``)."""
    ms.runtime.synchronize()


@contextlib.contextmanager
def scratch_cwd() -> Iterator[str]:
    """Run a block in a temporary working directory, so compile files (rank_0/, kernel_meta/) never land in the course."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="npulab-ms-") as tmp:
        os.chdir(tmp)
        try:
            yield tmp
        finally:
            os.chdir(previous)


@dataclass(frozen=True)
class Probe:
    """Whether MindSpore could run a kernel on a device target, and what it said if not."""

    target: str
    ok: bool
    message: str


_PROBE = """
import os
os.environ["GLOG_v"] = "4"
import mindspore as ms, numpy as np
ms.set_device({target!r})
x = ms.Tensor(np.ones(4, np.float32))
print("OK", float((x + x).sum().asnumpy()))
"""


def probe(device_target: str, timeout: float = 120.0) -> Probe:
    """Try ``ms.set_device(device_target)`` and one kernel in a fresh process (this process is not touched)."""
    code = _PROBE.format(target=device_target)
    with scratch_cwd():
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "GLOG_v": "4"})
    if done.returncode == 0 and "OK" in done.stdout:
        return Probe(device_target, True, done.stdout.strip())
    return Probe(device_target, False, error_summary(done.stderr))


def error_summary(text: str) -> str:
    """The part of a MindSpore error meant for users: the last exception line and the load messages, no C++ stack."""
    text = text.split("- C++ Call Stack", 1)[0]
    lines = [ln.rstrip() for ln in text.splitlines()]
    start = max((i for i, ln in enumerate(lines) if ln.startswith(("RuntimeError", "TypeError", "ValueError"))), default=0)
    kept = [ln for ln in lines[start:] if ln.strip() and not set(ln.strip()) <= {"-"}]
    return "\n".join(kept)
