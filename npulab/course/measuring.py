"""Which lessons measure timings: notebook metadata ``course.measures: true``.

Their published numbers are only as good as the machine was quiet: in the nbval run that stages the book's outputs
their measuring cells (``LoadWatch(``) run while no other cell runs (``conftest.py``), and ``make test-verdicts``
executes these lessons under artificial load to check that every verdict they print agrees with its numbers.
The English book (``en/``) marks the same lessons; ``measuring_lessons(root, books=("en",))`` lists them (their
verdicts are worded in English and ``npulab.course.verdict_audit`` reads either language).
"""

from __future__ import annotations

import json
from pathlib import Path

from npulab.core.notebook_cells import IGNORED_DIRS

LESSON_DIRS = ("chapters", "notebooks")
BOOK_DIRS = {"zh": "", "en": "en/"}  # where each book's lesson folders live, relative to the repository


def measures(nb: dict) -> bool:
    """Whether a notebook (its JSON as a dict) is marked as measuring timings."""
    return bool(nb.get("metadata", {}).get("course", {}).get("measures"))


def measuring_lessons(root: Path, books: tuple[str, ...] = ("zh",)) -> list[str]:
    """Paths, relative to ``root``, of the notebooks of ``books`` ("zh", "en") marked ``course.measures: true``,
    sorted within each book."""
    found = []
    for folder in (BOOK_DIRS[book] + name for book in books for name in LESSON_DIRS):
        for path in sorted((root / folder).rglob("*.ipynb")):
            if IGNORED_DIRS.intersection(path.parts):
                continue
            if measures(json.loads(path.read_text(encoding="utf-8"))):
                found.append(path.relative_to(root).as_posix())
    return found
