"""Workshop support: seats on NPUs, CANN's environment for every participant, container options, the agenda.

On a shared Ascend server, JupyterHub starts one single-user server per participant (``workshop/``).

- ``SeatPool`` gives each participant an NPU (or a share of one) from a pool, in roster order or first come,
  and refuses a participant beyond capacity with a Chinese message; ``assign_devices`` is its whole-roster form.
- ``read_set_env`` runs CANN's ``set_env.sh`` once, at hub start, and returns the variables it sets.
  JupyterHub passes a spawned server only the hub variables named in ``Spawner.env_keep`` (for the local
  spawners of JupyterHub 6.1: PATH, PYTHONPATH, LD_LIBRARY_PATH, LANG, LC_ALL, CONDA_DEFAULT_ENV, CONDA_ROOT,
  VIRTUAL_ENV, JUPYTERHUB_SINGLEUSER_APP; for the base ``Spawner``, such as DockerSpawner, only the last), so every
  ``ASCEND_*`` variable is dropped unless it is listed in ``Spawner.environment``: ``seat_environment``
  builds that list.
- ``ASCEND_RT_VISIBLE_DEVICES`` is advice, not isolation: a participant's own process can unset it and
  open another NPU. ``container_options`` gives a container only its ``/dev/davinciN`` plus the management
  devices and driver mounts (DockerSpawner), which *is* isolation.
- ``agenda`` reads each notebook's ``course.minutes`` so the timetable cannot drift from the lessons.
"""

from __future__ import annotations

import json
import math
import os
import re
import shlex
import shutil
import subprocess
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from npulab.core.notebook_cells import iter_notebooks, read
from npulab.core.paths import DATA_DIR, REPO_ROOT

VISIBLE_ENV = "ASCEND_RT_VISIBLE_DEVICES"
# Variables CANN's set_env.sh exports (CANN environment-variable reference; npulab.env.cann_install writes the same list into
# its synthetic installs). Used when the hub itself was started with CANN loaded and no set_env.sh is named.
CANN_VARIABLES = (
    "ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH", "TOOLCHAIN_HOME",
    "LD_LIBRARY_PATH", "PYTHONPATH", "PATH",
)
# set_env.sh also sets variables that describe the shell, not CANN; never hand these to a participant's server
_SHELL_NOISE = frozenset({"_", "SHLVL", "PWD", "OLDPWD", "BASH_EXECUTION_STRING"})
# Container access to one NPU: its /dev/davinciN plus the management devices, and the driver read-only.
# Source: hiascend MindIE Turbo 2.0.RC2 quick start, "启动容器" (mindieturbomindie_quickstart_0006), whose
# `docker run` passes exactly these devices and mounts; Ascend Docker Runtime mounts the same set by default
# (MindX DL 5.0.0 dlruntime_ug_023).
NPU_CONTROL_DEVICES = ("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc")
NPU_DRIVER_MOUNTS = ("/usr/local/Ascend/driver", "/usr/local/dcmi", "/usr/local/bin/npu-smi")


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


# ---------------------------------------------------------------------------------------------------------------
# CANN's environment for every participant
# ---------------------------------------------------------------------------------------------------------------


