"""The environment summary every lesson prints in its first cell. It never fails."""

from __future__ import annotations

import importlib.metadata
import platform
import sys

from npulab.core.device import Device, cann_env_loaded, pick_device
from npulab.core.i18n import t

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
        return t("env.unreadable", error=type(err).__name__)


def summary(prefer: str | None = None, *, show: bool = True) -> Device:
    """Print Python / package / CANN versions and the chosen device; return the device."""
    device = pick_device(prefer)
    rows = [("Python", f"{platform.python_version()} ({sys.executable})")]
    rows += [(name, package_version(name) or t("env.not_installed")) for name in PACKAGES]
    rows.append(("CANN", _cann_line()))
    rows.append((t("env.cann_loaded"), t("env.yes") if cann_env_loaded() else t("env.no")))
    rows.append((t("env.device"), str(device)))
    if show:
        width = max(len(k) for k, _ in rows)
        for key, value in rows:
            print(f"{key:<{width}}  {value}")
        if not device.is_accelerator:
            print(t("env.cpu_mode"))
    return device
