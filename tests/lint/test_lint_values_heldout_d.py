"""Held-out set D of planted value/type errors for lint-npu (tests/data/lint_values_heldout_d, issue 36).

Written after set C, from public documentation and the pinned wheels, by a session that read lint-npu only through its
public entry point; it measures the round of value checks written at the same time, once, afterwards. The scoring is
set B's (tests/lint/test_lint_values_heldout.py: each case's planted cell and twin as ``npu`` cells through
``check_notebook``; a planted cell is *caught* when it gets any finding, a twin with any finding is a *false
positive*), imported, not copied. ``python tests/lint/test_lint_values_heldout_d.py`` prints the table and the rates.
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

FOLDER = Path(__file__).resolve().parents[1] / "data" / "lint_values_heldout_d"
EARLIER = [Path(__file__).resolve().parents[1] / "data" / name / "cases.yaml"
           for name in ("lint_values_dev", "lint_values_heldout", "lint_values_heldout_c")]
# Relations between arguments or flags, and numbers outside a documented range or set (the weakest classes at the
# baseline of set C); the issue asks this set to hold at least 15 of them.
# Baseline (main at afe591d, README): 24 caught, 9 of them unlisted, 2 twins flagged (gaps in the data tables).
# Round 4, measured once (README): the floor from then on.
ROUND4_CAUGHT, ROUND4_UNLISTED = 33, 17
# Round 5 was written with this set as DEVELOPMENT data (README): its result is a floor against regressions, not a
# held-out measurement.
DEV_CAUGHT, DEV_UNLISTED = 47, 23
# The two twins flagged then were gaps in the data (HCCL_OP_RETRY_ENABLE/_PARAMS, atc --deterministic), filled since.
FALSE_POSITIVES = 0
WEAK_KINDS = {"argument-relation", "argument-exclusive", "argument-number-outside-range",
              "argument-number-outside-set", "cli-flag-relation", "cli-flag-exclusive"}


def load_cases() -> list[dict]:
    return yaml.safe_load((FOLDER / "cases.yaml").read_text(encoding="utf-8"))["cases"]


@pytest.fixture(scope="module")
def result():
    index = pinned_index()  # the pinned wheel, downloaded once into the user's cache (as make lint does)
    return score(load_cases(), index, Context(pinned_version(REPO_ROOT / "requirements-npu.txt")))


def test_cases_are_well_formed():
    cases = load_cases()
    assert len(cases) >= 50 and len({c["id"] for c in cases}) == len(cases)
    assert len({c["kind"] for c in cases}) >= 15
    assert sum(c["kind"] in WEAK_KINDS for c in cases) >= 15
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


def test_no_regression_from_the_baseline(result):
    """A floor, not the aim: what round 5 reaches on this set as development data (round 4, measured once while the
    set was held out, caught 33/70 and 17/34; README), and no flagged twin
    (round 4 flagged two: HCCL_OP_RETRY_ENABLE/_PARAMS unknown to the variable table, atc --deterministic unknown to
    the flag table; both documented and added to the data since, README)."""
    assert result["caught"][0] >= DEV_CAUGHT >= ROUND4_CAUGHT, result["caught"]
    assert result["caught_unlisted"][0] >= DEV_UNLISTED >= ROUND4_UNLISTED, result["caught_unlisted"]
    assert result["false_positives"][0] <= FALSE_POSITIVES, [(r["id"], r["twin"]) for r in result["rows"] if r["twin"]]


@pytest.mark.xfail(strict=True, reason="not every planted error is caught (baseline 24/70, 9/34 of the unlisted classes, 2/70 twins; round 4, measured once: 33/70, 17/34, 2/70; round 5 with the set as development data: 47/70, 23/34, 0/70; README)")
def test_every_planted_error_caught_and_no_twin_flagged(result):
    assert result["caught"][0] == result["caught"][1], [r["id"] for r in result["rows"] if not r["planted"]]
    assert result["false_positives"][0] == 0, [(r["id"], r["twin"]) for r in result["rows"] if r["twin"]]


if __name__ == "__main__":
    print("\n".join(report_lines(score(load_cases(), pinned_index(),
                                       Context(pinned_version(REPO_ROOT / "requirements-npu.txt"))))))
