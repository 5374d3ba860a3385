"""Development set of issue 36 (tests/data/explain_dev_2026_12b): 22 error or warning logs and 9 healthy or
non-Ascend logs from public threads cited nowhere else in the repository, labelled before the rules of issue 36
were changed. ``python tests/test_explain_dev_2026_12b.py`` prints the table and rates."""

from __future__ import annotations

from explain_heldout_eval import DATA, check_new_set, evaluate, report_lines, unmet_aims

FOLDER = DATA / "explain_dev_2026_12b"
EARLIER = (DATA / "explain_heldout", DATA / "explain_heldout_2026_12")


def test_set_is_real_sizeable_and_cited_nowhere_else():
    check_new_set(FOLDER, EARLIER, 30, 20, 8)


def test_rates_on_the_development_set():
    """The aims of issue 36 on the logs the rules were developed against (the fresh set is measured elsewhere):
    never silent, right family among the first two for ≥ 85 % of known causes, advice naming the fix for ≥ 60 %
    of the causes the catalog lacks, nothing on healthy or non-Ascend logs but the one the text cannot tell apart."""
    result = evaluate(FOLDER)
    assert [a for a in unmet_aims(result) if not a.startswith("healthy")] == []
    misses = [r["log"] for r in result["rows"] if r["expect"] == "none" and not r["hit"]]
    assert misses == [], misses  # round 22: a Python 3.6 site-packages path is no NPU stack's (was pytorch3717)
    rates = result["rates"]  # round 5 (README of explain_dev4_2026_12f): every cause the catalog lacks names its fix
    assert rates["known"][0] >= 10 and rates["unanticipated"][0] >= 11 and rates["silent"][0] == 0, rates


if __name__ == "__main__":
    print("\n".join(report_lines(evaluate(FOLDER))))
