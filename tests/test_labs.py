import nbformat
import pytest

from npulab.core.paths import REPO_ROOT
from npulab.course.labs import Lab, LabCheckFailed, export, lab01


def test_unanswered_is_reported_not_failed(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LAB_STRICT", "1")
    lab = lab01.make_lab()
    assert lab.check("visible", ...) is False
    assert "尚未作答" in capsys.readouterr().out
    assert lab.report() == {"correct": 0, "wrong": 0, "unanswered": 7}  # Q1b (issue 11) and Q5-6 (explain, issue 12)


def test_wrong_answer_gives_hint_and_raises_only_in_strict_mode(monkeypatch, capsys):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    lab = lab01.make_lab()
    assert lab.check("visible", 1) is False
    out = capsys.readouterr().out
    assert "索引" in out and "6" not in out and "物理" not in out  # a hint, not the answer
    monkeypatch.setenv("NPULAB_LAB_STRICT", "1")
    with pytest.raises(LabCheckFailed):
        lab.check("visible", 4)


def test_correct_answers():
    lab = lab01.make_lab()
    assert lab.check("visible", 6)
    assert lab.check("visible_space", 1)
    assert lab.check("tflops", 2 * 4096**3 / 2.13e-3 / 1e12)
    assert lab.report()["correct"] == 3


@pytest.mark.parametrize("answer, hint", [(2, "英文逗号"), (0, "空格之前"), (3, "两个"), ("1", "整数")])
def test_visible_space_hints(monkeypatch, capsys, answer, hint):
    """Lab 01 (b): "4, 6" shows ONE device, because CANN stops reading at the space (envref_07_0028)."""
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    assert lab01.make_lab().check("visible_space", answer) is False
    assert hint in capsys.readouterr().out


def test_visible_space_answer_agrees_with_the_parser():
    from npulab.env.visible_devices import parse_visible

    assert parse_visible("4, 6", 8).ids == [4]
    assert lab01.make_lab().check("visible_space", len(parse_visible("4, 6", 8).ids))


@pytest.mark.parametrize("answer,hint", [(32.26, "因子 2"), (64_500, "数量级")])
def test_tflops_hints(monkeypatch, capsys, answer, hint):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    lab01.make_lab().check("tflops", answer)
    assert hint in capsys.readouterr().out


def _timer(sync_before_clock=True, warm=True, stat="median"):
    import statistics

    def median_time(fn, sync, repeats=5, clock=None):
        if warm:
            fn()
            sync()
        times = []
        for _ in range(repeats):
            start = clock()
            fn()
            if sync_before_clock:
                sync()
            times.append(clock() - start)
        return getattr(statistics, stat)(times)

    return median_time


@pytest.mark.parametrize(
    "kwargs,ok,hint",
    [
        ({}, True, "四步"),
        ({"sync_before_clock": False}, False, "等待设备"),
        ({"stat": "mean"}, False, "平均值"),
        ({"warm": False}, False, "6 次"),
    ],
)
def test_timer_check_diagnoses_common_mistakes(monkeypatch, capsys, kwargs, ok, hint):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    assert lab01.make_lab().check("timer", _timer(**kwargs)) is ok
    assert hint in capsys.readouterr().out


def test_learner_exception_becomes_feedback(monkeypatch, capsys):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    Lab("t", {"q": lambda a: (1 / 0, "")}).check("q", 1)
    assert "ZeroDivisionError" in capsys.readouterr().out


def test_strip_solution_keeps_stubs_with_indentation():
    src = "def f():\n    # BEGIN SOLUTION\n    # STUB: return ...\n    return 42\n    # END SOLUTION\nprint(f())"
    assert export.strip_solution(src) == "def f():\n    return ...\nprint(f())"
    with pytest.raises(ValueError):
        export.strip_solution("# BEGIN SOLUTION\nx = 1")


def test_exercise_drops_solution_cells_and_title_mark():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# 实验（参考答案）"),
        nbformat.v4.new_markdown_cell("只在答案里", metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell("# BEGIN SOLUTION\n# STUB: x = ...\nx = 1\n# END SOLUTION"),
    ])
    ex = export.exercise_from_solution(nb)
    assert [c.source for c in ex.cells] == ["# 实验", "x = ..."]
    assert ex.metadata["course"]["role"] == "exercise"


def test_committed_exercises_are_in_sync_with_solutions():
    assert export.export_all(check_only=True) == []


# ---- issue 30: a lab's goals name exactly its questions -----------------------------------------------------

def _goals_and_questions(path):
    import re

    from npulab.core.notebook_cells import read

    markdown = [c.source for c in read(path).cells if c.cell_type == "markdown"]
    goals = next(s for s in markdown if s.startswith("## 目标"))
    items = re.findall(r"^\d+\. .*$", goals, re.M)
    covered = [[int(n) for n in re.findall(r"\d+", m)] for item in items
               for m in re.findall(r"（第 ([\d、 ]+) 题）", item)]
    questions = [int(m.group(1)) for s in markdown for m in [re.match(r"## 第 (\d+) 题", s)] if m]
    return items, covered, questions


@pytest.mark.parametrize("path", sorted((REPO_ROOT / "notebooks").glob("*_lab.ipynb"))
                         + sorted((REPO_ROOT / "notebooks" / "solutions").glob("*_lab_solution.ipynb")),
                         ids=lambda p: p.name)
def test_goals_cover_every_question_once(path):
    items, covered, questions = _goals_and_questions(path)
    assert questions == list(range(1, len(questions) + 1)), f"{path.name}：题号应从 1 连续编号"
    assert len(covered) == len(items), f"{path.name}：每个目标都要注明它对应的题（“（第 N 题）”）"
    assert sorted(q for qs in covered for q in qs) == questions, (
        f"{path.name}：目标对应的题 {covered} 与实际的 {len(questions)} 道题不一致")
