"""Every table a cell displays reaches the page, every “上表 / 下图” (“the table above” in the English book) points at
one, and every printed verdict agrees with its numbers (review 2026-12c H2 and section 4, issue 35). Both books.

Statically, for every notebook: no call that returns a table is left where IPython drops its value (followed by
another statement, inside an ``if``, a loop or a function), and each reference in the Markdown has a table or figure
next to it. On executed notebooks (the Jupyter Book cache that ``make test``'s nbval run stages with
``--stage-book-cache``; ``make test`` runs these right after that step): each cell shows as many tables as its code
displays, each reference's table or figure is in the outputs, and each printed verdict agrees with its interval.
``npulab.course.rendered`` and ``npulab.course.verdict_audit`` do the reading.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from npulab.core import display, provenance
from npulab.core.notebook_cells import iter_notebooks
from npulab.core.paths import REPO_ROOT
from npulab.course import rendered

CACHE = REPO_ROOT / "_build" / ".jupyter_cache"
EN_CACHE = REPO_ROOT / "_build" / "en" / "_build" / ".jupyter_cache"  # the English book's (conftest.book_cache)
ENGLISH = REPO_ROOT / "en"
NOTEBOOKS = sorted({*iter_notebooks(), *iter_notebooks([ENGLISH])})  # both books: "the table above" is checked too


def _rel(path: Path) -> str:
    return str(path.relative_to(REPO_ROOT))


def test_show_displays_its_table_where_it_is_called(monkeypatch):
    shown = []

    import IPython
    import IPython.display

    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", shown.append)
    figures = [provenance.measured("吞吐", 12.5, "GFLOP/s", "cpu")]
    assert provenance.show(figures, "标题") is None  # nothing returned: the table cannot render a second time
    assert len(shown) == 1 and isinstance(shown[0], provenance.FigureTable) and shown[0].title == "标题"


def test_show_prints_the_table_outside_a_notebook(capsys):
    provenance.show([provenance.measured("吞吐", 12.5, "GFLOP/s", "cpu")], "标题")
    assert "12.5 GFLOP/s" in capsys.readouterr().out


IMPORTS = {"chips": "npulab.hw.chips", "provenance": "npulab.core.provenance", "Table": "npulab.core.display.Table",
           "display": "IPython.display.display", "HTML": "IPython.display.HTML", "watch": "watch"}


@pytest.mark.parametrize("source", [
    "chips.comparison_table(rows)\nwatch.footer()",  # the H2 trap: a footer after the table
    "if ok:\n    Table(['a'], [[1]])",  # inside a branch
    "for x in xs:\n    HTML('<b>x</b>')",
    "Table(['a'], [[1]]);",  # a semicolon hides the cell's value
    "result.compare_table()\nprint('done')",  # a method of a course object that returns a table
])
def test_a_dropped_table_is_found(source):
    assert rendered.dropped(source, IMPORTS)


@pytest.mark.parametrize("source", [
    "chips.comparison_table(rows)",
    "display(chips.comparison_table(rows))\nwatch.footer()",
    "provenance.show(rows)\nwatch.footer()",  # show displays itself
    "if ok:\n    provenance.show(rows)",
    "t = Table(['a'], [[1]])\nprint(t.text())",
    "%%npu\nTable(['a'], [[1]])\nx = 1",  # an NPU cell magic: not Python to read
])
def test_a_shown_table_is_not_flagged(source):
    assert not rendered.dropped(source, IMPORTS)


def test_the_package_index_knows_the_course_tables():
    index = rendered.package_index()
    assert {"npulab.hw.chips.comparison_table", "npulab.core.display.Table", "npulab.core.provenance.FigureTable"} \
        <= index.functions
    assert "npulab.core.provenance.show" not in index.functions  # it returns None now
    assert {"npulab.core.provenance.show", "npulab.env.stacks.show"} <= index.showing


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_rel)
def test_no_cell_drops_a_table(path):
    nb = nbformat.read(path, as_version=4)
    imports = rendered.imports_of([c.source for c in nb.cells if c.cell_type == "code"])
    dropped = {i: found for i, c in enumerate(nb.cells) if c.cell_type == "code"
               if (found := rendered.dropped(c.source, imports))}
    assert not dropped, f"{_rel(path)}：这些调用返回的表不会显示（不是单元的最后一个表达式）：{dropped}"


def _nb(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


def test_a_reference_needs_the_table_next_to_it():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    imports = "from npulab.core import provenance\n"
    good = _nb(md("下表是实测："), code(imports + "provenance.show(rows)\nwatch.footer()"), md("上表说明了……"))
    assert not rendered.unrendered(good)
    printed = _nb(md("下表列出参数："), code("for r in rows:\n    print(r)"), code(imports + "provenance.show(rows)"))
    assert rendered.unrendered(printed)  # the next cell with output prints lines, not the table
    markdown = _nb(md("| a | b |\n|---|---|\n| 1 | 2 |\n\n上表来自文档。"))
    assert not rendered.unrendered(markdown)
    other_section = _nb(code(imports + "provenance.show(rows)"), md("## 2. 下一节\n\n上表……"))
    assert not rendered.unrendered(other_section)  # its own heading does not hide the table just above
    far = _nb(code(imports + "provenance.show(rows)"), md("## 2. 下一节"), md("上表……"))
    assert rendered.unrendered(far)
    figure = _nb(md("下图画出利用率："), code("fig, ax = plt.subplots()\nax.plot(x, y)"))
    assert not rendered.unrendered(figure)
    assert rendered.unrendered(_nb(md("下图画出利用率："), code("print(x)")))


def test_english_pointers_are_read_like_the_chinese_ones():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    imports = "from npulab.core import provenance\n"
    assert not rendered.unrendered(_nb(md("The table below is measured:"), code(imports + "provenance.show(rows)")))
    assert rendered.unrendered(_nb(md("The following figure shows it:"), code("print(x)")))
    assert not rendered.unrendered(_nb(code(imports + "provenance.show(rows)"), md("As the table above shows, …")))
    assert [r.kind for r in rendered.references(_nb(md("the plot above and the preceding table")))] == \
        [rendered.FIGURE, rendered.TABLE]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_rel)
def test_every_reference_to_a_table_or_figure_has_one_nearby(path):
    problems = rendered.unrendered(nbformat.read(path, as_version=4))
    assert not problems, f"{_rel(path)}：\n" + "\n".join(problems)


def test_executed_outputs_are_read_for_tables_and_figures():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    table = display.Table(["a"], [[1]])
    cell = code("from npulab.core import provenance\nprovenance.show(rows)\nwatch.footer()")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="测量环境：…")]
    nb = _nb(cell, md("上表是你这台机器的实测。"))
    problems = rendered.executed_problems(nb)
    assert any("1 张表" in p for p in problems) and any("上表" in p for p in problems)  # the H2 page, caught
    cell.outputs.insert(0, nbformat.v4.new_output("display_data", data={"text/html": table._repr_html_(),
                                                                         "text/plain": table.text()}))
    assert not rendered.executed_problems(nb)
    markdown = nbformat.v4.new_output("display_data", data={"text/markdown": table.markdown()})
    assert rendered.rendered_kinds({"outputs": [markdown]}) == {rendered.TABLE, rendered.OTHER}


def _executed():
    """(notebook, executed copy) for each notebook its book's cache holds with the current code."""
    from jupyter_cache import get_cache

    caches, found = {c: get_cache(str(c)) for c in (CACHE, EN_CACHE) if c.is_dir()}, []
    for path in NOTEBOOKS:
        cache = caches.get(EN_CACHE if path.is_relative_to(ENGLISH) else CACHE)
        if cache is None:
            continue
        try:
            _, merged = cache.merge_match_into_notebook(nbformat.read(path, as_version=4))
        except KeyError:  # not executed with this code
            continue
        found.append(pytest.param(merged, id=_rel(path)))
    return found


