"""Fresh set "2026-12b" (tests/data/explain_fresh_2026_12b) of issue 36: 33 error logs and 8 healthy or non-Ascend
logs from public threads that neither the catalog nor the two earlier held-out sets cite, collected and labelled
before the new message-reading rules were written. ``python tests/test_explain_fresh_2026_12b.py`` prints the
table and the rates. The aims of issue 36 are recorded in ``test_rates_meet_issue_36_aims``, marked xfail
(strict: the day they are met the mark must go) because the rules, written without this set, do not reach them yet; a
floor test keeps what they reach; the other tests check the set itself."""

from __future__ import annotations

import pytest
from explain_heldout_eval import DATA, check_sources_txt, evaluate, load_sources, report_lines, unmet_aims

from npulab.env import explain as ex

FOLDER = DATA / "explain_fresh_2026_12b"
EARLIER = (DATA / "explain_heldout", DATA / "explain_heldout_2026_12")


def _thread(url: str) -> str:
    """``owner/repo#n`` of a thread URL, case-folded (issues and pulls share the number space)."""
    parts = url.rstrip("/").split("/")
    return f"{parts[3]}/{parts[4]}#{parts[6]}".lower()


def test_set_is_real_sizeable_and_cited_nowhere_else():
    sources = load_sources(FOLDER)
    catalog = {x["url"] for e in ex.load_catalog() for x in e.examples} | {s for e in ex.load_catalog() for s in e.sources}
    earlier = {m["url"] for folder in EARLIER for m in load_sources(folder).values()}
    cited = {_thread(u) for u in catalog | earlier if "github.com/" in u and u.count("/") >= 6}
    errors = [m for m in sources.values() if m["expect"] != "none"]
    lacking = [m for m in errors if m["expect"] == []]
    assert len(sources) >= 40 and len(errors) - len(lacking) >= 20 and len(lacking) >= 8
    assert len(sources) - len(errors) >= 8
    assert len({_thread(m["url"]) for m in sources.values()}) == len(sources), "a thread is used twice"
    for name, meta in sources.items():
        assert (FOLDER / name).is_file() and meta["url"].startswith("https://github.com/"), name
        assert _thread(meta["url"]) not in cited, f"{name}: {meta['url']} is cited elsewhere"
        assert meta["expect"] == "none" or all(c in ex.CATEGORIES for c in meta["expect"]), name
        assert meta["expect"] != [] or (meta.get("fix") and meta.get("fix_any")), name


def test_sources_txt_lists_exactly_the_threads():
    """SOURCES.txt (the only file the rule writers may read) lists the thread URLs and nothing else."""
    check_sources_txt(FOLDER)


def test_rates_are_measured():
    """Every log is scored (the numbers the README records come from this table)."""
    result = evaluate(FOLDER)
    sizes = {group: total for group, (_, total) in result["rates"].items()}
    assert sizes["known"] + sizes["unanticipated"] + sizes["healthy"] == len(load_sources(FOLDER))
    print("\n".join(report_lines(result)))


def test_no_regression_from_the_first_measurement_after_the_rules():
    """A floor, not the aim: what three rounds of rules written without this set reached on it (README), kept."""
    rates = evaluate(FOLDER)["rates"]
    assert rates["known"][0] >= 21 and rates["unanticipated"][0] >= 10 and rates["healthy"][0] >= 8, rates
    assert rates["silent"][0] <= 1, rates  # round 5 (was 16, 4, 7 and 5 after three rounds); round 6: 10/10 fix named; round 8: 20 known; round 12: 1 silent; round 24: 21 known


@pytest.mark.xfail(strict=True, reason="issue 36 aims not met on this set (round 6: 19/23 known, 10/10 fix named, 2/33 silent, 8/8 healthy): explain stays open")
def test_rates_meet_issue_36_aims():
    """Never silent on an error log, nothing on healthy/non-Ascend logs, right family among the first two for
    ≥ 85 % of known families, advice naming the fix for ≥ 60 % of causes the catalog lacks."""
    assert not unmet_aims(evaluate(FOLDER))


if __name__ == "__main__":
    print("\n".join(report_lines(evaluate(FOLDER))))
