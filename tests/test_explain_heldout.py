"""Held-out evaluation of explain on real logs from public threads that no catalog entry cites
(tests/data/explain_heldout: excerpts + sources.yaml). A hit: an accepted category among the first two findings;
an error log is never answered with nothing; a healthy or unrelated log gets no finding at all."""

from __future__ import annotations

from explain_heldout_eval import DATA, evaluate, load_sources, report_lines

from npulab.env import explain as ex

HELDOUT = DATA / "explain_heldout"
SOURCES = load_sources(HELDOUT)


def test_heldout_set_is_real_sizeable_and_uncited():
    catalog_urls = {x["url"] for e in ex.load_catalog() for x in e.examples} | {s for e in ex.load_catalog() for s in e.sources}
    assert len(SOURCES) >= 30 and sum(m["expect"] == "none" for m in SOURCES.values()) >= 4
    for name, meta in SOURCES.items():
        assert (HELDOUT / name).is_file() and meta["url"].startswith("https://github.com/")
        assert meta["url"] not in catalog_urls, f"{name}: the catalog cites {meta['url']}"
        assert (HELDOUT / name).stat().st_size < 2000, "keep excerpts short"


def test_heldout_hit_rate_never_silent_and_healthy_stay_silent():
    result = evaluate(HELDOUT)
    rows, rates = result["rows"], result["rates"]
    assert not [r["log"] for r in rows if r["silent"]], "an error log was answered with nothing"
    assert rates["healthy"][0] == rates["healthy"][1], [r for r in rows if r["expect"] == "none" and not r["hit"]]
    assert rates["known"][0] / rates["known"][1] >= 0.85, [r for r in rows if r["known"] and not r["hit"]]
    assert rates["known"][0] >= 30, [r for r in rows if r["known"] and not r["hit"]]  # the floor reached (round 5)
    assert rates["unanticipated"][0] == rates["unanticipated"][1], [r for r in rows if not r["known"] and not r["hit"]]


if __name__ == "__main__":  # python tests/test_explain_heldout.py: the table behind the report
    print("\n".join(report_lines(evaluate(HELDOUT))))
