"""Workshop mode for NPU cells: what a participant's seat allows (its NPUs, its ports), read from ``NPULAB_*``.

The workshop hub sets these variables in every participant's server (``workshop/jupyterhub_config.py``); outside
a workshop none is set and ``current_seat()`` is None, so a cell runs as written. A cell that would take other
seats' cards, a fixed port, ``pkill`` everyone's processes or ``pip install`` into the shared venv asks this module
first and either uses the seat's own device and port or prints, in the reader's language, why it is skipped here.

>>> seat = current_seat({"NPULAB_WORKSHOP_SEAT": "alice", "NPULAB_SEAT_DEVICES": "3", "NPULAB_SEAT_PORT": "20030"})
>>> seat.devices, seat.port(1)
((3,), 20031)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from npulab.core.i18n import t

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
            raise ValueError(t("workshop.checks.mode.port_offset", last=PORTS_PER_SEAT - 1, offset=offset))
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
    cards = (t("workshop.checks.mode.your_npu", devices=t("workshop.checks.list_sep").join(map(str, seat.devices)))
             if seat.devices else t("workshop.checks.mode.cpu_seat"))
    return t("workshop.checks.mode.seat_line", user=seat.user, cards=cards, first=seat.port(0),
             last=seat.port(PORTS_PER_SEAT - 1))


def workshop_skip(reason: str, environ: Mapping[str, str] | None = None) -> bool:
    """In a workshop, print why a cell is skipped and return True; outside one, return False (run the cell)."""
    seat = current_seat(environ)
    if seat is None:
        return False
    print(t("workshop.checks.mode.skip", user=seat.user, reason=reason))
    return True


# --- helpers for the course's NPU cells (each prints why, in the reader's language, when it changes or skips a command)


def tool_device(default: int = 0, environ: Mapping[str, str] | None = None) -> int:
    """The NPU id a device tool (``ascend-dmi -d``) should use: the seat's first NPU in a workshop, else ``default``."""
    seat = current_seat(environ)
    if seat is None or not seat.devices:
        return default
    if seat.devices[0] != default:
        print(t("workshop.checks.mode.tool_device", user=seat.user, mine=seat.devices[0], default=default))
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
        have = (t("workshop.checks.mode.only", count=len(seat.devices), devices=", ".join(map(str, seat.devices)))
                if seat.devices else t("workshop.checks.mode.no_npu"))
        print(t("workshop.checks.mode.too_few", user=seat.user, need=min_cards, have=have))
        return None
    mine = seat.devices[:len(devices)]
    print(t("workshop.checks.mode.job", user=seat.user, mine=", ".join(map(str, mine)),
            original=", ".join(map(str, devices))))
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
    print(t("workshop.checks.mode.pip", user=seat.user, target=target))
    return str(target)
