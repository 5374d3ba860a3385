"""The lesson skeleton (DESIGN.md), metadata, tag vocabulary, output hygiene and NPU-cell rules."""

import re
from pathlib import Path

import pytest
import yaml

from npulab.core.notebook_cells import KNOWN_TAGS, NPU_TAG, SKIP_TAG, is_npu_cell, iter_notebooks, read, tags
from npulab.core.paths import REPO_ROOT
from npulab.course.record import RECORD_KEY
from npulab.lint.notebook import check_leaves

NOTEBOOKS = list(iter_notebooks())
LESSONS = [p for p in NOTEBOOKS if p.parts[-3] == "chapters"]
SOLUTIONS = [p for p in NOTEBOOKS if p.parent.name == "solutions"]
STAMP_KEYS = {"device", "driver", "cann", "torch", "torch_npu", "date"}


def ids(paths):
    return [str(p.relative_to(REPO_ROOT)) for p in paths]


def markdown(nb) -> str:
    return "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def headings(nb, level) -> list[str]:
    return re.findall(rf"^{'#' * level} (.+)$", markdown(nb), flags=re.M)


def test_every_chapter_has_lessons_and_every_lab_its_exercise_and_checker():
    from npulab.core.paths import PACKAGE_DIR

    for chapter in sorted((REPO_ROOT / "chapters").iterdir()):
        if chapter.is_dir():
            assert len(list(chapter.glob("*.ipynb"))) >= 2, f"{chapter.name}: fewer than two lessons"
    assert SOLUTIONS
    for solution in SOLUTIONS:
        name = Path(solution).name.removesuffix("_solution.ipynb")
        assert (REPO_ROOT / "notebooks" / f"{name}.ipynb").is_file(), f"{name}: exercise missing"
        number = name.split("_")[0]
        assert (PACKAGE_DIR / "course" / "labs" / f"lab{number}.py").is_file(), f"{name}: checks missing"


@pytest.mark.parametrize("path", LESSONS, ids=ids(LESSONS))
def test_lesson_follows_the_skeleton(path):
    nb = read(path)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    assert len(headings(nb, 1)) == 1, "exactly one H1 title"
    h2 = headings(nb, 2)
    required = ["本节目标", "环境检查", "练习", "小结", "下一步", "参考资料"]
    positions = [next((i for i, h in enumerate(h2) if h.startswith(r)), None) for r in required]
    assert None not in positions, f"missing sections: {[r for r, p in zip(required, positions, strict=True) if p is None]}"
    assert positions == sorted(positions), "sections out of order"
    text = markdown(nb)
    for column in ("预备知识", "预计用时", "硬件要求"):
        assert f"| {column}" in text or f"|{column}" in text, column
    assert ":class: dropdown" in text, "exercise solutions are folded"
    first_code = next(c for c in nb.cells if c.cell_type == "code")
    assert "environment_summary.summary(" in first_code.source, "the first code cell prints the environment"


@pytest.mark.parametrize("path", SOLUTIONS, ids=ids(SOLUTIONS))
def test_lab_solution_has_checks_and_report(path):
    nb = read(path)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "environment_summary.summary(" in code and "lab.report()" in code
    assert code.count("# BEGIN SOLUTION") >= 1 and "（参考答案）" in nb.cells[0].source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_metadata_and_tags(path):
    nb = read(path)
    course = nb.metadata.get("course", {})
    assert isinstance(course.get("minutes"), int) and course["minutes"] > 0
    assert isinstance(course.get("requires"), list)
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3"
    for cell in nb.cells:
        unknown = set(tags(cell)) - KNOWN_TAGS
        assert not unknown, f"unknown tags {unknown} (add them to conftest.py and npulab.core.notebook_cells.KNOWN_TAGS)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_no_outputs_except_recorded_npu_outputs(path):
    nb = read(path)
    stamp = nb.metadata.get("course", {}).get(RECORD_KEY)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not (cell.outputs or cell.execution_count):
            continue
        assert is_npu_cell(cell) and cell.metadata.get(RECORD_KEY), f"cell {i}: outputs are committed only for recorded npu cells"
        assert stamp and STAMP_KEYS <= set(stamp), "recorded outputs need the device/driver/CANN/torch_npu/date stamp"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_npu_cells_are_gated_tagged_leaves(path):
    nb = read(path)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and (NPU_TAG in tags(cell) or cell.source.startswith("%%npu")):
            assert {NPU_TAG, SKIP_TAG} <= set(tags(cell)), f"cell {i}: npu cells carry both tags"
            assert cell.source.startswith("%%npu"), f"cell {i}: npu cells start with %%npu (Run All must not crash)"
    assert check_leaves(nb) == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_mindspore_logs_are_silenced_before_import(path):
    nb = read(path)
    seen_glog = False
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        seen_glog = seen_glog or "GLOG_v" in cell.source
        if re.search(r"^\s*(import mindspore|from mindspore)", cell.source, flags=re.M) and not is_npu_cell(cell):
            assert seen_glog, "set os.environ['GLOG_v'] = '4' before importing mindspore"


def _toc_files(entries):
    for entry in entries:
        if "file" in entry:
            yield entry["file"]
        yield from _toc_files(entry.get("sections", []) + entry.get("chapters", []))


def test_toc_lists_every_notebook_and_six_chapters_in_order():
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = list(_toc_files(toc["parts"]))
    for f in files:
        assert any((REPO_ROOT / f).with_suffix(s).exists() for s in (".md", ".ipynb")), f
    listed = {str(Path(f).with_suffix(".ipynb")) for f in files}
    assert set(ids(NOTEBOOKS)) <= listed, "every notebook appears in _toc.yml"
    chapters = [f.split("/")[1] for f in files if f.startswith("chapters/") and f.endswith("/index")]
    assert chapters == ["01_environment", "02_ascend_architecture", "03_pytorch_npu", "04_mindspore", "05_tools", "06_advanced"]


def test_the_ignore_list_is_the_same_everywhere():
    """pytest.ini and _config.yml cannot import npulab; they must still skip the folders npulab skips."""
    from npulab.core.notebook_cells import IGNORED_DIRS

    norecurse = (REPO_ROOT / "pytest.ini").read_text(encoding="utf-8")
    book = yaml.safe_load((REPO_ROOT / "_config.yml").read_text(encoding="utf-8"))["exclude_patterns"]
    for name in IGNORED_DIRS:
        assert name in norecurse or name.startswith("."), f"pytest.ini norecursedirs lacks {name}"
        assert any(name in pattern for pattern in book), f"_config.yml exclude_patterns lacks {name}"
