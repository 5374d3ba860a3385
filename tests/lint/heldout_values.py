"""What every set of planted value/type errors for lint-npu shares (tests/data/lint_values_*, issue 36): the scorer and
the checks. A set's test module only says which folder it is, which sets came before it and what was measured on it,
by subclassing ``PlantedSetChecks``.

Each case holds one planted error and a correct twin, both fed to lint-npu's public entry point (``check_notebook``) as
``npu`` cells. A planted cell is *caught* when it gets at least one finding; a twin with any finding is a *false
positive*. ``python tests/lint/test_lint_values_heldout_<set>.py`` prints a set's table and rates."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from npulab.core.paths import REPO_ROOT, parse_yaml
from npulab.lint.context import Context
from npulab.lint.notebook import check_notebook
from npulab.pytorch.torch_npu_names import pinned_index, pinned_version

DATA = Path(__file__).resolve().parents[1] / "data"
HEADER = "%%npu 预期：测试用的单元，只检查下面的调用（依据：本测试）\n"
# Relations and exclusions between arguments or flags, and numbers or values outside a documented range or set for a
# function argument: the classes the earlier sets found weakest, which each later set must hold enough of.
WEAK_KINDS = frozenset({"argument-relation", "argument-exclusive", "argument-number-outside-range",
                        "argument-number-outside-set", "argument-value-outside-set", "cli-flag-relation",
                        "cli-flag-exclusive"})


def load_cases(folder: str) -> list[dict]:
    return parse_yaml((DATA / folder / "cases.yaml").read_text(encoding="utf-8"))["cases"]


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


def measure(folder: str) -> dict:
    """The set scored against the pinned torch_npu wheel (downloaded once into the user's cache, as make lint does)."""
    return score(load_cases(folder), pinned_index(), Context(pinned_version(REPO_ROOT / "requirements-npu.txt")))


def report_lines(result: dict) -> list[str]:
    out = [("CAUGHT " if r["planted"] else "MISSED ") + ("FP " if r["twin"] else "   ")
           + f"{r['id']}  ({r['kind']}{'' if r['listed'] else ', class not named in the issue'})"
           + (f"  planted={r['planted']}" if r["planted"] else "") + (f"  twin={r['twin']}" if r["twin"] else "")
           for r in result["rows"]]
    for name in ("caught", "caught_unlisted", "false_positives"):
        hits, total = result[name]
        out.append(f"{name}: {hits}/{total} = {hits / total:.0%}")
    return out


def python_part(code: str) -> str:
    """The Python of a cell, its magic and shell lines blanked."""
    return "\n".join("" if line.lstrip().startswith(("!", "%")) else line for line in code.splitlines())


def print_report(folder: str) -> None:
    print("\n".join(report_lines(measure(folder))))


def earlier_sets(folder: str) -> list[str]:
    """The sets written before ``folder``: the ``lint_values_*`` folders whose names sort before it (dev, then the
    held-out sets by letter, in the order they were written)."""
    return sorted(p.name for p in DATA.glob("lint_values_*") if p.is_dir() and p.name < folder)


class PlantedSetChecks:
    """The tests of one set. A subclass names its folder and states what the set must hold and what was measured:
    FLOOR (caught, unlisted caught) is the no-regression line, OPEN the reason of the strict xfail on "every planted
    error caught" while the set is not fully caught (None once it is binding). No set may flag a correct twin."""

    FOLDER: str
    MIN_CASES, MIN_KINDS, MIN_WEAK, MIN_UNLISTED, MIN_CLI, MIN_ENV = 40, 15, 0, 0, 0, 0
    NEW_HALF = True  # half or more of the cases check a variable, flag or API no earlier set checks
    FLOOR: tuple[int, int]
    OPEN: str | None = None

    @pytest.fixture(scope="class")
    @classmethod
    def result(cls):
        return measure(cls.FOLDER)

    def test_cases_are_well_formed(self):
        cases = load_cases(self.FOLDER)
        assert len(cases) >= self.MIN_CASES and len({c["id"] for c in cases}) == len(cases)
        assert len({c["kind"] for c in cases}) >= self.MIN_KINDS
        assert sum(c["kind"] in WEAK_KINDS for c in cases) >= self.MIN_WEAK
        assert sum(not c["listed"] for c in cases) >= self.MIN_UNLISTED
        assert sum(c["kind"].startswith("cli-") for c in cases) >= self.MIN_CLI
        assert sum(c["kind"].startswith("env-") for c in cases) >= self.MIN_ENV
        if self.NEW_HALF:
            assert sum(c["new"] for c in cases) * 2 >= len(cases), "half or more must be on what earlier sets lack"
        earlier_ids = {c["id"] for name in earlier_sets(self.FOLDER) for c in load_cases(name)}
        assert not earlier_ids & {c["id"] for c in cases}
        for c in cases:
            assert isinstance(c["listed"], bool) and isinstance(c.get("new", False), bool), c["id"]
            assert c["doc"].startswith("https://") and c["rule"] and c["planted"] != c["twin"], c["id"]
            for role in ("planted", "twin"):
                ast.parse(python_part(c[role]))  # the Python around magics and shell lines is valid

    def test_scores_are_measured(self, result):
        """Every case is scored (the README's numbers come from this table)."""
        assert result["caught"][1] == len(load_cases(self.FOLDER))
        print("\n".join(report_lines(result)))

    def test_no_regression_and_no_twin_flagged(self, result):
        """A floor, not the aim (the README says what each round caught), and binding: no correct twin flagged."""
        caught, unlisted = self.FLOOR
        assert result["caught"][0] >= caught and result["caught_unlisted"][0] >= unlisted, \
            (result["caught"], result["caught_unlisted"])
        assert result["false_positives"][0] == 0, [(r["id"], r["twin"]) for r in result["rows"] if r["twin"]]

    def test_every_planted_error_caught(self, result, request):
        if self.OPEN:
            request.node.add_marker(pytest.mark.xfail(strict=True, reason=self.OPEN))
        assert result["caught"][0] == result["caught"][1], [r["id"] for r in result["rows"] if not r["planted"]]
