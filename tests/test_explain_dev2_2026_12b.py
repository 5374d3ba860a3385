"""Second development set of issue 36 (tests/data/explain_dev2_2026_12b): 23 error logs and 8 healthy or
non-Ascend logs from public threads cited nowhere else in the repository, labelled before the second round of
rules. ``python tests/test_explain_dev2_2026_12b.py`` prints the table and rates."""

from __future__ import annotations

from explain_heldout_eval import DATA, evaluate, load_sources, report_lines

from npulab.env import explain as ex

FOLDER = DATA / "explain_dev2_2026_12b"
EARLIER = (DATA / "explain_heldout", DATA / "explain_heldout_2026_12", DATA / "explain_dev_2026_12b")


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


if __name__ == "__main__":
    print("\n".join(report_lines(evaluate(FOLDER))))
