"""Several devices, one job: the collective backend per device, which device a rank uses, HCCL settings.

``torch.distributed`` runs the same script once per device (torchrun starts the processes and sets
``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``). Each process picks its device from ``LOCAL_RANK`` and joins a
process group whose backend moves the data: HCCL on Ascend NPUs (registered by torch_npu), NCCL on CUDA,
gloo on CPU. On an NPU host ``npu:<local_rank>`` is an index inside the process; ``ASCEND_RT_VISIBLE_DEVICES`` (an ascending list of
logical device IDs) decides which device it is (``npulab.env.visible_devices``). HCCL's own settings are data (``npulab/data/hccl_settings.yaml``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from npulab.core.i18n import localized, t
from npulab.env import visible_devices
from npulab.env.hccl import HCCL_FILE, hccl_settings  # noqa: F401  (HCCL_FILE, hccl_settings: this module's API)

BACKENDS = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}


def backend_for(kind: str) -> str:
    """The torch.distributed backend for a device kind: hccl (npu), nccl (cuda), gloo (cpu)."""
    try:
        return BACKENDS[kind]
    except KeyError:
        raise ValueError(t("pt.bad_device_kind", kinds=t("pt.list_separator").join(BACKENDS), kind=repr(kind))) from None


def device_for(kind: str, local_rank: int) -> str:
    """The torch device string of a process: ``npu:<local_rank>``, ``cuda:<local_rank>`` or ``cpu``."""
    backend_for(kind)
    if local_rank < 0:
        raise ValueError(t("pt.negative_local_rank", local_rank=local_rank))
    return "cpu" if kind == "cpu" else f"{kind}:{local_rank}"


def bind_device(kind: str, local_rank: int) -> str:
    """Make ``device_for(kind, local_rank)`` this process's current device (npu/cuda) and return it."""
    device = device_for(kind, local_rank)
    if kind != "cpu":
        import torch

        getattr(torch, kind).set_device(local_rank)
    return device


def rank_layout(nproc: int, environ: Mapping[str, str] | None = None, n_devices: int | None = None) -> list[dict]:
    """For ``nproc`` local processes: rank, its device index ``npu:<rank>`` and the logical device ID behind it.

    ``ASCEND_RT_VISIBLE_DEVICES`` (from ``environ``, default this process's) decides the logical ID; ValueError
    (Chinese) when it lists fewer NPUs than processes or is invalid.
    """
    if nproc < 1:
        raise ValueError(t("pt.bad_nproc", nproc=nproc))
    seen = visible_devices.from_environ(environ, n_devices)
    if not seen.ok:
        raise ValueError(seen.describe())
    if seen.count is not None and nproc > seen.count:
        raise ValueError(t("pt.too_few_npus", nproc=nproc, seen=seen.describe()))
    return [{"LOCAL_RANK": r, "设备": f"npu:{r}", "逻辑 ID": seen.device_id(r)} for r in range(nproc)]


def env_rank() -> tuple[int, int, int]:
    """(rank, local_rank, world_size) from the variables torchrun sets (0, 0, 1 when run alone)."""
    return (int(os.environ.get("RANK", 0)), int(os.environ.get("LOCAL_RANK", 0)), int(os.environ.get("WORLD_SIZE", 1)))


def hccl_table() -> str:
    """The HCCL settings as a Markdown table (display with IPython.display.Markdown)."""
    from npulab.core.display import records

    rows = [{t("pt.hccl_col_variable"): f"`{s['name']}`",
             t("pt.hccl_col_default"): f"{localized(s, 'default')} {localized(s, 'unit')}".strip() or "—",
             t("pt.hccl_col_range"): localized(s, "range") or "—", t("pt.hccl_col_what"): localized(s, "what"),
             t("pt.hccl_col_when"): localized(s, "when"),
             t("pt.hccl_col_source"): f"[{localized(s, 'source_title')}]({s['source_url']})"}
            for s in hccl_settings()]
    return records(rows).markdown()
