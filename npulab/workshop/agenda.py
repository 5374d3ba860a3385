"""The agenda: whole lessons with their labs and quizzes, in prerequisite order, timed by ``course.minutes``."""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from npulab.core.i18n import language, t
from npulab.core.notebook_cells import iter_notebooks, read
from npulab.core.paths import DATA_DIR, REPO_ROOT, parse_yaml

TIMES_FILE = DATA_DIR / "notebook_times.yaml"
# Estimates, stated with their basis (shown next to every agenda): reading speed for Chinese technical prose,
# and working time per exercise item / per lab check / per quiz question. Change them to suit the audience.
READING_CHARS_PER_MIN = 300   # assumption: careful reading of technical Chinese with code, ~300 字/分钟
MINUTES_PER_EXERCISE = 5      # assumption: one short exercise item in a lesson's 练习 section
MINUTES_PER_LAB_CHECK = 6     # assumption: one lab question (read, write a few lines, run the check)
MINUTES_PER_QUIZ_QUESTION = 1
DESIGN_RUN_MINUTES = 1.0      # DESIGN.md: every notebook runs in about one minute on a 2-core CPU (used when unmeasured)
# the agenda rows of a pause: these Chinese words are the rows' ids (Plan.used_min reads them); text and --json show them
# in the reader's language (shown_item)
BREAK, LUNCH = "休息", "午休"


def shown_item(item: str, session: Session | None) -> str:
    """A row's item as the reader sees it: a pause in the reader's language, a block's title as it is."""
    if session is None and item == BREAK:
        return t("workshop.tools.agenda.break")
    if session is None and item == LUNCH:
        return t("workshop.tools.agenda.lunch")
    return item


@functools.cache
def english_title(path: str) -> str | None:
    """The title of a block in the English edition: the heading of ``en/<path>``, or the ``en:`` title of a chapter's
    quiz (``notebooks/quizzes.ipynb#03``); None where the English edition has none."""
    quiz_chapter = re.search(r"quizzes\.ipynb#(\d\d)$", path)
    if quiz_chapter:
        from npulab.course import quiz

        english = quiz.with_english_words(quiz_chapter.group(1))
        return english.title if english.language == "en" else None
    twin = REPO_ROOT / "en" / path
    if not twin.is_file():
        return None
    from npulab.course.book_toc import title

    return title(twin)


@dataclass(frozen=True)
class Session:
    """One block of the agenda (a lesson, a lab, or a chapter's quiz): planned minutes and where they come from."""

    path: str
    title: str
    minutes: int                  # course.minutes in the notebook metadata: the ONE planned duration
    needs_npu: bool
    run_s: float | None = None    # measured execution time on CPU, NPU cells excluded (None: not measured yet)
    npu_run_s: float | None = None  # recorded execution time on an Ascend NPU (make record-npu), if any
    reading_min: float = 0.0      # estimate: characters of prose ÷ READING_CHARS_PER_MIN
    exercise_min: float = 0.0     # estimate: exercise items × minutes per item
    requires: tuple[str, ...] = ()  # prerequisite notebooks (course.requires entries that are paths)
    kind: str = "lesson"          # lesson / lab / quiz

    @property
    def run_min(self) -> float:
        return (self.run_s / 60) if self.run_s is not None else DESIGN_RUN_MINUTES

    @property
    def estimate_min(self) -> int:
        """Cross-check of ``minutes``: run time (measured, else the design target) + reading + exercises, to 5 min."""
        return max(5, math.ceil((self.run_min + self.reading_min + self.exercise_min) / 5) * 5)

    @property
    def planned_min(self) -> int:
        """The minutes the agenda plans: ``course.minutes`` (the number the notebook and the labs index show)."""
        return self.minutes if self.minutes > 0 else self.estimate_min

    def run_label(self) -> str:
        """How long the notebook's cells take, and on what."""
        if self.npu_run_s is not None:
            return t("workshop.tools.agenda.run_npu", seconds=self.npu_run_s)
        if self.run_s is not None:
            return t("workshop.tools.agenda.run_cpu", seconds=self.run_s)
        return t("workshop.tools.agenda.run_none") if self.kind != "quiz" else "—"

    @property
    def heading(self) -> str:
        """The title in the reader's language: for an English reader the English edition's title where it has one."""
        return (english_title(self.path) or self.title) if language() == "en" else self.title


def load_times(path: Path | str = TIMES_FILE) -> dict:
    """The measured notebook times (``{"machine", "date", "source", "seconds": {path: s}}``); empty if none yet."""
    path = Path(path)
    if not path.is_file():
        return {"seconds": {}}
    data = parse_yaml(path.read_text(encoding="utf-8")) or {}
    data.setdefault("seconds", {})
    return data


