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
from npulab.core.i18n import t

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
            verdict = t("workshop.tools.owners.not_participant") if account else t("workshop.tools.owners.gone")
        elif seat is None:
            verdict = t("workshop.tools.owners.no_seat")
            wrong.append(user)
        elif seat != p.npu_id:
            verdict = t("workshop.tools.owners.wrong_card", seat=seat)
            wrong.append(user)
        else:
            verdict = t("workshop.tools.owners.own_card")
        rows.append((p.npu_id, p.pid, p.name or "?", account or "—", user or "—", "—" if seat is None else seat, verdict))
    head = ("NPU", "PID", t("workshop.tools.owners.head_process"), t("workshop.tools.owners.head_account"),
            t("workshop.tools.owners.head_user"), t("workshop.tools.owners.head_seat"), t("workshop.tools.owners.head_verdict"))
    return Table(head, rows, t("workshop.tools.owners.title")), wrong
