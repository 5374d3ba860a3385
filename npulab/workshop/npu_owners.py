"""Who is on which card: each process in ``npu-smi info``'s process table → its Unix account → the participant.

Participants' servers run as ``jupyter-<name>`` (one account each), so a process's owner names the participant;
comparing with the seat map shows who is on a card that is not theirs. Owners are read from ``/proc/<pid>``
(the hub runs as root, so every process is visible to it).
"""

from __future__ import annotations

import pwd
from collections.abc import Callable, Mapping
from pathlib import Path

from npulab.ascend_tools.smi.info import SmiInfo
from npulab.core.display import Table

ACCOUNT_PREFIX = "jupyter-"


def process_owner(pid: int) -> str | None:
    """The account that owns process ``pid`` (from ``/proc/<pid>``), None when it has gone."""
    try:
        uid = Path(f"/proc/{pid}").stat().st_uid
    except OSError:
        return None
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def owners_table(info: SmiInfo, seats: Mapping[str, int],
                 owner: Callable[[int], str | None] = process_owner) -> tuple[Table, list[str]]:
    """One row per NPU process: NPU, PID, name, account, participant, their seat, verdict; and the wrong-card ones."""
    rows, wrong = [], []
    for p in info.processes:
        account = owner(p.pid) if p.pid is not None else None
        user = account[len(ACCOUNT_PREFIX):] if account and account.startswith(ACCOUNT_PREFIX) else None
        seat = seats.get(user) if user else None
        if user is None:
            verdict = "不是学员账号（讲师、系统或 hub 自己的进程）" if account else "进程已退出"
        elif seat is None:
            verdict = "这位学员没有座位"
            wrong.append(user)
        elif seat != p.npu_id:
            verdict = f"错卡：座位在 NPU {seat}"
            wrong.append(user)
        else:
            verdict = "在自己的卡上"
        rows.append((p.npu_id, p.pid, p.name or "?", account or "—", user or "—", "—" if seat is None else seat, verdict))
    title = "NPU 上的进程与学员（npu-smi 进程表 → 进程属主 → jupyter-<名字>）"
    return Table(("NPU", "PID", "进程", "账号", "学员", "座位的 NPU", "判断"), rows, title), wrong
