"""Held-out set F of planted value/type errors for lint-npu (tests/data/lint_values_heldout_f, issue 36).

Written after set E, from public documentation and the pinned wheels, by a session that read lint-npu only through its
public entry point; it measures the round of value checks written at the same time, once, afterwards. The scoring is
set B's (tests/lint/test_lint_values_heldout.py: each case's planted cell and twin as ``npu`` cells through
``check_notebook``; a planted cell is *caught* when it gets any finding, a twin with any finding is a *false
positive*), imported, not copied. ``python tests/lint/test_lint_values_heldout_f.py`` prints the table and the rates.
The baseline (code before the new round) is in the folder's README."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
import yaml
from test_lint_values_heldout import _python_part, report_lines, score

from npulab.core.paths import REPO_ROOT
from npulab.lint.context import Context
from npulab.pytorch.torch_npu_names import pinned_index, pinned_version

FOLDER = Path(__file__).resolve().parents[1] / "data" / "lint_values_heldout_f"
EARLIER = [Path(__file__).resolve().parents[1] / "data" / name / "cases.yaml"
           for name in ("lint_values_dev", "lint_values_heldout", "lint_values_heldout_c", "lint_values_heldout_d",
                        "lint_values_heldout_e")]
# Relations and exclusions between arguments or flags, and numbers outside a documented range or set for a function
# argument (the weakest classes of sets C, D and E); the issue asks this set to hold at least 20 of them.
WEAK_KINDS = {"argument-relation", "argument-exclusive", "argument-number-outside-range",
              "argument-number-outside-set", "argument-value-outside-set", "cli-flag-relation", "cli-flag-exclusive"}
# Baseline (main at 02a416f, README): 30 caught, 16 of them unlisted, 3 twins flagged (gaps in the data tables).
# Round 6, measured once (README): the floor from then on; the three gaps were filled after it, so no twin is flagged.
ROUND6_CAUGHT, ROUND6_UNLISTED, FALSE_POSITIVES = 40, 24, 0


def load_cases() -> list[dict]:
    return yaml.safe_load((FOLDER / "cases.yaml").read_text(encoding="utf-8"))["cases"]


@pytest.fixture(scope="module")
def result():
    index = pinned_index()  # the pinned wheel, downloaded once into the user's cache (as make lint does)
    return score(load_cases(), index, Context(pinned_version(REPO_ROOT / "requirements-npu.txt")))


def test_cases_are_well_formed():
    cases = load_cases()
    assert len(cases) >= 60 and len({c["id"] for c in cases}) == len(cases)
    assert len({c["kind"] for c in cases}) >= 15
    assert sum(c["kind"] in WEAK_KINDS for c in cases) >= 20
    assert sum(c["kind"].startswith("cli-") for c in cases) >= 8
    assert sum(c["kind"].startswith("env-") for c in cases) >= 8
    assert sum(c["new"] for c in cases) * 2 >= len(cases), "half or more must be on variables/flags/APIs earlier sets lack"
    earlier_ids = {c["id"] for path in EARLIER for c in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]}
    assert not earlier_ids & {c["id"] for c in cases}
    for c in cases:
        assert isinstance(c["listed"], bool) and isinstance(c["new"], bool), c["id"]
        assert c["doc"].startswith("https://") and c["rule"] and c["planted"] != c["twin"], c["id"]
        for role in ("planted", "twin"):
            ast.parse(_python_part(c[role]))  # the Python around magics and shell lines is valid


def test_scores_are_measured(result):
    """Every case is scored (the README's numbers come from this table)."""
    assert result["caught"][1] == len(load_cases())
    print("\n".join(report_lines(result)))


def test_no_regression_from_the_measurement(result):
    """A floor, not the aim: what round 6 caught on this set when it was measured once (README), and no twin flagged
    (the three table gaps the baseline showed — ASCEND_HOST_LOG_FILE_NUM, msprof --aicpu, ascend-dmi -p --dur/--it —
    were filled with their documented values after the measurement)."""
    assert result["caught"][0] >= ROUND6_CAUGHT and result["caught_unlisted"][0] >= ROUND6_UNLISTED, result["caught"]
    assert result["false_positives"][0] <= FALSE_POSITIVES, [(r["id"], r["twin"]) for r in result["rows"] if r["twin"]]


@pytest.mark.xfail(strict=True, reason="not every planted error is caught (baseline 30/82, 16/47 of the unlisted classes, 3/82 twins; round 6, measured once: 40/82, 24/47, 3/82, the three twins clean since; README)")
def test_every_planted_error_caught_and_no_twin_flagged(result):
    assert result["caught"][0] == result["caught"][1], [r["id"] for r in result["rows"] if not r["planted"]]
    assert result["false_positives"][0] == 0, [(r["id"], r["twin"]) for r in result["rows"] if r["twin"]]


if __name__ == "__main__":
    print("\n".join(report_lines(score(load_cases(), pinned_index(),
                                       Context(pinned_version(REPO_ROOT / "requirements-npu.txt"))))))
