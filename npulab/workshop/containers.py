"""Containers: real isolation, one ``/dev/davinciN`` per container (DockerSpawner settings)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

# Container access to one NPU: its /dev/davinciN plus the management devices, and the driver read-only.
# Source: hiascend MindIE Turbo 2.0.RC2 quick start, "启动容器" (mindieturbomindie_quickstart_0006), whose
# `docker run` passes exactly these devices and mounts; Ascend Docker Runtime mounts the same set by default
# (MindX DL 5.0.0 dlruntime_ug_023). /etc/ascend_install.info (where the host's driver is installed) is mounted too, as
# the `docker run` of vLLM-Ascend v0.23.0 docs/source/installation.md and MindSpeed-LLM 26.1.0
# docs/zh/pytorch/training/install_guide.md do.
NPU_CONTROL_DEVICES = ("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc")
NPU_DRIVER_MOUNTS = ("/usr/local/Ascend/driver", "/usr/local/dcmi", "/usr/local/bin/npu-smi", "/etc/ascend_install.info")


def container_options(device: int, *, dev_dir: str = "/dev", mounts: Iterable[str] = NPU_DRIVER_MOUNTS) -> dict:
    """DockerSpawner settings giving one container one NPU: ``extra_host_config`` (devices) and ``volumes``.

    Only ``/dev/davinci{device}`` is passed, so processes in the container cannot open a neighbour's NPU
    whatever they set; the driver, ``dcmi``, ``npu-smi`` and ``/etc/ascend_install.info`` are mounted read-only from
    the host.
    """
    if int(device) < 0:
        raise ValueError(f"NPU 编号须为非负整数，收到 {device}")
    nodes = [f"{dev_dir}/davinci{int(device)}", *(f"{dev_dir}/{Path(n).name}" for n in NPU_CONTROL_DEVICES)]
    return {
        "extra_host_config": {"devices": [f"{n}:{n}:rwm" for n in nodes]},
        "volumes": {m: {"bind": m, "mode": "ro"} for m in mounts},
    }