def _env_dump(script: str, base: Mapping[str, str], timeout: float) -> dict[str, str]:
    done = subprocess.run(["bash", "-c", script + "\nenv -0"], capture_output=True, env=dict(base),
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace").strip() or f"bash 退出码 {done.returncode}")
    pairs = (item.split("=", 1) for item in done.stdout.decode(errors="replace").split("\0") if "=" in item)
    return dict(pairs)


def read_set_env(set_env: Path | str, base: Mapping[str, str] | None = None, timeout: float = 30.0) -> dict[str, str]:
    """Variables that ``source set_env.sh`` adds or changes, starting from ``base`` (default: this process)."""
    path = Path(set_env)
    if not path.is_file():
        raise FileNotFoundError(f"找不到 CANN 的环境脚本：{path}")
    base = dict(os.environ if base is None else base)
    before = _env_dump(":", base, timeout)
    after = _env_dump(f"source {shlex.quote(str(path))} >/dev/null 2>&1 || exit 3", base, timeout)
    return {k: v for k, v in after.items() if before.get(k) != v and k not in _SHELL_NOISE}


def find_set_env(environ: Mapping[str, str] | None = None) -> Path | None:
    """CANN's set_env.sh: ``WORKSHOP_CANN_SET_ENV`` if set, else the ≥ 8.5 layout, else the legacy one."""
    env = os.environ if environ is None else environ
    if env.get("WORKSHOP_CANN_SET_ENV"):
        return Path(env["WORKSHOP_CANN_SET_ENV"])
    for candidate in ("/usr/local/Ascend/cann/set_env.sh", "/usr/local/Ascend/ascend-toolkit/set_env.sh"):
        if Path(candidate).is_file():
            return Path(candidate)
    return None


def inherited_cann_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The CANN variables of an already loaded environment (the hub started after ``source set_env.sh``)."""
    env = os.environ if environ is None else environ
    return {k: env[k] for k in CANN_VARIABLES if k in env}


def seat_environment(cann_env: Mapping[str, str], device: int, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """``Spawner.environment`` for one seat: CANN's variables, the seat's NPU and any extra settings."""
    env = dict(extra or {})
    env.update(cann_env)
    env[VISIBLE_ENV] = str(device)
    return env


# ---------------------------------------------------------------------------------------------------------------
# Containers: real isolation
# ---------------------------------------------------------------------------------------------------------------


def container_options(device: int, *, dev_dir: str = "/dev", mounts: Iterable[str] = NPU_DRIVER_MOUNTS) -> dict:
    """DockerSpawner settings giving one container one NPU: ``extra_host_config`` (devices) and ``volumes``.

    Only ``/dev/davinci{device}`` is passed, so processes in the container cannot open a neighbour's NPU
    whatever they set; the driver, ``dcmi`` and ``npu-smi`` are mounted read-only from the host.
    """
    if int(device) < 0:
        raise ValueError(f"NPU 编号须为非负整数，收到 {device}")
    nodes = [f"{dev_dir}/davinci{int(device)}", *(f"{dev_dir}/{Path(n).name}" for n in NPU_CONTROL_DEVICES)]
    return {
        "extra_host_config": {"devices": [f"{n}:{n}:rwm" for n in nodes]},
        "volumes": {m: {"bind": m, "mode": "ro"} for m in mounts},
    }


# ---------------------------------------------------------------------------------------------------------------
# The course, delivered to each participant without the solutions
# ---------------------------------------------------------------------------------------------------------------

COURSE_PARTS = ("intro.md", "chapters", "notebooks")  # what a participant gets (npulab comes from the hub's venv)
WITHHELD = ("solutions",)  # folder names never copied to a participant


def copy_course(source: Path | str, home: Path | str, folder: str = "course") -> Path | None:
    """Copy the course into ``home/folder`` once (a participant's later edits are kept); solutions stay behind.

    Returns the new folder, or None when it already existed.
    """
    src, dest = Path(source), Path(home) / folder
    if dest.exists():
        return None
    ignore = shutil.ignore_patterns(*WITHHELD, "*.pyc", "__pycache__", ".ipynb_checkpoints", "_build", "build",
                                    "rank_0", "kernel_meta")
    dest.mkdir(parents=True)
    for part in COURSE_PARTS:
        if (src / part).is_dir():
            shutil.copytree(src / part, dest / part, ignore=ignore)
        elif (src / part).is_file():
            shutil.copy2(src / part, dest / part)
    return dest


TIMES_FILE = DATA_DIR / "notebook_times.yaml"
# Estimates, stated with their basis (shown next to every agenda): reading speed for Chinese technical prose,
# and working time per exercise item / per lab check / per quiz question. Change them to suit the audience.
READING_CHARS_PER_MIN = 300   # assumption: careful reading of technical Chinese with code, ~300 字/分钟
MINUTES_PER_EXERCISE = 5      # assumption: one short exercise item in a lesson's 练习 section
MINUTES_PER_LAB_CHECK = 6     # assumption: one lab question (read, write a few lines, run the check)
MINUTES_PER_QUIZ_QUESTION = 1
DESIGN_RUN_MINUTES = 1.0      # DESIGN.md: every notebook runs in about one minute on a 2-core CPU (used when unmeasured)


@dataclass(frozen=True)
class Session:
    """One notebook in the agenda: planned minutes and how they are made up."""

    path: str
    title: str
    minutes: int                  # the author's estimate in the notebook metadata (course.minutes)
    needs_npu: bool
    run_s: float | None = None    # measured execution time on CPU (None: not measured yet)
    npu_run_s: float | None = None  # recorded execution time on an Ascend NPU (make record-npu), if any
    reading_min: float = 0.0      # estimate: characters of prose ÷ READING_CHARS_PER_MIN
    exercise_min: float = 0.0     # estimate: exercise items × minutes per item

    @property
    def run_min(self) -> float:
        return (self.run_s / 60) if self.run_s is not None else DESIGN_RUN_MINUTES

    @property
    def planned_min(self) -> int:
        """Run time (measured, else the design target) + reading + exercises (estimates), rounded up to 5 min."""
        return max(5, math.ceil((self.run_min + self.reading_min + self.exercise_min) / 5) * 5)


def load_times(path: Path | str = TIMES_FILE) -> dict:
    """The measured notebook times (``{"machine", "date", "source", "seconds": {path: s}}``); empty if none yet."""
    import yaml

    path = Path(path)
    if not path.is_file():
        return {"seconds": {}}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    data.setdefault("seconds", {})
    return data


def _exercise_items(nb, path: Path) -> int:
    if path.stem.endswith("_lab"):
        return sum(1 for c in nb.cells if c.cell_type == "code" and "lab.check(" in c.source)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    match = re.search(r"^## 练习\n(.*?)(?=^:::|^## )", text, flags=re.S | re.M)
    return len(re.findall(r"^\d+\. ", match.group(1), flags=re.M)) if match else 0


def agenda(paths: list[Path | str] | None = None, times: dict | None = None) -> list[Session]:
    """Lessons, labs and quizzes in course order, each with measured run time and estimated reading/exercise time."""
    measured = (load_times() if times is None else times).get("seconds", {})
    sessions = []
    for path in iter_notebooks(paths):
        if path.parent.name == "solutions" or path.stem == "instructor_guide":
            continue
        nb = read(path)
        course = nb.metadata.get("course", {})
        rel = str(path.relative_to(REPO_ROOT))
        title = next((c.source.splitlines()[0].lstrip("# ").strip() for c in nb.cells if c.cell_type == "markdown"), path.stem)
        prose = sum(len(re.sub(r"\s", "", c.source)) for c in nb.cells if c.cell_type == "markdown")
        if path.stem == "quizzes":
            from npulab.course import quiz

            exercise = MINUTES_PER_QUIZ_QUESTION * sum(len(quiz.load(ch).questions) for ch in quiz.chapters())
        elif path.stem.endswith("_lab"):
            exercise = MINUTES_PER_LAB_CHECK * _exercise_items(nb, path)
        else:
            exercise = MINUTES_PER_EXERCISE * _exercise_items(nb, path)
        recorded = course.get("npu_recording", {}).get("seconds") if isinstance(course.get("npu_recording"), dict) else None
        # a lab is timed by its solution: that is the notebook a participant ends up running in full
        solution = f"notebooks/solutions/{path.stem}_solution.ipynb" if path.stem.endswith("_lab") else rel
        sessions.append(Session(rel, title, int(course.get("minutes", 0)), "npu" in course.get("requires", []),
                                run_s=measured.get(solution, measured.get(rel)), npu_run_s=recorded,
                                reading_min=round(prose / READING_CHARS_PER_MIN, 1), exercise_min=exercise))
    return sessions


def chapter_of(session: Session) -> str | None:
    """``"01"`` … ``"06"`` for a chapter's lessons and lab; None for the quizzes."""
    m = re.search(r"(?:chapters/|notebooks/)(\d\d)", session.path)
    return m.group(1) if m else None


def workshop_order(sessions: list[Session], chapters: Iterable[str] | None = None) -> list[Session]:
    """Each chapter's lessons, then its lab, the quizzes last; only ``chapters`` (e.g. ``["01", "03"]``) if given."""
    keep = set(chapters) if chapters is not None else None
    chosen = [s for s in sessions if keep is None or chapter_of(s) in keep]
    return sorted(chosen, key=lambda s: (chapter_of(s) or "99", s.path.startswith("notebooks/"), s.path))


def timetable(sessions: list[Session], budget_min: int, *, start: str = "09:00", break_every: int = 90,
              break_min: int = 15, lunch_after: int | None = None, lunch_min: int = 60) -> tuple[list[tuple[str, str, int]], list[Session]]:
    """Fit sessions in order into ``budget_min`` minutes (breaks included, lunch not): (clock, item, minutes) rows
    and the sessions that did not fit (skipped; later, shorter ones may still fit). A break comes before a session
    that would run past ``break_every`` minutes without one; lunch (if ``lunch_after`` is given) comes before the
    first session that starts after that many minutes."""
    hours, minutes = map(int, start.split(":"))
    clock, rows, left = hours * 60 + minutes, [], []
    since_break = used = 0
    lunched = lunch_after is None

    def stamp(t: int) -> str:
        return f"{t // 60:02d}:{t % 60:02d}"

    for s in sessions:
        pause, pause_min = None, 0
        if not lunched and used >= lunch_after:
            pause, pause_min = "午休", lunch_min
        elif since_break > 0 and since_break + s.planned_min > break_every:
            pause, pause_min = "休息", break_min
        counted = pause_min if pause == "休息" else 0
        if used + counted + s.planned_min > budget_min:
            left.append(s)
            continue
        if pause:
            rows.append((stamp(clock), pause, pause_min))
            clock, since_break, used = clock + pause_min, 0, used + counted
            lunched = lunched or pause == "午休"
        rows.append((stamp(clock), s.title, s.planned_min))
        clock, since_break, used = clock + s.planned_min, since_break + s.planned_min, used + s.planned_min
    return rows, left


def times_from_cache(cache_dir: Path | str) -> dict[str, float]:
    """Notebook → seconds, from the Jupyter Book execution cache that ``make test``'s nbval run fills."""
    from jupyter_cache import get_cache

    out = {}
    for record in get_cache(str(cache_dir)).list_cache_records():
        seconds = (record.data or {}).get("execution_seconds")
        uri = Path(record.uri)
        if seconds is not None and uri.is_absolute() and REPO_ROOT in uri.parents:
            out[str(uri.relative_to(REPO_ROOT))] = round(float(seconds), 1)
    return out


def machine_description() -> str:
    """CPU model and core count of this machine (for the label of measured times)."""
    import platform

    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}，{os.cpu_count()} 核"


# ---------------------------------------------------------------------------------------------------------------
# The public site: the book without the solutions
# ---------------------------------------------------------------------------------------------------------------

SOLUTIONS_PREFIX = "notebooks/solutions/"


def _without_solutions(entries: list[dict]) -> list[dict]:
    out = []
    for entry in entries:
        if str(entry.get("file", "")).startswith(SOLUTIONS_PREFIX):
            continue
        entry = dict(entry)
        for key in ("sections", "chapters"):
            if key in entry:
                entry[key] = _without_solutions(entry[key])
                if not entry[key]:
                    del entry[key]
        if "file" in entry or entry.get("chapters") or entry.get("sections"):
            out.append(entry)
    return out


def public_toc(toc: dict) -> dict:
    """The table of contents without any page under ``notebooks/solutions/`` (and without parts left empty)."""
    out = dict(toc)
    if "parts" in out:
        out["parts"] = _without_solutions(out["parts"])
    for key in ("chapters", "sections"):
        if key in out:
            out[key] = _without_solutions(out[key])
    return out


# ---------------------------------------------------------------------------------------------------------------
# Command line: python -m npulab workshop preflight|agenda|public-toc
# ---------------------------------------------------------------------------------------------------------------
