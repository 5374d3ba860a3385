"""Pick the device a lesson runs on: Ascend NPU → CUDA GPU → CPU.

torch_npu is imported only where CANN's environment is loaded: without CANN, importing it fails
(libhccl.so missing) and, worse, torch's backend auto-loading makes a plain ``import torch`` fail
too once torch_npu is installed. So before torch is imported we switch that auto-loading off on
machines without CANN, and we probe for an NPU only when CANN is there.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from dataclasses import dataclass
from typing import Any

# environment variables that CANN's set_env.sh exports (CANN environment-variable reference, hiascend envref)
CANN_ENV_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH")


def cann_env_loaded(environ: dict[str, str] | None = None) -> bool:
    """True when this process has a CANN environment (set_env.sh sourced) pointing at real folders."""
    env = os.environ if environ is None else environ
    return any(env.get(name) and os.path.isdir(env[name]) for name in CANN_ENV_VARS)


def guard_torch_import(environ: dict[str, str] | None = None) -> None:
    """Disable torch's device-backend auto-loading where CANN is absent, so ``import torch`` works."""
    env = os.environ if environ is None else environ
    if not cann_env_loaded(env):
        env.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "0")


@dataclass(frozen=True)
class Device:
    """The device a lesson runs on."""

    kind: str  # "npu" | "cuda" | "cpu"
    name: str  # human-readable, e.g. "Ascend910B3", "NVIDIA H100", "Intel Xeon ..."
    index: int = 0

    @property
    def torch(self) -> str:
        """The torch device string, e.g. ``"npu:0"`` or ``"cpu"``."""
        return "cpu" if self.kind == "cpu" else f"{self.kind}:{self.index}"

    @property
    def is_accelerator(self) -> bool:
        return self.kind != "cpu"

    def __str__(self) -> str:
        return f"{self.torch} ({_cores_now(self.name) if self.kind == 'cpu' else self.name})"


def _npu_device() -> Device | None:
    if not cann_env_loaded() or importlib.util.find_spec("torch_npu") is None:
        return None
    try:
        import torch
        import torch_npu  # noqa: F401  (registers torch.npu)

        if torch.npu.is_available() and torch.npu.device_count() > 0:
            return Device("npu", torch.npu.get_device_name(0))
    except Exception:  # a broken CANN install must not stop the lesson: fall through to CUDA/CPU
        return None
    return None


def _cuda_device() -> Device | None:
    import torch

    if torch.cuda.is_available() and torch.cuda.device_count() > 0:
        return Device("cuda", torch.cuda.get_device_name(0))
    return None


_CORES = re.compile(r"^(.*), (\d+) (?:逻辑核|logical cores)$")


def _cores_now(name: str) -> str:
    """A CPU name from :func:`cpu_name` with its cores said in npulab's language now (``pick_device`` is cached, the
    language may change after it); any other name as it is."""
    from npulab.core.i18n import t

    m = _CORES.match(name)
    return t("device.cpu", name=m.group(1), cores=m.group(2)) if m else name


def cpu_name() -> str:
    """The CPU model name from /proc/cpuinfo (or the platform), with the thread count torch uses."""
    name = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith(("model name", "cpu model")):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    if not name:
        import platform

        name = platform.processor() or platform.machine() or "CPU"
    from npulab.core.i18n import t

    return t("device.cpu", name=name, cores=os.cpu_count())


def pick_device(prefer: str | None = None) -> Device:
    """Return the best device present, in the order npu → cuda → cpu.

    ``prefer`` (or the environment variable ``NPULAB_DEVICE``, read on every call) forces ``"cpu"``, ``"cuda"``
    or ``"npu"`` when present; a preference for a device that is missing falls back to the normal order.
    The probe for each preference runs once per process (probing an NPU or a GPU takes seconds).
    """
    return best_device((prefer or os.environ.get("NPULAB_DEVICE", "")).strip().lower())


@functools.cache
def best_device(prefer: str = "") -> Device:
    """The first device present in the order npu → cuda → cpu (``prefer`` goes first); probed once per preference."""
    guard_torch_import()
    if prefer == "cpu":
        return Device("cpu", cpu_name())
    probes = {"npu": _npu_device, "cuda": _cuda_device}
    order = [prefer] if prefer in probes else []
    order += [k for k in ("npu", "cuda") if k not in order]
    for kind in order:
        device = probes[kind]()
        if device is not None:
            return device
    return Device("cpu", cpu_name())


def npu_available() -> bool:
    """True when an Ascend NPU is usable from this process (never imports torch_npu without CANN)."""
    forced = os.environ.get("NPULAB_NPU_AVAILABLE")  # a test override
    if forced is not None:
        return forced.strip().lower() in ("1", "true", "yes")
    return _npu_device() is not None


def synchronize(device: Device | str) -> None:
    """Wait until all work queued on ``device`` has finished (no-op on CPU)."""
    kind = device.kind if isinstance(device, Device) else str(device).split(":")[0]
    if kind == "cpu":
        return
    import torch

    getattr(torch, kind).synchronize()


def by_device(device: Device, *, cpu: Any, accelerator: Any) -> Any:
    """Choose a problem size (or any setting) by device: small on CPU, full on NPU/GPU."""
    return accelerator if device.is_accelerator else cpu