def _exercise_items(nb, path: Path) -> int:
    if path.stem.endswith("_lab"):
        return sum(1 for c in nb.cells if c.cell_type == "code" and "lab.check(" in c.source)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    match = re.search(r"^## 练习\n(.*?)(?=^:::|^## )", text, flags=re.S | re.M)
    return len(re.findall(r"^\d+\. ", match.group(1), flags=re.M)) if match else 0


def prerequisites(course: dict) -> tuple[str, ...]:
    """The prerequisite notebooks in a notebook's ``course.requires`` (hardware words such as ``npu`` are not)."""
    return tuple(r for r in course.get("requires", []) if str(r).endswith(".ipynb"))


def _quiz_sessions(lessons: list[Session]) -> list[Session]:
    """One block per chapter quiz (``notebooks/quizzes.ipynb``): its questions × a minute, after the chapter's lessons."""
    from npulab.course import quiz

    out = []
    for chapter in quiz.chapters():
        q = quiz.load(chapter)
        minutes = max(5, math.ceil(MINUTES_PER_QUIZ_QUESTION * len(q.questions) / 5) * 5)
        covered = tuple(s.path for s in lessons if s.kind == "lesson" and chapter_of(s) == chapter)
        out.append(Session(f"notebooks/quizzes.ipynb#{chapter}", q.title, minutes, False,
                           exercise_min=MINUTES_PER_QUIZ_QUESTION * len(q.questions), requires=covered, kind="quiz"))
    return out


def agenda(paths: list[Path | str] | None = None, times: dict | None = None) -> list[Session]:
    """Lessons, labs and the chapter quizzes in course order, each with its planned and measured times."""
    measured = (load_times() if times is None else times).get("seconds", {})
    sessions = []
    for path in iter_notebooks(paths):
        if path.parent.name == "solutions" or path.stem in ("instructor_guide", "quizzes"):
            continue
        nb = read(path)
        course = nb.metadata.get("course", {})
        rel = str(path.relative_to(REPO_ROOT))
        title = next((c.source.splitlines()[0].lstrip("# ").strip() for c in nb.cells if c.cell_type == "markdown"), path.stem)
        prose = sum(len(re.sub(r"\s", "", c.source)) for c in nb.cells if c.cell_type == "markdown")
        lab = path.stem.endswith("_lab")
        exercise = (MINUTES_PER_LAB_CHECK if lab else MINUTES_PER_EXERCISE) * _exercise_items(nb, path)
        recorded = course.get("npu_recording", {}).get("seconds") if isinstance(course.get("npu_recording"), dict) else None
        # a lab is timed by its solution: that is the notebook a participant ends up running in full
        solution = f"notebooks/solutions/{path.stem}_solution.ipynb" if lab else rel
        sessions.append(Session(rel, title, int(course.get("minutes", 0)), "npu" in course.get("requires", []),
                                run_s=measured.get(solution, measured.get(rel)), npu_run_s=recorded,
                                reading_min=round(prose / READING_CHARS_PER_MIN, 1), exercise_min=exercise,
                                requires=prerequisites(course), kind="lab" if lab else "lesson"))
    if paths is None:
        sessions += _quiz_sessions(sessions)
    return sessions


def chapter_of(session: Session) -> str | None:
    """``"01"`` … ``"06"`` for a chapter's lessons, lab and quiz (lab 07 belongs to chapter 06)."""
    m = re.search(r"quizzes\.ipynb#(\d\d)$", session.path)
    if m:
        return m.group(1)
    if session.path.startswith("notebooks/") and session.kind == "lab":
        chapters = {chapter_of_path(r) for r in session.requires} - {None}
        if len(chapters) == 1:
            return chapters.pop()
    return chapter_of_path(session.path)


def chapter_of_path(path: str) -> str | None:
    """The chapter number in a notebook path (``chapters/03_…`` or ``notebooks/03_…``)."""
    m = re.search(r"(?:chapters/|notebooks/)(\d\d)", path)
    return m.group(1) if m else None


def workshop_order(sessions: list[Session], chapters: Iterable[str] | None = None) -> list[Session]:
    """The chosen chapters' blocks in prerequisite order: within a chapter its lessons, then its lab(s), then its quiz.

    Course order is kept wherever ``course.requires`` allows (a stable topological sort); prerequisites outside
    the chosen chapters are not added (``Plan.assumed`` names them).
    """
    keep = set(chapters) if chapters is not None else None
    rank = {"lesson": 0, "lab": 1, "quiz": 2}
    chosen = sorted((s for s in sessions if keep is None or chapter_of(s) in keep),
                    key=lambda s: (chapter_of(s) or "99", rank[s.kind], s.path))
    placed: list[Session] = []
    done: set[str] = set()
    pending = list(chosen)
    inside = {s.path for s in chosen}
    while pending:
        ready = next((s for s in pending if all(r in done or r not in inside for r in s.requires)), pending[0])
        pending.remove(ready)
        placed.append(ready)
        done.add(ready.path)
    return placed


