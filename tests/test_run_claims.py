"""Every lesson's 预计用时 states the measured CPU run time (notebook_times.yaml), in JupyterLab as on the site."""

import json

from npulab.course.run_claims import run_time_text, stale_lessons, sync_lessons
from npulab.workshop import load_times


def test_every_lesson_states_the_measured_run_time():
    stale = stale_lessons(load_times())
    assert not stale, f"运行 python -m npulab workshop times（在 make test 之后）更新这些课的实测运行时间：{stale}"


def test_sync_rewrites_a_typed_claim_and_only_that(tmp_path):
    lesson = tmp_path / "chapters" / "a.ipynb"
    lesson.parent.mkdir()
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["| 预计用时 |\n", "| 40 分钟（CPU 上运行全部单元约 1 分钟） |"]},
             {"cell_type": "code", "metadata": {}, "source": ["print('（CPU 上运行全部单元约 1 分钟）')"], "outputs": [],
              "execution_count": None}]
    lesson.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    times = {"machine": "AMD EPYC，2 核", "date": "2026-12-02", "seconds": {"chapters/a.ipynb": 47.8}}
    assert stale_lessons(times, tmp_path) == ["chapters/a.ipynb"]
    assert sync_lessons(times, tmp_path) == ["chapters/a.ipynb"]
    nb = json.loads(lesson.read_text(encoding="utf-8"))
    assert "".join(nb["cells"][0]["source"]).endswith("40 分钟（CPU 上运行全部单元实测 48 s，AMD EPYC，2 核，2026-12-02） |")
    assert nb["cells"][1]["source"] == ["print('（CPU 上运行全部单元约 1 分钟）')"], "code stays as written"
    assert stale_lessons(times, tmp_path) == [] and sync_lessons(times, tmp_path) == []
    assert run_time_text(None, times) == "（CPU 上运行全部单元：尚未实测）"
