"""Seats on a pool of NPUs: one NPU (or a share of one) per participant, spread evenly, kept in one state file.

The state file (``WORKSHOP_STATE_DIR/seats.json``) is the truth: the hub and ``python -m npulab workshop seats``
both read it, change it under a file lock and write it back atomically, so a seat freed or moved on the command
line is seen by the running hub at the next spawn. Names are normalised exactly as JupyterHub's authenticator
normalises them (``normalize_username``), so the roster's "Alice" is the hub's "alice".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from npulab.core.i18n import t

STATE_VERSION = 2


class RosterError(ValueError):
    """A roster that cannot be seated on the devices given (the message says why, in npulab's language)."""


class SeatError(RuntimeError):
    """A participant who cannot be given a seat (the pool is full). The refusal of ``SeatPool.entry`` is shown to the
    participant on the hub's Chinese pages, so it stays Chinese; ``SeatPool.move``'s is the instructor's, in npulab's
    language."""


def normalize_username(name: str, username_map: Mapping[str, str] | None = None) -> str:
    """The name JupyterHub 6.1 gives this login: stripped (``LoginHandler``), lowercased, then ``username_map``.

    Mirrors ``Authenticator.normalize_username`` of jupyterhub 6.1.1 (``jupyterhub/auth.py``: ``lower()`` then
    ``username_map.get``) and the login form's ``get_argument("username", strip=True)`` (``handlers/login.py``).

    >>> normalize_username("  Alice ")
    'alice'
    """
    name = name.strip().lower()
    return (username_map or {}).get(name, name)


def read_roster(path: Path | str, username_map: Mapping[str, str] | None = None) -> list[str]:
    """Normalised names from a roster file (one a line; blank lines and ``#`` comments skipped), order kept."""
    names = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0]
        if line.strip():
            names.append(normalize_username(line, username_map))
    return names


def _check_pool(devices: list[int], per_device: int) -> None:
    if per_device < 1:
        raise RosterError(t("workshop.tools.seats.per_device", per_device=per_device))
    if not devices:
        raise RosterError(t("workshop.tools.seats.no_devices"))
    if len(set(devices)) != len(devices) or any(d < 0 for d in devices):
        raise RosterError(t("workshop.tools.seats.bad_devices", devices=devices))


def _least_loaded(load: Mapping[int, int], devices: list[int], per_device: int) -> int | None:
    """The pool device with the fewest seats (the first in pool order on a tie), None when all are full."""
    open_devices = [d for d in devices if load.get(d, 0) < per_device]
    return min(open_devices, key=lambda d: (load.get(d, 0), devices.index(d))) if open_devices else None


