"""Workshop mode for NPU cells: what a participant's seat allows (its NPUs, its ports), read from ``NPULAB_*``.

The workshop hub sets these variables in every participant's server (``workshop/jupyterhub_config.py``); outside
a workshop none is set and ``current_seat()`` is None, so a cell runs as written. A cell that would take other
seats' cards, a fixed port, ``pkill`` everyone's processes or ``pip install`` into the shared venv asks this module
first and either uses the seat's own device and port or prints, in Chinese, why it is skipped here.

>>> seat = current_seat({"NPULAB_WORKSHOP_SEAT": "alice", "NPULAB_SEAT_DEVICES": "3", "NPULAB_SEAT_PORT": "20030"})
>>> seat.devices, seat.port(1)
((3,), 20031)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

SEAT_ENV = "NPULAB_WORKSHOP_SEAT"      # the participant's name: set on every workshop server
DEVICES_ENV = "NPULAB_SEAT_DEVICES"    # the seat's logical NPU ids, comma-separated ("3" or "2,3")
PORT_ENV = "NPULAB_SEAT_PORT"          # the first of the seat's private TCP ports
PORT_BASE = 20000                      # seat i gets ports PORT_BASE + i·PORTS_PER_SEAT … + PORTS_PER_SEAT - 1
PORTS_PER_SEAT = 10


@dataclass(frozen=True)
class Seat:
    """One participant's share of the workshop server."""

    user: str
    devices: tuple[int, ...]
    first_port: int

    def port(self, offset: int = 0) -> int:
        """The seat's ``offset``-th private port (0 … PORTS_PER_SEAT - 1)."""
        if not 0 <= offset < PORTS_PER_SEAT:
            raise ValueError(f"端口偏移须在 0 到 {PORTS_PER_SEAT - 1} 之间，收到 {offset}")
        return self.first_port + offset


def seat_port(index: int) -> int:
    """The first private port of the seat with this index (the hub numbers seats from 0)."""
    return PORT_BASE + int(index) * PORTS_PER_SEAT


def seat_variables(user: str, devices: list[int] | tuple[int, ...], index: int) -> dict[str, str]:
    """The ``NPULAB_*`` variables the hub sets for one seat."""
    return {SEAT_ENV: user, DEVICES_ENV: ",".join(str(int(d)) for d in devices), PORT_ENV: str(seat_port(index))}


def current_seat(environ: Mapping[str, str] | None = None) -> Seat | None:
    """This server's seat, or None outside a workshop."""
    env = os.environ if environ is None else environ
    user = env.get(SEAT_ENV)
    if not user:
        return None
    devices = tuple(int(d) for d in env.get(DEVICES_ENV, "").split(",") if d.strip().isdigit())
    first_port = int(env[PORT_ENV]) if env.get(PORT_ENV, "").isdigit() else PORT_BASE
    return Seat(user=user, devices=devices, first_port=first_port)


def seat_line(seat: Seat) -> str:
    """What a participant reads in every lesson's first cell: their seat, their NPU, their ports."""
    cards = (f"你的 NPU：{'、'.join(map(str, seat.devices))}（已设好 ASCEND_RT_VISIBLE_DEVICES，代码里用 npu:0 即可）"
             if seat.devices else "这个座位没有 NPU（CPU 座位）")
    return f"工作坊座位：{seat.user}；{cards}；私有端口 {seat.port(0)}–{seat.port(PORTS_PER_SEAT - 1)}"


def workshop_skip(reason: str, environ: Mapping[str, str] | None = None) -> bool:
    """In a workshop, print why a cell is skipped and return True; outside one, return False (run the cell)."""
    seat = current_seat(environ)
    if seat is None:
        return False
    print(f"工作坊模式（{seat.user}）：本单元不在共享服务器上运行——{reason}")
    return True


# --- helpers for the course's NPU cells (each prints why, in Chinese, when it changes or skips a command) --------


def tool_device(default: int = 0, environ: Mapping[str, str] | None = None) -> int:
    """The NPU id a device tool (``ascend-dmi -d``) should use: the seat's first NPU in a workshop, else ``default``."""
    seat = current_seat(environ)
    if seat is None or not seat.devices:
        return default
    if seat.devices[0] != default:
        print(f"工作坊模式（{seat.user}）：用你座位的 NPU {seat.devices[0]}，而不是原文的 NPU {default}")
    return seat.devices[0]


@dataclass(frozen=True)
class Job:
    """Devices (and ports) for a multi-process launch: ``visible`` for ASCEND_RT_VISIBLE_DEVICES, ``nproc`` workers."""

    devices: tuple[int, ...]
    seat: Seat | None = None

    @property
    def visible(self) -> str:
        return ",".join(map(str, self.devices))

    @property
    def nproc(self) -> int:
        return len(self.devices)

    def port(self, default: int, offset: int = 0) -> int:
        """``default`` outside a workshop; the seat's private port ``offset`` inside one."""
        return default if self.seat is None else self.seat.port(offset)


def seat_job(devices, min_cards: int = 1, environ: Mapping[str, str] | None = None) -> Job | None:
    """The devices a launch may use: ``devices`` outside a workshop; in one, the seat's own NPUs (at most as many as
    asked for), or None with the reason printed when the seat has fewer than ``min_cards``."""
    devices = tuple(int(d) for d in devices)
    seat = current_seat(environ)
    if seat is None:
        return Job(devices)
    if len(seat.devices) < min_cards:
        have = f"只有 {len(seat.devices)} 张（NPU {', '.join(map(str, seat.devices))}）" if seat.devices else "没有 NPU"
        print(f"工作坊模式（{seat.user}）：本单元需要至少 {min_cards} 张 NPU，你的座位{have}，所以不运行——"
              f"它会用到别人座位的卡。请看讲师的演示或本单元下面的说明。")
        return None
    mine = seat.devices[:len(devices)]
    print(f"工作坊模式（{seat.user}）：用你座位的 NPU {', '.join(map(str, mine))}（原文：{', '.join(map(str, devices))}）")
    return Job(mine, seat)


def pip_target(environ: Mapping[str, str] | None = None) -> str | None:
    """Where ``pip install`` should put a package: None outside a workshop (the current environment); in one, a
    folder in the participant's home, since the course's shared environment is not theirs to change."""
    seat = current_seat(environ)
    if seat is None:
        return None
    from pathlib import Path

    target = Path.home() / ".npulab" / "site-packages"
    target.mkdir(parents=True, exist_ok=True)
    print(f"工作坊模式（{seat.user}）：包装进你自己的 {target}，不改动大家共用的课程环境")
    return str(target)
