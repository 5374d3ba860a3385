"""The environment summary every lesson prints in its first cell. It never fails."""

from __future__ import annotations

import importlib.metadata
import platform
import sys

from npulab.core.device import Device, cann_env_loaded, pick_device

PACKAGES = ("numpy", "torch", "torch_npu", "mindspore", "matplotlib")


def package_version(name: str) -> str | None:
    """Installed version of a distribution, without importing it (None if absent)."""
    for candidate in (name, name.replace("_", "-")):
        try:
            return importlib.metadata.version(candidate)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _cann_line() -> str:
    try:
        from npulab.env import cann_install
        return cann_install.summary_line()
    except Exception as err:  # the summary must never stop a lesson
        return f"未能读取（{type(err).__name__}）"


def summary(prefer: str | None = None, *, show: bool = True) -> Device:
    """Print Python / package / CANN versions and the chosen device; return the device."""
    device = pick_device(prefer)
    rows = [("Python", f"{platform.python_version()} ({sys.executable})")]
    rows += [(name, package_version(name) or "未安装") for name in PACKAGES]
    rows.append(("CANN", _cann_line()))
    rows.append(("CANN 环境已加载", "是" if cann_env_loaded() else "否"))
    rows.append(("本节使用的设备", str(device)))
    if show:
        width = max(len(k) for k, _ in rows)
        for key, value in rows:
            print(f"{key:<{width}}  {value}")
        if not device.is_accelerator:
            print("提示：没有检测到 NPU 或 GPU，本节以 CPU 模式运行（问题规模自动调小，并在下文打印）。")
    return device
