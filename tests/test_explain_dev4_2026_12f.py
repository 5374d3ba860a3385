"""Fourth development set of issue 36 (tests/data/explain_dev4_2026_12f): 4 error logs and 4 healthy or non-Ascend
logs from public threads cited nowhere else in the repository, gathered during round 5 of the message-reading rules.
``python tests/test_explain_dev4_2026_12f.py`` prints the table and rates."""

from __future__ import annotations

from explain_heldout_eval import DATA, check_new_set, evaluate, report_lines

FOLDER = DATA / "explain_dev4_2026_12f"
EARLIER = (DATA / "explain_heldout", DATA / "explain_heldout_2026_12", DATA / "explain_dev_2026_12b",
           DATA / "explain_dev2_2026_12b", DATA / "explain_dev2_2026_12b" / "probe", DATA / "explain_dev3_2026_12b",
           DATA / "explain_fresh_2026_12b")


def test_set_is_real_sizeable_and_cited_nowhere_else():
    check_new_set(FOLDER, EARLIER, 8, 4, 4)


def test_sources_txt_lists_exactly_the_threads():
    listed = (FOLDER / "SOURCES.txt").read_text(encoding="utf-8").split()
    assert sorted(listed) == sorted(m["url"] for m in check_new_set(FOLDER, EARLIER, 8, 4, 4).values())


def test_rates_on_the_fourth_development_set():
    """Development numbers after round 5 (README): every aim of issue 36 met on this set."""
    result = evaluate(FOLDER)
    rates = result["rates"]
    assert rates["known"][0] >= 3 and rates["unanticipated"][0] >= 1, rates
    assert rates["healthy"][0] >= 4 and rates["silent"][0] <= 0, rates


if __name__ == "__main__":
    print("\n".join(report_lines(evaluate(FOLDER))))
