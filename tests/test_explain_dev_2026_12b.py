"""Development set of issue 36 (tests/data/explain_dev_2026_12b): 22 error or warning logs and 9 healthy or
non-Ascend logs from public threads cited nowhere else in the repository, labelled before the rules of issue 36
were changed. ``python tests/test_explain_dev_2026_12b.py`` prints the table and rates."""

from __future__ import annotations

from explain_heldout_eval import DATA, evaluate, load_sources, report_lines

from npulab.env import explain as ex

FOLDER = DATA / "explain_dev_2026_12b"
EARLIER = (DATA / "explain_heldout", DATA / "explain_heldout_2026_12")


def test_set_is_real_sizeable_and_cited_nowhere_else():
    sources = load_sources(FOLDER)
    catalog = {x["url"] for e in ex.load_catalog() for x in e.examples} | {s for e in ex.load_catalog() for s in e.sources}
    earlier = {m["url"] for folder in EARLIER for m in load_sources(folder).values()}
    errors = [m for m in sources.values() if m["expect"] != "none"]
    assert len(sources) >= 30 and len(errors) >= 20 and len(sources) - len(errors) >= 8
    for name, meta in sources.items():
        assert (FOLDER / name).is_file() and meta["url"].startswith("https://github.com/")
        assert meta["url"] not in catalog | earlier, f"{name}: {meta['url']} is cited elsewhere"
        assert meta["expect"] == "none" or meta["expect"] or meta.get("fix_any"), name


def test_rates_on_the_development_set():
    """The aims of issue 36 on the logs the rules were developed against (the fresh set is measured elsewhere):
    never silent, right family among the first two for ≥ 85 % of known causes, advice naming the fix for ≥ 60 %
    of the causes the catalog lacks, nothing on healthy or non-Ascend logs but the one the text cannot tell apart."""
    result = evaluate(FOLDER)
    rates = result["rates"]
    assert rates["silent"][0] == 0, [r["log"] for r in result["rows"] if r["silent"]]
    assert rates["known"][0] / rates["known"][1] >= 0.85, [r for r in result["rows"] if r["known"] and not r["hit"]]
    assert rates["unanticipated"][0] / rates["unanticipated"][1] >= 0.60, \
        [r for r in result["rows"] if r["expect"] == [] and not r["hit"]]
    misses = [r["log"] for r in result["rows"] if r["expect"] == "none" and not r["hit"]]
    assert misses in ([], ["nonascend_pytorch3717.log"]), misses


if __name__ == "__main__":
    print("\n".join(report_lines(evaluate(FOLDER))))
