"""The course, delivered to each participant without the solutions."""

from __future__ import annotations

import shutil
from pathlib import Path

COURSE_PARTS = ("intro.md", "chapters", "notebooks")  # what a participant gets (npulab comes from the hub's venv)
# never copied to a participant: the solutions and the instructor guide (the quizzes are self-tests with their
# answers on the page by design, notebooks/quizzes.ipynb, so they are copied)
WITHHELD = ("solutions", "instructor_guide.ipynb")


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


LAB_SETTINGS = Path(".jupyter") / "lab" / "user-settings"  # Chinese interface, no news pop-up (also `make lab`)


def copy_lab_settings(source: Path | str, home: Path | str) -> list[Path]:
    """Give a new home the course's JupyterLab settings (only files it does not have: a participant's own win)."""
    src, dest = Path(source) / LAB_SETTINGS, Path(home) / LAB_SETTINGS
    written = []
    for f in sorted(src.rglob("*.jupyterlab-settings")):
        target = dest / f.relative_to(src)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
            written.append(target)
    return written
