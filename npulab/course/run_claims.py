"""A lesson's CPU run time as its 预计用时 states it: the measured time, in the same words in JupyterLab and on the site.

Lessons used to type "（CPU 上运行全部单元约 1 分钟）" by hand, and the claim drifted from what the lesson measured.
``python -m npulab workshop times`` writes ``npulab/data/notebook_times.yaml`` from a ``make test`` run and then
``sync_lessons`` rewrites each lesson's parenthesis from it (``run_time_text``); the site renders the same text
(``sphinx_extension.fill_run_time``), and ``stale_lessons`` (a test) fails when a lesson says anything else.

The English book (``en/``) words the same parenthesis in English — "(all cells measured at 48 s on a CPU, AMD EPYC,
2 cores, 2026-12-02)" — from the same measured time of its Chinese twin (``en/chapters/x.ipynb`` ↔
``chapters/x.ipynb``). The form follows the lesson's book, not the reader's language: ``run_time_text`` speaks
Chinese unless asked for ``lang="en"``, and ``stale_lessons`` / ``sync_lessons`` take the books to look at.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from npulab.core.i18n import t
from npulab.core.paths import REPO_ROOT

RUN_CLAIM = re.compile(r"（CPU 上运行全部单元[^）]*）")
RUN_CLAIM_EN = re.compile(r"\(all cells (?:measured at |on (?:a|the) CPU)[^()]*\)")  # both wordings the English book used
CLAIMS = {"zh": RUN_CLAIM, "en": RUN_CLAIM_EN}
BOOK_DIRS = {"zh": "", "en": "en/"}  # where each book's chapters/ and notebooks/ live, relative to the repository


def machine_text(times: dict, lang: str = "zh") -> str:
    """The measuring machine as ``times`` names it ("AMD EPYC，2 核"), in English "AMD EPYC, 2 cores" (or its
    ``machine_en``)."""
    machine = str(times.get("machine") or "")
    if lang != "en" or not machine:
        return machine
    if times.get("machine_en"):
        return str(times["machine_en"])
    return re.sub(r"(\d+)\s*核", r"\1 cores", machine).replace("，", ", ").replace("；", "; ")


def run_time_text(seconds: float | None, times: dict, lang: str = "zh") -> str:
    """The parenthesis a lesson's 预计用时 shows for its CPU run: measured seconds, machine and date.

    ``lang`` is the lesson's book ("en" for the English book), not the reader's language.
    """
    if seconds is None:
        return t("timing.run_not_measured", lang)
    shown = f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    separator = t("timing.run_separator", lang)
    parts = [machine_text(times, lang)] if times.get("machine") else []
    parts += [str(times["date"])] if times.get("date") else []
    where = separator.join(parts)
    return t("timing.run_measured", lang, shown=shown, where=separator + where if where else "")


def _lessons(root: Path, book: str = "zh") -> list[Path]:
    base = root / BOOK_DIRS[book]
    return sorted(p for folder in ("chapters", "notebooks") for p in (base / folder).rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts)


def _measured_as(rel: str, book: str) -> str:
    """The key of a lesson's time in ``times["seconds"]``: its Chinese twin's path for an English lesson."""
    return rel.removeprefix(BOOK_DIRS[book])


def _claimed(nb: dict, wanted: str, book: str = "zh") -> tuple[dict, bool]:
    changed = False
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        new = CLAIMS[book].sub(lambda _: wanted, text)
        if new != text:
            cell["source"] = new.splitlines(keepends=True)
            changed = True
    return nb, changed


def stale_lessons(times: dict, root: Path | str = REPO_ROOT, books: tuple[str, ...] = ("zh",)) -> list[str]:
    """Lessons of ``books`` ("zh", "en") whose run-time parenthesis is not the measured one (relative paths)."""
    root = Path(root)
    stale = []
    for book in books:
        for path in _lessons(root, book):
            rel = path.relative_to(root).as_posix()
            text = path.read_text(encoding="utf-8")
            wanted = run_time_text(times.get("seconds", {}).get(_measured_as(rel, book)), times, book)
            if any(found != wanted for found in CLAIMS[book].findall("".join(
                    "".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown"))):
                stale.append(rel)
    return stale


def sync_lessons(times: dict, root: Path | str = REPO_ROOT, books: tuple[str, ...] = ("zh",)) -> list[str]:
    """Rewrite the run-time parenthesis of every lesson of ``books`` from ``times``; returns the lessons changed."""
    root = Path(root)
    changed = []
    for book, path in ((b, p) for b in books for p in _lessons(root, b)):
        rel = path.relative_to(root).as_posix()
        nb, touched = _claimed(json.loads(path.read_text(encoding="utf-8")),
                               run_time_text(times.get("seconds", {}).get(_measured_as(rel, book)), times, book), book)
        if touched:
            path.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            changed.append(rel)
    return changed
