"""npulab.course.exercises: the 练习 section's answer code runs and every call it writes exists."""

import pytest

from npulab.core.notebook_cells import iter_notebooks, read
from npulab.course import exercises

LESSON = {"cells": [
    {"cell_type": "markdown", "source": "## 3. 实验\n正文 `not_checked(1)` 不在练习里"},
    {"cell_type": "markdown", "source": (
        "## 练习\n\n1. 运行 `helper.compare(a, b)`，再试 `time.sleep(0)`（先 `import time`）。\n"
        "2. 用 `g(v)` 表示 GELU；写一个 `f = lambda x: x.conjugate()`。\n\n"
        ":::{admonition} 参考答案\n:class: dropdown\n\n1. 相同。\n\n"
        "   ```python\n   result = helper.compare(1, 2)\n   print(result)\n   ```\n\n"
        "   ```text\n   helper.gone()\n   ```\n:::\n\n## 小结\n\n- `summary_only(1)`\n")},
]}


class Helper:
    @staticmethod
    def compare(a, b):
        return a < b


def test_section_is_split_into_exercises_answers_and_python_fences():
    section = exercises.exercise_section(LESSON)
    assert "helper.compare(a, b)" in section.exercises and "参考答案" not in section.exercises
    assert section.answer_code == ["result = helper.compare(1, 2)\nprint(result)\n"]
    assert "summary_only" not in section.exercises + section.answers and "not_checked" not in section.exercises
    assert section.imports() == ["time"]
    # text fences are not Python; lambda arguments and one-letter formula functions are not the lesson's names
    assert section.calls() == ["helper.compare", "time.sleep", "g", "print"]
    assert "helper.gone" not in section.calls()


def test_the_program_runs_the_answers_and_passes_when_every_name_exists(capsys):
    namespace = {"helper": Helper}
    exec(exercises.check_program(exercises.exercise_section(LESSON)), namespace)
    out = capsys.readouterr().out
    assert "True" in out and "1 段参考答案代码已运行" in out and namespace["result"] is True


def test_a_renamed_helper_fails_with_the_name_in_chinese():
    class Renamed:
        @staticmethod
        def compare_orders(a, b):
            return True

    with pytest.raises(NameError, match="`helper.compare`：`helper` 没有属性 `compare`"):
        exec(exercises.check_program(exercises.exercise_section(LESSON)), {"helper": Renamed})
    with pytest.raises(NameError, match="本节的内核里没有 `helper`"):
        exec(exercises.check_program(exercises.ExerciseSection(exercises.exercise_section(LESSON).exercises, "")),
             {})


def test_unresolved_roots_builtins_and_told_imports():
    assert exercises.unresolved(["len", "os.path.join"], {}, ["os"]) == []
    assert exercises.unresolved(["os.path.join"], {}) == ["`os.path.join`：本节的内核里没有 `os`（没有定义、没有导入）"]
    assert "导入不了" in exercises.unresolved(["nosuchmodule_xyz.f"], {}, ["nosuchmodule_xyz"])[0]


def test_no_section_and_answers_without_code():
    assert exercises.exercise_section({"cells": [{"cell_type": "markdown", "source": "# 标题"}]}) is None
    assert exercises.called_names("npu-smi info -l") == [] and exercises.called_names("x = 1 +") == []


def test_every_lesson_has_exercises_with_folded_answers_whose_code_parses():
    import ast

    lessons = [p for p in iter_notebooks() if p.parts[-3] == "chapters"]
    assert len(lessons) >= 19
    for path in lessons:
        section = exercises.exercise_section(read(path))
        assert section is not None and section.answers.strip(), f"{path.name}：没有「## 练习」或折叠的参考答案"
        for code in section.answer_code:
            ast.parse(code)  # a fence that does not parse would fail in the kernel with a less clear message
