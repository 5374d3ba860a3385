"""Exercises and answers for workshops: navigation, the public build, quiet check cells, MyST in JupyterLab."""

import ast
import importlib.metadata
import json
import sys
from pathlib import Path

import yaml

from npulab.core.notebook_cells import iter_notebooks, read
from npulab.core.paths import REPO_ROOT
from npulab.workshop import SOLUTIONS_PREFIX, public_toc


def _flat(entries):
    for entry in entries:
        if "file" in entry:
            yield entry["file"]
        yield from _flat(entry.get("chapters", []) + entry.get("sections", []))


def _toc():
    return yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))


def test_no_exercise_page_leads_straight_to_its_solution():
    order = list(_flat(_toc()["parts"]))
    exercises = [f for f in order if f.startswith("notebooks/") and f.endswith("_lab")]
    assert len(exercises) == len(list((REPO_ROOT / "notebooks" / "solutions").glob("*_solution.ipynb")))
    for exercise in exercises:
        i = order.index(exercise)
        neighbours = order[max(i - 1, 0):i + 2]
        assert not any(n.startswith(SOLUTIONS_PREFIX) for n in neighbours), f"{exercise} is next to a solution"
    solutions = [i for i, f in enumerate(order) if f.startswith(SOLUTIONS_PREFIX)]
    assert solutions and min(solutions) > max(order.index(e) for e in exercises) + 1


def test_public_toc_drops_the_solutions_and_nothing_else():
    toc = _toc()
    full, public = list(_flat(toc["parts"])), list(_flat(public_toc(toc)["parts"]))
    assert public == [f for f in full if not f.startswith(SOLUTIONS_PREFIX)]
    assert not any("solution" in f for f in public)
    assert public_toc(toc)["root"] == toc["root"]


def _displayed_value(source: str) -> str | None:
    """The expression whose value Jupyter would display after the cell, if any (print/display calls excepted)."""
    if source.startswith("%%") or source.rstrip().endswith(";"):
        return None
    tree = ast.parse(source)
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return None
    value = tree.body[-1].value
    if isinstance(value, ast.Call) and ast.unparse(value.func) in ("print", "display"):
        return None
    return ast.unparse(value)


def test_lab_cells_print_only_their_feedback():
    labs = [p for p in iter_notebooks([REPO_ROOT / "notebooks"]) if p.stem.endswith(("_lab", "_lab_solution"))]
    assert len(labs) >= 12
    for path in labs:
        for i, cell in enumerate(read(path).cells):
            if cell.cell_type == "code":
                shown = _displayed_value(cell.source)
                assert shown is None, f"{path.name} cell {i}: `{shown}` would show True/False/dict after the feedback"


def test_jupyterlab_myst_is_installed_and_enabled():
    assert importlib.metadata.version("jupyterlab_myst")
    ext = Path(sys.prefix) / "share" / "jupyter" / "labextensions" / "jupyterlab-myst" / "package.json"
    assert json.loads(ext.read_text())["name"] == "jupyterlab-myst"
    for config in (Path(sys.prefix) / "etc" / "jupyter" / "labconfig").glob("*.json"):
        disabled = json.loads(config.read_text()).get("disabled_labextensions", {})
        assert not disabled.get("jupyterlab-myst"), f"disabled in {config}"
