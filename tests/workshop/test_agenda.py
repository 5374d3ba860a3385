"""The agenda planner: whole lessons with labs and quizzes, prerequisites kept, the budget respected, leftovers said."""

import functools
import re

import nbformat

from npulab.__main__ import main
from npulab.core.paths import REPO_ROOT
from npulab.workshop import agenda, workshop_order
from npulab.workshop.agenda import Session, plan

NO_TIMES = {"seconds": {}}


@functools.cache
def _sessions() -> tuple:
    return tuple(agenda(times=NO_TIMES))


def test_agenda_plans_course_minutes_and_keeps_the_estimate_as_a_cross_check():
    plain = {s.path: s for s in list(_sessions())}
    lab = plain["notebooks/01_environment_lab.ipynb"]
    assert lab.run_s is None and lab.run_min == 1.0 and lab.run_label() == "未实测"
    from npulab.course.labs import lab01

    assert lab.exercise_min == 6 * len(lab01.make_lab().checks)  # six minutes per checked question
    assert lab.planned_min == lab.minutes == 35  # the metadata's number, as in the lab's header and the index
    timed = {s.path: s for s in agenda(times={"seconds": {"notebooks/solutions/01_environment_lab_solution.ipynb": 600}})}
    timed_lab = timed["notebooks/01_environment_lab.ipynb"]
    assert timed_lab.run_s == 600 and timed_lab.estimate_min >= lab.estimate_min + 5  # a lab is timed by its solution
    assert timed_lab.run_label() == "CPU 实测 600 s（不含 NPU 单元）"
    lesson = plain["chapters/01_environment/02_hello_npu.ipynb"]
    assert lesson.exercise_min == 15 and lesson.reading_min > 5  # three exercise items, real prose
    assert lesson.requires == ("chapters/01_environment/01_environment_setup.ipynb",)
    assert all(s.planned_min % 5 == 0 and s.planned_min >= 5 for s in plain.values())
    quizzes = [s for s in plain.values() if s.kind == "quiz"]
    assert [s.path for s in quizzes] == [f"notebooks/quizzes.ipynb#{c}" for c in ("01", "02", "03", "04", "05", "06")]
    assert "notebooks/instructor_guide.ipynb" not in plain


def test_every_prerequisite_is_a_course_notebook_that_comes_earlier():
    sessions = list(_sessions())
    paths = {s.path for s in sessions}
    order = [s.path for s in workshop_order(sessions)]
    for s in sessions:
        assert set(s.requires) <= paths, f"{s.path}: unknown prerequisite"
        assert all(order.index(r) < order.index(s.path) for r in s.requires), s.path


def test_lab_durations_have_one_source_index_notebook_and_agenda():
    index = (REPO_ROOT / "notebooks" / "index.md").read_text(encoding="utf-8")
    labs = [s for s in list(_sessions()) if s.kind == "lab"]
    assert len(labs) == 7
    for s in labs:
        name = s.path.split("/")[-1]
        row = next(line for line in index.splitlines() if f"]({name})" in line)
        assert f"| {s.minutes} 分钟 |" in row, f"labs index: {row}"
        header = next(c.source for c in nbformat.read(REPO_ROOT / s.path, as_version=4).cells
                      if c.cell_type == "markdown" and "分钟" in c.source)
        assert re.findall(r"\| (\d+) 分钟", header)[0] == str(s.minutes), f"{name} header"
        assert s.planned_min == s.minutes


def test_half_day_keeps_prerequisites_respects_the_budget_and_reports_what_does_not_fit():
    sessions = workshop_order(list(_sessions()), chapters=["01", "03"])
    paths = [s.path for s in sessions]
    assert paths.index("notebooks/01_environment_lab.ipynb") > paths.index("chapters/01_environment/03_troubleshooting_casebook.ipynb")
    assert paths.index("notebooks/quizzes.ipynb#01") < paths.index("chapters/03_pytorch_npu/01_cuda_to_npu_migration.ipynb")
    half = plan(sessions, 210, start="09:00")
    assert half.used_min <= 210 and half.rows[0][0] == "09:00" and "休息" in [r[1] for r in half.rows]
    planned = [r[3].path for r in half.rows if r[3]]
    # chapter 01's three lessons and its lab come first, in order; what follows did not fit, each with its reason
    assert planned == paths[:len(planned)] and len(planned) >= 4
    skipped = {s.path: why for s, why in half.skipped}
    assert "时间不够" in skipped["chapters/03_pytorch_npu/01_cuda_to_npu_migration.ipynb"]
    assert "先修" in skipped["chapters/03_pytorch_npu/02_resnet50_amp.ipynb"]  # never planned without its prerequisite
    assert set(skipped) == set(paths[len(planned):])
    assert "排不下" in half.text() and "CPU 实测" in half.text()
    # chapter 03 alone: its chapter-01 prerequisite is assumed known, and said so
    only3 = plan(workshop_order(list(_sessions()), chapters=["03"]), 1000)
    assert "chapters/01_environment/02_hello_npu.ipynb" in only3.assumed and not only3.skipped


def test_a_shorter_later_block_fits_but_not_one_whose_prerequisite_was_left_out():
    a, big, free = Session("a", "A", 30, False), Session("big", "Big", 500, False), Session("d", "D", 10, False)
    after_big = Session("c", "C", 10, False, requires=("big",))
    p = plan([a, big, after_big, free], 100)
    assert [r[1] for r in p.rows] == ["A", "D"] and [s.title for s, _ in p.skipped] == ["Big", "C"]
    assert "先修「Big」" in p.skipped[1][1]


def test_full_day_with_lunch_never_skips_a_prerequisite():
    full = plan(workshop_order(list(_sessions())), 420, lunch_after=180)
    assert "午休" in [r[1] for r in full.rows] and full.used_min <= 420
    done = set()
    for r in full.rows:
        if r[3]:
            assert set(r[3].requires) <= done, f"{r[3].path} planned before or without a prerequisite"
            done.add(r[3].path)
    assert plan(workshop_order(list(_sessions())), 10000).skipped == []


def test_agenda_command_line(capsys):
    # half a day cannot hold chapters 01 and 03: the plan is printed, and the exit code says something did not fit
    assert main(["workshop", "agenda", "--minutes", "210", "--chapters", "01,03", "--start", "09:00"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("09:00") and "排不下" in out and "第 01 章小测" in out
    assert main(["workshop", "agenda", "--chapters", "01"]) == 0 and "排不下" not in capsys.readouterr().out
    assert main(["workshop", "agenda", "--chapters", "09"]) == 2
    assert main(["workshop", "agenda", "--start", "9h"]) == 2
    assert main(["workshop", "agenda", "--minutes", "0"]) == 2