@pytest.mark.parametrize("executed", _executed() or [pytest.param(None, id="no-cache")])
def test_executed_pages_show_their_tables(executed):
    if executed is None:
        pytest.skip("还没有执行过的笔记本：make test（nbval --stage-book-cache）先填充 _build/.jupyter_cache")
    problems = rendered.executed_problems(executed)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("executed", _executed() or [pytest.param(None, id="no-cache")])
def test_executed_verdicts_agree_with_their_numbers(executed):
    """Every verdict an executed page printed says what its interval allows (``npulab.course.verdict_audit``)."""
    if executed is None:
        pytest.skip("还没有执行过的笔记本：make test（nbval --stage-book-cache）先填充 _build/.jupyter_cache")
    from npulab.course import verdict_audit

    problems = verdict_audit.audit(executed)
    assert not problems, "\n".join(problems)


def test_only_tables_count_as_tables():
    imports = {**IMPORTS, "Code": "IPython.display.Code", "Markdown": "IPython.display.Markdown",
               "records": "npulab.core.display.records"}
    assert rendered.expected_tables('Code(filename="x.py")', imports) == 0  # rich output, but not a table
    assert rendered.dropped('Code(filename="x.py")\nprint(1)', imports)  # still dropped when not shown
    assert rendered.expected_tables("Markdown(records(rows).markdown())", imports) == 1
    assert rendered.expected_tables("provenance.show(a)\nprovenance.show(b)\nwatch.footer()", imports) == 2
    assert rendered.expected_tables("if ok:\n    provenance.show(a)", imports) == 0  # a branch may not run
