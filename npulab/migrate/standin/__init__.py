"""Run a (migrated) training script on the learner's device, as a separate process.

On an Ascend host the script runs with the real torch_npu. Elsewhere the ``torch_npu`` folder next to
this file stands in for it (see its docstring): ``torch.npu.is_available()`` is False, so the script
takes its own CPU or CUDA branch. The device is passed with ``--device``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from npulab.core.device import Device
from npulab.core.i18n import t

STANDIN_DIR = Path(__file__).resolve().parent


TIMEOUT_ENV = "NPULAB_SCRIPT_TIMEOUT_S"  # a slower host (e.g. arm64 under emulation, docs/aarch64.md) may raise it
DEFAULT_TIMEOUT_S = 300.0


def script_timeout() -> float:
    """Seconds a script may run: ``$NPULAB_SCRIPT_TIMEOUT_S`` when it is a positive number, else 300."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if value > 0 else DEFAULT_TIMEOUT_S


TIMED_OUT = 124  # the return code of a script stopped at its time limit, as timeout(1) gives


def run_script(script: str | Path, device: Device, *args: str, timeout: float | None = None) -> subprocess.CompletedProcess:
    """``python script --device <device> args...`` in the script's folder; the stand-in where there is no NPU.
    ``timeout`` defaults to ``script_timeout()``. A script stopped at the limit comes back with return code 124, what
    it printed so far, and a message naming the limit and ``$NPULAB_SCRIPT_TIMEOUT_S`` (no traceback in a lesson)."""
    script = Path(script)
    timeout = script_timeout() if timeout is None else timeout
    env = dict(os.environ)
    if device.kind != "npu":
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(STANDIN_DIR), env.get("PYTHONPATH", "")) if p)
        env.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")
    command = [sys.executable, str(script), "--device", device.torch, *args]
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=script.parent, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as stopped:
        stdout, stderr = (_text(stopped.stdout), _text(stopped.stderr))
        message = t("migrate.script_timed_out", seconds=f"{timeout:g}", variable=TIMEOUT_ENV)
        return subprocess.CompletedProcess(command, TIMED_OUT, stdout, stderr + message + "\n")


def _text(output: str | bytes | None) -> str:
    return output.decode(errors="replace") if isinstance(output, bytes) else output or ""
