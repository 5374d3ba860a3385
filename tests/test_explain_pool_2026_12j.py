"""Pool "2026-12j" of issue 36, development half (tests/data/explain_pool_2026_12j/dev): 19 of the 40 logs collected
blind from public threads and web pages, split at random (README); round 9b was written from this half, and the other
half is measured once afterwards. ``python tests/test_explain_pool_2026_12j.py`` prints the table."""

from __future__ import annotations

import pytest
from explain_heldout_eval import DATA, check_floor, check_fresh_set, check_logs_per_repository, check_sources_txt

FOLDER = DATA / "explain_pool_2026_12j" / "dev"
# the sizes of the half when split (README); it may grow, never shrink
MIN_LOGS, MIN_KNOWN, MIN_LACKING, MIN_HEALTHY = 19, 7, 4, 8


def test_half_is_real_sizeable_and_cited_nowhere_else():
    check_fresh_set(FOLDER, MIN_LOGS, MIN_KNOWN, MIN_LACKING, MIN_HEALTHY, web_pages=True)


def test_sources_txt_lists_exactly_the_threads():
    check_sources_txt(FOLDER)


def test_at_most_six_logs_per_repository():
    check_logs_per_repository(FOLDER)


def test_no_regression_from_round_9b():
    """A floor, not the aim: what round 9b reaches on this half, its development data (round 9: 3/7 known, 0/4 fix
    named, 8/8 healthy, 0/11 silent)."""
    check_floor(FOLDER, known=7, fix_named=2, healthy=8, silent=0)


@pytest.mark.xfail(strict=True, reason="issue 36 aims not met on this half (round 9b: 7/7 known, 2/4 fix named, "
                                       "0/11 silent, 8/8 healthy): explain stays open")
def test_rates_meet_issue_36_aims():
    from explain_heldout_eval import evaluate, unmet_aims

    assert not unmet_aims(evaluate(FOLDER))


if __name__ == "__main__":
    from explain_heldout_eval import evaluate, report_lines

    print("\n".join(report_lines(evaluate(FOLDER))))
