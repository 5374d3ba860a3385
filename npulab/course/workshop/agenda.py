"""The agenda: each notebook's planned minutes from its metadata and measured run times."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from npulab.core.notebook_cells import iter_notebooks, read
from npulab.core.paths import DATA_DIR, REPO_ROOT

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
