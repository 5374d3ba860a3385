"""Who may open which NPU: the driver's group for every card, or per-seat ACLs on the device nodes.

On an Ascend server the device nodes are ``crw-rw---- root HwHiAiUser`` (``/dev/davinciN`` per card plus the
management devices ``davinci_manager``, ``devmm_svm``, ``hisi_hdc``). A participant's account therefore opens
no NPU until it is given access, in one of two ways (``WORKSHOP_DEVICE_ACCESS``):

- ``group``: the account joins ``HwHiAiUser``, the driver's group, and can open every card; the seat's
  ``ASCEND_RT_VISIBLE_DEVICES`` only says which one to use.
- ``seat``: an ACL entry for the account on its own ``/dev/davinciN`` and on the management devices, nothing
  on the other cards: a kernel that ignores its seat cannot open a neighbour's NPU. Device nodes are re-created
  when the driver reloads, so the hub grants again at every server start.
- ``none``: leave the device nodes alone (a CPU-only workshop, or access arranged some other way).
"""

from __future__ import annotations

import grp
import re
from collections.abc import Iterable
from pathlib import Path

from npulab.workshop import posix_acl
from npulab.workshop.containers import NPU_CONTROL_DEVICES
from npulab.workshop.posix_acl import R, W

MODES = ("group", "seat", "none")
DRIVER_GROUP = "HwHiAiUser"
_CARD = re.compile(r"davinci(\d+)")


def check_mode(mode: str) -> str:
    """``mode`` if it is one of ``MODES``; else a ValueError in Chinese."""
    if mode not in MODES:
        raise ValueError(f"WORKSHOP_DEVICE_ACCESS 只能是 {'、'.join(MODES)} 之一，收到 {mode!r}")
    return mode


def account_groups(mode: str) -> list[str]:
    """Supplementary groups a new account gets: the driver's group in ``group`` mode (when it exists)."""
    if check_mode(mode) != "group":
        return []
    try:
        grp.getgrnam(DRIVER_GROUP)
    except KeyError:
        return []
    return [DRIVER_GROUP]


def cards(dev_dir: Path | str = "/dev") -> dict[int, Path]:
    """The NPU device nodes present: card id → ``/dev/davinciN``."""
    out = {}
    for node in Path(dev_dir).glob("davinci*"):
        m = _CARD.fullmatch(node.name)
        if m:
            out[int(m.group(1))] = node
    return dict(sorted(out.items()))


def management_nodes(dev_dir: Path | str = "/dev") -> list[Path]:
    """The management devices every NPU user needs, those present."""
    return [p for p in (Path(dev_dir) / Path(n).name for n in NPU_CONTROL_DEVICES) if p.exists()]


def grant_seat(uid: int, devices: Iterable[int], dev_dir: Path | str = "/dev") -> list[Path]:
    """Let ``uid`` open exactly its seat's cards and the management devices; returns the nodes granted.

    Entries the account had on other cards (a seat that moved) are removed first.
    """
    mine = {int(d) for d in devices}
    present = cards(dev_dir)
    missing = sorted(mine - present.keys())
    if missing:
        raise FileNotFoundError(f"{dev_dir} 下没有 NPU 设备节点 davinci{missing[0]}：座位的卡号与本机不符")
    for card, node in present.items():
        if card not in mine:
            posix_acl.revoke(node, uid=uid)
    granted = [present[d] for d in sorted(mine)] + management_nodes(dev_dir)
    for node in granted:
        posix_acl.grant(node, R | W, uid=uid)
    return granted


def revoke_user(uid: int, dev_dir: Path | str = "/dev") -> list[Path]:
    """Remove ``uid``'s entries from every NPU and management node; returns the nodes changed."""
    nodes = [*cards(dev_dir).values(), *management_nodes(dev_dir)]
    return [n for n in nodes if posix_acl.revoke(n, uid=uid)]