@dataclass
class Plan:
    """A timetable: (clock, item, minutes, session or None for a break) rows, what did not fit and why."""

    rows: list[tuple[str, str, int, Session | None]]
    skipped: list[tuple[Session, str]]
    assumed: list[str]          # prerequisites outside the chosen chapters: participants should know them already
    budget_min: int
    start: str

    @property
    def used_min(self) -> int:
        return sum(r[2] for r in self.rows if r[1] != LUNCH)

    def text(self) -> str:
        """The timetable as text for a terminal, with what did not fit and where the numbers come from."""
        lines = []
        for clock, item, minutes, session in self.rows:
            where = t("workshop.tools.agenda.where", path=session.path, run=session.run_label()) if session else ""
            lines.append(t("workshop.tools.agenda.row", clock=clock, minutes=minutes, item=shown_item(item, session),
                           where=where))
        lessons = sum(r[2] for r in self.rows if r[3] is not None)
        pauses = self.used_min - lessons
        if math.isinf(self.budget_min):
            lines.append(t("workshop.tools.agenda.total_unlimited", used=self.used_min, lessons=lessons, pauses=pauses))
        else:
            lines.append(t("workshop.tools.agenda.total", used=self.used_min, lessons=lessons, pauses=pauses,
                           budget=self.budget_min, left=self.budget_min - self.used_min))
        if self.skipped:
            lines.append(t("workshop.tools.agenda.skipped"))
            lines += [t("workshop.tools.agenda.skipped_item", title=s.heading, minutes=s.planned_min, why=why)
                      for s, why in self.skipped]
        if self.assumed:
            lines.append(t("workshop.tools.agenda.assumed", paths=t("workshop.tools.list_sep").join(self.assumed)))
        lines.append(t("workshop.tools.agenda.basis"))
        return "\n".join(lines)


def _stamp(t: int) -> str:
    return f"{t // 60 % 24:02d}:{t % 60:02d}"


def plan(sessions: list[Session], budget_min: int, *, start: str = "09:00", break_every: int = 90,
         break_min: int = 15, lunch_after: int | None = None, lunch_min: int = 60) -> Plan:
    """Fit ``sessions`` (already in ``workshop_order``) into ``budget_min`` minutes, breaks included, lunch not.

    A session is left out when it does not fit in the time left, or when one of its prerequisites was left out
    (a lesson is never planned before, or without, what it builds on). A break comes before a session that would
    run past ``break_every`` minutes without one; lunch (if ``lunch_after`` is given) before the first session
    that starts after that many minutes.
    """
    if not re.fullmatch(r"\d{1,2}:\d\d", start):
        raise ValueError(t("workshop.tools.agenda.bad_start", start=repr(start)))
    hours, minutes = map(int, start.split(":"))
    clock, rows, skipped = hours * 60 + minutes, [], []
    since_break = used = 0
    lunched = lunch_after is None
    titles = {s.path: s.heading for s in sessions}
    left_out: set[str] = set()
    for s in sessions:
        missing = [r for r in s.requires if r in left_out]
        if missing:
            skipped.append((s, t("workshop.tools.agenda.prerequisite_left_out", title=titles[missing[0]])))
            left_out.add(s.path)
            continue
        pause, pause_min = None, 0
        if not lunched and used >= lunch_after:
            pause, pause_min = LUNCH, lunch_min
        elif since_break > 0 and since_break + s.planned_min > break_every:
            pause, pause_min = BREAK, break_min
        counted = pause_min if pause == BREAK else 0
        if used + counted + s.planned_min > budget_min:
            skipped.append((s, t("workshop.tools.agenda.no_time", needed=s.planned_min + counted, left=budget_min - used)))
            left_out.add(s.path)
            continue
        if pause:
            rows.append((_stamp(clock), pause, pause_min, None))
            clock, since_break, used = clock + pause_min, 0, used + counted
            lunched = lunched or pause == LUNCH
        rows.append((_stamp(clock), s.heading, s.planned_min, s))
        clock, since_break, used = clock + s.planned_min, since_break + s.planned_min, used + s.planned_min
    inside = {s.path for s in sessions}
    assumed = sorted({r for s in sessions for r in s.requires if r not in inside})
    return Plan(rows, skipped, assumed, budget_min, start)


def timetable(sessions: list[Session], budget_min: int, **kwargs) -> tuple[list[tuple[str, str, int]], list[Session]]:
    """``plan`` as (clock, item, minutes) rows and the sessions left out."""
    result = plan(sessions, budget_min, **kwargs)
    return [r[:3] for r in result.rows], [s for s, _ in result.skipped]


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


def machine_description(lang: str = "zh") -> str:
    """CPU model and core count of this machine (for the label of measured times; Chinese unless ``lang`` says
    otherwise: the label is data, written into ``notebook_times.yaml``)."""
    import platform

    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return t("workshop.tools.agenda.machine", lang, model=model, cores=os.cpu_count())
