"""Slow (minutes, not in `make test`): execute the measuring lessons under artificial CPU load, audit every verdict.

`make test-verdicts` runs this module twice: with ``NPULAB_VERDICT_LOAD=2`` (two busy processes spinning on the
CPU for the whole run) and with ``NPULAB_VERDICT_LOAD=0`` (quiet). Each lesson whose metadata says
``course.measures: true`` is executed alone, top to bottom (NPU-only cells left out, as nbval does without an NPU),
and every verdict it printed is checked against the numbers it carries (``npulab.course.verdict_audit``). The
verdicts and footers of each run are written to ``_build/verdicts/<load>/`` for the integrator's report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from npulab.core.notebook_cells import NPU_TAG, tags
from npulab.course import verdict_audit
from npulab.course.measuring import measuring_lessons

ROOT = Path(__file__).resolve().parents[2]
LOAD = os.environ.get("NPULAB_VERDICT_LOAD")
pytestmark = pytest.mark.skipif(LOAD is None, reason="慢测试：用 make test-verdicts 运行（NPULAB_VERDICT_LOAD=进程数）")
BUSY = "while True:\n    pass\n"


@pytest.fixture(scope="module")
def cpu_load():
    """``NPULAB_VERDICT_LOAD`` busy processes for the module's lifetime, ended by their own pids."""
    procs = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(int(LOAD or 0))]
    try:
        yield len(procs)
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def _execute(path: Path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb.cells = [c for c in nb.cells if not (c.cell_type == "code" and NPU_TAG in tags(c))]
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb


@pytest.mark.parametrize("lesson", measuring_lessons(ROOT), ids=lambda p: p)
def test_every_printed_verdict_agrees_with_its_numbers(lesson, cpu_load):
    start = time.monotonic()
    nb = _execute(ROOT / lesson)
    seconds = time.monotonic() - start
    verdicts = verdict_audit.printed(nb)
    footers = verdict_audit.printed(nb, verdict_audit.FOOTER_KEY)
    out = ROOT / "_build" / "verdicts" / f"load{cpu_load}"
    out.mkdir(parents=True, exist_ok=True)
    (out / (lesson.replace("/", "__") + ".json")).write_text(json.dumps(
        {"lesson": lesson, "busy_processes": cpu_load, "seconds": round(seconds, 1),
         "verdicts": [p.record for p in verdicts], "footers": [p.record for p in footers]},
        ensure_ascii=False, indent=1), encoding="utf-8")
    assert verdicts, f"{lesson} 标为测量课（course.measures），却没有打印任何判定"
    assert not verdict_audit.audit(nb), verdict_audit.audit(nb)
