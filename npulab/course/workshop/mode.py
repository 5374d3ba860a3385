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


def workshop_skip(reason: str, environ: Mapping[str, str] | None = None) -> bool:
    """In a workshop, print why a cell is skipped and return True; outside one, return False (run the cell)."""
    seat = current_seat(environ)
    if seat is None:
        return False
    print(f"工作坊模式（{seat.user}）：本单元不在共享服务器上运行——{reason}")
    return True
