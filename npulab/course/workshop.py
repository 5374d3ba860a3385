"""Workshop support: give each participant an NPU (or a share of one) and build the agenda from the lessons.

On a shared Ascend server, JupyterHub starts one single-user server per participant; setting
``ASCEND_RT_VISIBLE_DEVICES`` in its environment decides which NPU (by logical device ID, the "Chip Logic ID" of
``npu-smi info -m``) that participant's kernels see (as ``npu:0``). ``assign_devices`` makes that mapping deterministic and refuses a roster
that does not fit; ``agenda`` reads each notebook's ``course.minutes`` so the timetable cannot drift
from the lessons.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from npulab.core.notebook_cells import iter_notebooks, read
from npulab.core.paths import REPO_ROOT


class RosterError(ValueError):
    """A roster that cannot be seated on the devices given (the message says why, in Chinese)."""


def assign_devices(users: list[str], devices: list[int], per_device: int = 1) -> dict[str, int]:
    """Map each user to a logical NPU device ID, ``per_device`` users per NPU, in roster order."""
    if per_device < 1:
        raise RosterError(f"每张 NPU 的学员数须 ≥ 1，收到 {per_device}")
    duplicates = sorted({u for u in users if users.count(u) > 1})
    if duplicates:
        raise RosterError(f"名单中有重复的用户：{', '.join(duplicates)}")
    if len(set(devices)) != len(devices) or any(d < 0 for d in devices):
        raise RosterError(f"设备编号须为不重复的非负整数，收到 {devices}")
    capacity = len(devices) * per_device
    if len(users) > capacity:
        raise RosterError(f"{len(users)} 位学员超出容量：{len(devices)} 张 NPU × 每张 {per_device} 人 = {capacity}")
    return {user: devices[i // per_device] for i, user in enumerate(users)}


@dataclass(frozen=True)
class Session:
    path: str
    title: str
    minutes: int
    needs_npu: bool


def agenda(paths: list[Path | str] | None = None) -> list[Session]:
    """Lessons and labs in course order with their planned minutes (from notebook metadata)."""
    sessions = []
    for path in iter_notebooks(paths):
        if path.parent.name == "solutions":
            continue
        nb = read(path)
        course = nb.metadata.get("course", {})
        title = next((c.source.splitlines()[0].lstrip("# ").strip() for c in nb.cells if c.cell_type == "markdown"), path.stem)
        sessions.append(Session(str(path.relative_to(REPO_ROOT)), title, int(course.get("minutes", 0)),
                                "npu" in course.get("requires", [])))
    return sessions
