"""Pool "2026-12j" of issue 36 (tests/data/explain_pool_2026_12j): 40 logs collected blind from public threads and web
pages, split at random into a development half (``dev/``, round 9b was written from it) and a blind half (``blind/``,
measured once afterwards; README). ``python tests/test_explain_pool_2026_12j.py`` prints both tables."""

from __future__ import annotations

import pytest
from explain_heldout_eval import (
    DATA,
    check_floor,
    check_fresh_set,
    check_logs_per_repository,
    check_sources_txt,
    group_of,
    load_sources,
    random_halves,
)

POOL = DATA / "explain_pool_2026_12j"
DEV, BLIND = POOL / "dev", POOL / "blind"
SEED = 20261206  # fixed in docs/DECISIONS.md before the pool was seen
# the sizes of each half when split (README): logs, known, lacking, healthy; a half may grow, never shrink
SIZES = {DEV: (19, 7, 4, 8), BLIND: (21, 8, 4, 9)}


@pytest.mark.parametrize("half", [DEV, BLIND], ids=["dev", "blind"])
def test_half_is_real_sizeable_and_cited_nowhere_else(half):
    check_fresh_set(half, *SIZES[half], web_pages=True)
    check_sources_txt(half)
    check_logs_per_repository(half)


def test_halves_are_the_seeded_random_split_of_the_pool():
    groups: dict[str, list[str]] = {}
    for half in (DEV, BLIND):
        for name, meta in load_sources(half).items():
            groups.setdefault(group_of(meta), []).append(name)
    assert random_halves(groups, SEED) == (set(load_sources(DEV)), set(load_sources(BLIND)))


def test_no_regression_on_the_development_half():
    """A floor, not the aim: what round 9b reaches on the half it was written from (round 9: 3/7 known, 0/4 fix named,
    8/8 healthy, 0/11 silent)."""
    check_floor(DEV, known=7, fix_named=3, healthy=8, silent=0)  # fix named raised by round 14


def test_no_regression_on_the_blind_half():
    """A floor, not the aim: what round 9b reached on the blind half when it was measured once (README) — the same,
    log for log, as round 8."""
    check_floor(BLIND, known=7, fix_named=1, healthy=8, silent=1)  # known raised by rounds 14, 16, 22 and 24 (development data)


@pytest.mark.parametrize("half", [
    DEV,  # met since round 14 (7/7 known, 3/4 fix named, 0/11 silent, 8/8 healthy; round 9b: 2/4 fix named)
    pytest.param(BLIND, marks=pytest.mark.xfail(strict=True, reason="issue 36 aims not met on the blind half (round 9b, "
                                                                    "measured once: 3/8, 1/4, 2/12, 8/9): explain stays open")),
], ids=["dev", "blind"])
def test_rates_meet_issue_36_aims(half):
    from explain_heldout_eval import evaluate, unmet_aims

    assert not unmet_aims(evaluate(half))


if __name__ == "__main__":
    from explain_heldout_eval import evaluate, report_lines

    for half in (DEV, BLIND):
        print(f"## {half.name}", *report_lines(evaluate(half)), sep="\n")
