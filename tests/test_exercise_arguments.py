"""An exercise that says "在 4.2 节把 `warmup` 改为 0" must name something the learner can find there.

For every numbered exercise of a lesson that tells the learner to change a name (把 `name` 改为/改成 …), each such
name must occur in the code cells of the section the exercise refers to ("4.2 节", "第 2 节") — as a keyword argument,
a variable, a parameter or an attribute — or, when it names no section before the 把, somewhere in the lesson's code. Hello NPU's
exercise 1 once told the learner to change a ``warmup`` argument its cell did not pass.
"""

from __future__ import annotations

import ast
import re
import warnings

import nbformat
import pytest

from npulab.core.notebook_cells import cell_source
from npulab.core.paths import REPO_ROOT
from npulab.course.exercises import exercise_section

LESSONS = sorted((REPO_ROOT / "chapters").rglob("*.ipynb"))
CHANGE = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`\s*改[为成]")  # in an exercise that says 把 (change …)
SECTION = re.compile(r"(?:第\s*)?(\d+(?:\.\d+)?)\s*节[^，。；`]{0,12}把")  # "在 4.2 节把 …": the section is where
HEADING = re.compile(r"^(#{2,4})\s+(\S+)")


def _identifiers(source: str) -> set[str]:
    """Names a code cell binds, passes as keywords, reads or reaches as attributes (magics and ! lines dropped)."""
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.keyword) and node.arg:
            found.add(node.arg)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
    return found


def section_code(nb, number: str) -> list[str] | None:
    """Sources of the code cells under the heading "N.M …" or "N. …" (until a heading of the same or a higher
    level); None when the lesson has no such heading."""
    wanted = (f"{number}", f"{number}.")
    level, out = None, []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell_source(cell).splitlines():
                m = HEADING.match(line)
                if not m:
                    continue
                if m.group(2) in wanted:
                    level, out = len(m.group(1)), []
                elif level is not None and len(m.group(1)) <= level:
                    return out
        elif cell.cell_type == "code" and level is not None:
            out.append(cell_source(cell))
    return out if level is not None else None


def named_changes(nb) -> list[tuple[str, str | None, str]]:
    """(name, section or None, exercise text) for every "把 `name` 改为" in the lesson's exercises."""
    section = exercise_section(nb)
    if section is None:
        return []
    found = []
    for item in re.split(r"\n(?=\d+\.\s)", section.exercises):
        refs = SECTION.findall(item)
        for name in CHANGE.findall(item) if "把" in item else []:
            found.append((name, refs[0] if refs else None, item.strip()))
    return found


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.relative_to(REPO_ROOT).as_posix())
def test_every_name_an_exercise_changes_is_in_the_cells_it_points_to(path):
    nb = nbformat.read(path, as_version=4)
    for name, number, text in named_changes(nb):
        if number is None:  # no section named: the name must occur in the lesson's code or in a .py file it names
            files = [f for py in re.findall(r"`([\w./-]+\.py)`", text) for f in path.parent.rglob(py.split("/")[-1])]
            sources = [cell_source(c) for c in nb.cells if c.cell_type == "code"] + [f.read_text() for f in files]
            assert any(name in source for source in sources), f"练习要求改 `{name}`：{text}"
            continue
        cells = section_code(nb, number)
        assert cells is not None, f"练习指向的 {number} 节不存在：{text}"
        names = set().union(*(_identifiers(source) for source in cells)) if cells else set()
        assert name in names, f"练习要求在 {number} 节改 `{name}`，那一节的代码没有它：{text}"


def test_hello_npu_exercise_1_names_the_arguments_of_its_cell():
    nb = nbformat.read(REPO_ROOT / "chapters" / "01_environment" / "02_hello_npu.ipynb", as_version=4)
    changes = {(name, number) for name, number, _ in named_changes(nb)}
    assert {("repeats", "4.2"), ("warmup", "4.2")} <= changes
    assert any("warmup=" in source for source in section_code(nb, "4.2"))
