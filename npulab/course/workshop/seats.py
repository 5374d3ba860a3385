"""Seats on a pool of NPUs: one NPU (or a share of one) per participant, kept across hub restarts."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable
from pathlib import Path


class RosterError(ValueError):
    """A roster that cannot be seated on the devices given (the message says why, in Chinese)."""


def _check_pool(devices: list[int], per_device: int) -> None:
    if per_device < 1:
        raise RosterError(f"每张 NPU 的学员数须 ≥ 1，收到 {per_device}")
    if not devices:
        raise RosterError("设备池为空：至少给出一张 NPU 的编号")
    if len(set(devices)) != len(devices) or any(d < 0 for d in devices):
        raise RosterError(f"设备编号须为不重复的非负整数，收到 {devices}")


def assign_devices(users: list[str], devices: list[int], per_device: int = 1) -> dict[str, int]:
    """Map each user to a logical NPU device ID (``npu-smi info -m``), ``per_device`` users per NPU, in roster order."""
    _check_pool(devices, per_device)
    duplicates = sorted({u for u in users if users.count(u) > 1})
    if duplicates:
        raise RosterError(f"名单中有重复的用户：{', '.join(duplicates)}")
    capacity = len(devices) * per_device
    if len(users) > capacity:
        raise RosterError(f"{len(users)} 位学员超出容量：{len(devices)} 张 NPU × 每张 {per_device} 人 = {capacity}")
    return {user: devices[i // per_device] for i, user in enumerate(users)}


class SeatError(RuntimeError):
    """A participant who cannot be given a seat (the pool is full); the message is shown to them, in Chinese."""


class SeatPool:
    """Seats on a pool of NPUs: ``per_device`` seats per NPU; roster names first (in order), others first come.

    A participant keeps their seat for the whole workshop (also across hub restarts when ``state_file`` is
    given). Beyond capacity, ``seat`` raises ``SeatError`` with a message for the participant.

    >>> pool = SeatPool([4, 5], per_device=1)
    >>> pool.seat("alice"), pool.seat("bob"), pool.seat("alice")
    (4, 5, 4)
    """

    def __init__(self, devices: Iterable[int], per_device: int = 1, roster: Iterable[str] = (),
                 state_file: Path | str | None = None):
        self.devices = [int(d) for d in devices]
        self.per_device = int(per_device)
        _check_pool(self.devices, self.per_device)
        roster = list(roster)
        capacity = self.capacity
        self.overflow = roster[capacity:]  # named in the roster but beyond capacity: refused at spawn
        self._seats: dict[str, int] = assign_devices(roster[:capacity], self.devices, self.per_device)
        self.state_file = Path(state_file) if state_file else None
        self._lock = threading.Lock()
        if self.state_file and self.state_file.exists():
            saved = json.loads(self.state_file.read_text(encoding="utf-8"))
            for user, device in saved.items():
                if user not in self._seats and int(device) in self.devices:
                    self._seats[user] = int(device)

    @property
    def capacity(self) -> int:
        return len(self.devices) * self.per_device

    def seats(self) -> dict[str, int]:
        """Participant → logical NPU device ID, for everyone seated so far."""
        return dict(self._seats)

    def free(self) -> list[int]:
        """One entry per free seat: the NPU id it is on, in pool order."""
        taken = list(self._seats.values())
        out = []
        for device in self.devices:
            out += [device] * (self.per_device - taken.count(device))
        return out

    def seat(self, user: str) -> int:
        """The NPU id of ``user``'s seat, giving them the next free one if they have none yet."""
        with self._lock:
            if user in self._seats:
                return self._seats[user]
            free = self.free()
            if user in self.overflow or not free:
                raise SeatError(
                    f"抱歉，{user}：本场工作坊的 {self.capacity} 个座位（{len(self.devices)} 张 NPU × 每张 "
                    f"{self.per_device} 人）已全部分配，无法再为你启动服务器。请联系讲师：可以和别人结对，"
                    f"或在自己的电脑上以 CPU 模式学习（课程的每个笔记本都能在 CPU 上运行）。")
            self._seats[user] = free[0]
            if self.state_file:
                tmp = self.state_file.with_suffix(".tmp")
                tmp.write_text(json.dumps(self._seats, ensure_ascii=False, indent=1), encoding="utf-8")
                tmp.replace(self.state_file)
            return free[0]
