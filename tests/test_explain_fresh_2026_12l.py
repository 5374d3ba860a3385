"""Fresh set "2026-12l" (tests/data/explain_fresh_2026_12l) of issue 36: error logs and healthy or non-Ascend logs
from public threads that neither the catalog nor any other explain set cites, collected and labelled before the next
round of message-reading rules, by someone who did not read the rules and did not run ``explain`` on them (README).
``python tests/test_explain_fresh_2026_12l.py`` prints the table. Not measured yet: no floor and no expected failure
of the aims until the set has been measured once (README, "Measurement")."""

from __future__ import annotations

from explain_heldout_eval import (
    DATA,
    check_fresh_set,
    check_logs_per_repository,
    check_sources_txt,
    other_sets,
)

FOLDER = DATA / "explain_fresh_2026_12l"
# the sizes the set holds when collected (README); the set may grow, never shrink
MIN_LOGS, MIN_KNOWN, MIN_LACKING, MIN_HEALTHY = 31, 12, 5, 14


def test_other_sets_are_all_found():
    names = {p.relative_to(DATA).as_posix() for p in other_sets(FOLDER)}
    assert {"explain_heldout", "explain_heldout_2026_12", "explain_fresh_2026_12b", "explain_fresh_2026_12d",
            "explain_fresh_2026_12e", "explain_fresh_2026_12g", "explain_fresh_2026_12h", "explain_fresh_2026_12i",
            "explain_fresh_2026_12k", "explain_pool_2026_12j/dev", "explain_pool_2026_12j/blind",
            "explain_dev_2026_12b", "explain_dev2_2026_12b", "explain_dev3_2026_12b", "explain_dev4_2026_12f"} <= names, names


def test_set_is_real_sizeable_and_cited_nowhere_else():
    check_fresh_set(FOLDER, MIN_LOGS, MIN_KNOWN, MIN_LACKING, MIN_HEALTHY)


def test_sources_txt_lists_exactly_the_threads():
    """SOURCES.txt (the only file the rule writers may read) lists the thread URLs and nothing else."""
    check_sources_txt(FOLDER)


def test_at_most_six_logs_per_repository():
    check_logs_per_repository(FOLDER)


if __name__ == "__main__":
    from explain_heldout_eval import evaluate, report_lines

    print("\n".join(report_lines(evaluate(FOLDER))))
