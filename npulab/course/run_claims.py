"""A lesson's CPU run time as its 预计用时 states it: the measured time, in the same words in JupyterLab and on the site.

Lessons used to type "（CPU 上运行全部单元约 1 分钟）" by hand, and the claim drifted from what the lesson measured.
``python -m npulab workshop times`` writes ``npulab/data/notebook_times.yaml`` from a ``make test`` run and then
``sync_lessons`` rewrites each lesson's parenthesis from it (``run_time_text``); the site renders the same text
(``sphinx_extension.fill_run_time``), and ``stale_lessons`` (a test) fails when a lesson says anything else.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from npulab.core.paths import REPO_ROOT

RUN_CLAIM = re.compile(r"（CPU 上运行全部单元[^）]*）")


def run_time_text(seconds: float | None, times: dict) -> str:
    """The parenthesis a lesson's 预计用时 shows for its CPU run: measured seconds, machine and date."""
    if seconds is None:
        return "（CPU 上运行全部单元：尚未实测）"
    shown = f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    where = "，".join(str(times[k]) for k in ("machine", "date") if times.get(k))
    return f"（CPU 上运行全部单元实测 {shown}{'，' + where if where else ''}）"


def _lessons(root: Path) -> list[Path]:
    return sorted(p for folder in ("chapters", "notebooks") for p in (root / folder).rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts)


def _claimed(nb: dict, wanted: str) -> tuple[dict, bool]:
    changed = False
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        new = RUN_CLAIM.sub(wanted, text)
        if new != text:
            cell["source"] = new.splitlines(keepends=True)
            changed = True
    return nb, changed


def stale_lessons(times: dict, root: Path | str = REPO_ROOT) -> list[str]:
    """Lessons whose run-time parenthesis is not the measured one (relative paths)."""
    root = Path(root)
    stale = []
    for path in _lessons(root):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        wanted = run_time_text(times.get("seconds", {}).get(rel), times)
        if any(found != wanted for found in RUN_CLAIM.findall("".join(
                "".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown"))):
            stale.append(rel)
    return stale


def sync_lessons(times: dict, root: Path | str = REPO_ROOT) -> list[str]:
    """Rewrite every lesson's run-time parenthesis from ``times``; returns the lessons changed."""
    root = Path(root)
    changed = []
    for path in _lessons(root):
        rel = path.relative_to(root).as_posix()
        nb, touched = _claimed(json.loads(path.read_text(encoding="utf-8")),
                               run_time_text(times.get("seconds", {}).get(rel), times))
        if touched:
            path.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
            changed.append(rel)
    return changed