def assign_devices(users: list[str], devices: list[int], per_device: int = 1) -> dict[str, int]:
    """Map each user to a logical NPU id (``npu-smi info -m``), spread evenly: user i on device i mod N.

    20 users on 8 NPUs with 3 seats each fill 3,3,3,3,2,2,2,2, never 3,3,3,3,3,3,2,0.
    """
    _check_pool(devices, per_device)
    duplicates = sorted({u for u in users if users.count(u) > 1})
    if duplicates:
        raise RosterError(t("workshop.tools.seats.duplicates_named", names=", ".join(duplicates)))
    capacity = len(devices) * per_device
    if len(users) > capacity:
        raise RosterError(t("workshop.tools.seats.over_capacity", users=len(users), npus=len(devices),
                            per_device=per_device, capacity=capacity, needed=-(-len(users) // len(devices))))
    return {user: devices[i % len(devices)] for i, user in enumerate(users)}


@dataclass(frozen=True)
class SeatEntry:
    """One seated participant: the NPU and the seat's index (which fixes the seat's private ports)."""

    user: str
    device: int
    index: int


class SeatPool:
    """Seats on a pool of NPUs, ``per_device`` per NPU: roster names first (in order), others first come.

    Placement is least-loaded, so seats spread evenly over the NPUs. Everyone seated is written to
    ``state_file``; a seated participant keeps their seat across hub restarts and roster edits (a name taken off
    the roster keeps its seat until freed: ``stale()`` lists them). Beyond capacity, ``seat`` raises ``SeatError``.
    ``seated`` starts a pool without a state file from a seat map (preflight: the hub's seats, read only).

    >>> pool = SeatPool([4, 5], per_device=1)
    >>> pool.seat("Alice"), pool.seat("bob"), pool.seat("alice")
    (4, 5, 4)
    """

    def __init__(self, devices: Iterable[int], per_device: int = 1, roster: Iterable[str] = (),
                 state_file: Path | str | None = None, username_map: Mapping[str, str] | None = None,
                 seated: Mapping[str, dict] | None = None):
        self.devices = [int(d) for d in devices]
        self.per_device = int(per_device)
        _check_pool(self.devices, self.per_device)
        self.username_map = dict(username_map or {})
        self.roster = [normalize_username(u, self.username_map) for u in roster]
        duplicates = sorted({u for u in self.roster if self.roster.count(u) > 1})
        if duplicates:
            raise RosterError(t("workshop.tools.seats.duplicates_named", names=", ".join(duplicates)))
        self.state_file = Path(state_file) if state_file else None
        self._memory: dict[str, dict] = {u: dict(s) for u, s in (seated or {}).items()}  # without a state file
        self._lock = threading.Lock()
        with self._state() as seats:
            self.moved_off_pool = [u for u, s in seats.items() if s["device"] not in self.devices]
            for user in self.moved_off_pool:  # the pool changed under them: they are seated again below
                del seats[user]
            for user in self.roster:
                if user not in seats:
                    self._place(seats, user)
        self.overflow = [u for u in self.roster if u not in self.seats()]  # on the roster, beyond capacity

    # --- the state file -------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _state(self) -> Iterator[dict[str, dict]]:
        """The seat map, locked for reading and writing (thread lock, plus a file lock when kept on disk)."""
        with self._lock:
            if self.state_file is None:
                yield self._memory
                return
            self.state_file.parent.mkdir(parents=True, exist_ok=True)
            with open(self.state_file.with_suffix(".lock"), "a+") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                seats = load_state(self.state_file)
                before = json.dumps(seats, sort_keys=True)
                yield seats
                if json.dumps(seats, sort_keys=True) != before or not self.state_file.exists():
                    save_state(self.state_file, seats)

    def _place(self, seats: dict[str, dict], user: str) -> dict | None:
        load: dict[int, int] = {}
        for s in seats.values():
            load[s["device"]] = load.get(s["device"], 0) + 1
        device = _least_loaded(load, self.devices, self.per_device)
        if device is None:
            return None
        used = {s["index"] for s in seats.values()}
        index = next(i for i in range(len(seats) + 1) if i not in used)
        seats[user] = {"device": device, "index": index}
        return seats[user]

    # --- reading ----------------------------------------------------------------------------------------------
    @property
    def capacity(self) -> int:
        return len(self.devices) * self.per_device

    def entries(self) -> list[SeatEntry]:
        """Everyone seated, in seat order."""
        with self._state() as seats:
            items = sorted(seats.items(), key=lambda kv: kv[1]["index"])
        return [SeatEntry(u, s["device"], s["index"]) for u, s in items]

    def seats(self) -> dict[str, int]:
        """Participant → logical NPU device ID, for everyone seated so far."""
        return {e.user: e.device for e in self.entries()}

    def load(self) -> dict[int, int]:
        """NPU id → seats taken on it, for every NPU of the pool."""
        load = dict.fromkeys(self.devices, 0)
        for e in self.entries():
            load[e.device] = load.get(e.device, 0) + 1
        return load

    def free(self) -> list[int]:
        """One entry per free seat: the NPU id it is on, in pool order."""
        return [d for d, n in self.load().items() if d in self.devices for _ in range(self.per_device - n)]

    def stale(self) -> list[str]:
        """Seated names that are not on the roster (taken off it, or test logins): free them with ``release``."""
        return [e.user for e in self.entries() if self.roster and e.user not in self.roster]

    # --- changing -------------------------------------------------------------------------------------------
    def entry(self, user: str) -> SeatEntry:
        """``user``'s seat, giving them the least-loaded free one if they have none yet."""
        user = normalize_username(user, self.username_map)
        with self._state() as seats:
            seat = seats.get(user) or self._place(seats, user)
        if seat is None:
            raise SeatError(
                f"抱歉，{user}：本场工作坊的 {self.capacity} 个座位（{len(self.devices)} 张 NPU × 每张 "
                f"{self.per_device} 人）已全部分配，无法再为你启动服务器。请联系讲师：可以和别人结对，"
                f"或在自己的电脑上以 CPU 模式学习（课程的每个笔记本都能在 CPU 上运行）。")
        return SeatEntry(user, seat["device"], seat["index"])

    def seat(self, user: str) -> int:
        """The NPU id of ``user``'s seat, giving them the next free one if they have none yet."""
        return self.entry(user).device

    def variables(self, user: str) -> dict[str, str]:
        """The ``NPULAB_*`` variables of ``user``'s seat (``npulab.workshop.mode``)."""
        from npulab.workshop.mode import seat_variables

        e = self.entry(user)
        return seat_variables(e.user, [e.device], e.index)

    def release(self, user: str) -> SeatEntry:
        """Free ``user``'s seat (KeyError when they have none)."""
        user = normalize_username(user, self.username_map)
        with self._state() as seats:
            if user not in seats:
                raise KeyError(user)
            seat = seats.pop(user)
        return SeatEntry(user, seat["device"], seat["index"])

    def move(self, user: str, device: int) -> SeatEntry:
        """Put ``user`` on NPU ``device`` (KeyError: not seated; ValueError: not in the pool; SeatError: full)."""
        user = normalize_username(user, self.username_map)
        device = int(device)
        if device not in self.devices:
            raise ValueError(t("workshop.tools.seats.not_in_pool", device=device, devices=self.devices))
        with self._state() as seats:
            if user not in seats:
                raise KeyError(user)
            taken = sum(1 for u, s in seats.items() if s["device"] == device and u != user)
            if taken >= self.per_device:
                raise SeatError(t("workshop.tools.seats.card_full", device=device, per_device=self.per_device))
            seats[user]["device"] = device
            seat = seats[user]
        return SeatEntry(user, seat["device"], seat["index"])

    def reset(self) -> int:
        """Free every seat, then seat the roster again in order; returns how many seats were freed."""
        with self._state() as seats:
            count = len(seats)
            seats.clear()
            for user in self.roster:
                self._place(seats, user)
        return count


def load_state(path: Path | str) -> dict[str, dict]:
    """The seat map of a state file (``{user: {"device", "index"}}``); also reads the older ``{user: device}``."""
    path = Path(path)
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8") or "{}")
    seats = data.get("seats", {}) if data.get("version") == STATE_VERSION else data
    out = {}
    for i, (user, seat) in enumerate(seats.items()):
        if isinstance(seat, dict):
            out[user] = {"device": int(seat["device"]), "index": int(seat["index"])}
        else:
            out[user] = {"device": int(seat), "index": i}
    return out


def save_state(path: Path | str, seats: Mapping[str, dict]) -> None:
    """Write the seat map atomically (a temporary file, then rename)."""
    path = Path(path)
    tmp = path.with_suffix(".tmp")
    ordered = dict(sorted(seats.items(), key=lambda kv: kv[1]["index"]))
    tmp.write_text(json.dumps({"version": STATE_VERSION, "seats": ordered}, ensure_ascii=False, indent=1) + "\n",
                   encoding="utf-8")
    tmp.replace(path)
