"""Scoring ``explain`` on a held-out folder of real logs (``sources.yaml`` + excerpts), shared by the held-out tests.

Per log, ``expect`` is one of:
- a list of categories (catalog families, or ``generic_triage`` for the older set's causes the catalog lacks):
  a hit is one of them among the first two findings;
- ``[]`` with ``fix_any``: a cause the catalog has no family for; a hit is a finding among the first two whose
  fix names the thread's actual fix (one of the ``fix_any`` words, case-insensitive);
- ``none``: a healthy or unrelated log; a hit is no finding at all.
Groups: ``known`` (a catalog family is accepted), ``unanticipated`` (the rest of the error logs), ``healthy``.
"""

from __future__ import annotations

from pathlib import Path

from npulab.core.paths import parse_yaml
from npulab.env import explain as ex
from npulab.env.explain.casebase import CaseIndex, load_cases

DATA = Path(__file__).resolve().parent / "data"


def load_sources(folder: Path) -> dict:
    return parse_yaml((folder / "sources.yaml").read_text(encoding="utf-8"))


def _hit(meta: dict, report: ex.Report) -> bool:
    expect = meta["expect"]
    if expect == "none":
        return report.findings == []
    if expect:
        return bool(set(expect) & set(report.categories[:2]))
    words = [w.lower() for w in meta["fix_any"]]
    return any(w in f.fix.lower() for f in report.findings[:2] for w in words)


def set_of(folder: Path) -> str | None:
    """The labelled set a folder belongs to (its top folder under ``tests/data``), None outside it."""
    folder = Path(folder).resolve()
    return folder.relative_to(DATA).parts[0] if folder.is_relative_to(DATA) and folder != DATA else None


def cases_without(folder: Path) -> CaseIndex:
    """The reported cases ``explain`` may consult when it is judged on ``folder``: every case except those of the
    folder's whole set and those from a thread the folder uses (leave-one-set-out: never the log being judged, nor one
    collected with it)."""
    top = set_of(folder)
    threads = {thread_of(m["url"]) for m in load_sources(folder).values()}
    return CaseIndex(c for c in load_cases() if c.set != top and thread_of(c.url) not in threads)


def evaluate(folder: Path, cases: CaseIndex | None = None, documented: tuple | None = None) -> dict:
    """Per log: expected, what explain said, hit or not; and ``(hits, total)`` per group. ``cases``: the reported
    cases ``explain`` consults (default: what ``explain`` does by default — the rules alone, or with ``NEIGHBOURS`` on
    ``cases_without(folder)``, leave-one-set-out; ``CaseIndex(())`` for the rules alone). ``documented``: the
    documented troubleshooting entries it reads (default: what ``explain`` reads by default, the packaged ones;
    ``()`` for none)."""
    rows = []
    if cases is None:
        cases = cases_without(folder) if ex.NEIGHBOURS else CaseIndex(())
    for name, meta in load_sources(folder).items():
        report = ex.explain_file(folder / name, cases=cases, documented=documented)
        expect = meta["expect"]
        known = expect != "none" and any(c in ex.CATEGORIES for c in expect)
        rows.append({"log": name, "expect": expect, "got": report.categories, "hit": _hit(meta, report),
                     "known": known, "silent": expect != "none" and not report.findings})
    groups = {"known": [r for r in rows if r["expect"] != "none" and r["known"]],
              "unanticipated": [r for r in rows if r["expect"] != "none" and not r["known"]],
              "healthy": [r for r in rows if r["expect"] == "none"]}
    rates = {g: (sum(r["hit"] for r in rs), len(rs)) for g, rs in groups.items()}
    rates["silent"] = (sum(r["silent"] for r in rows), len(groups["known"]) + len(groups["unanticipated"]))
    return {"rows": rows, "rates": rates}


def report_lines(result: dict) -> list[str]:
    """The table behind a measurement: one line per log, then the rates."""
    out = [("HIT  " if r["hit"] else "MISS ") + f"{r['log']}  expect={r['expect']}  got={r['got']}" for r in result["rows"]]
    for group, (hits, total) in result["rates"].items():
        out.append(f"{group}: {hits}/{total}" + (f" = {hits / total:.0%}" if total else ""))
    return out


def check_new_set(folder: Path, earlier: tuple[Path, ...], logs: int, errors: int, healthy: int) -> dict:
    """A set collected for issue 36: at least ``logs`` logs, ``errors`` of them error logs and ``healthy`` healthy or
    non-Ascend ones, each file present, from a GitHub thread that neither the catalog nor an ``earlier`` set cites,
    each error log labelled with families or with the words of its fix. Returns the set's sources."""
    sources = load_sources(folder)
    catalog = {x["url"] for e in ex.load_catalog() for x in e.examples} | {s for e in ex.load_catalog() for s in e.sources}
    cited = {m["url"] for f in earlier for m in load_sources(f).values()} | catalog
    error_logs = [m for m in sources.values() if m["expect"] != "none"]
    assert len(sources) >= logs and len(error_logs) >= errors and len(sources) - len(error_logs) >= healthy
    for name, meta in sources.items():
        assert (folder / name).is_file() and meta["url"].startswith("https://github.com/"), name
        assert meta["url"] not in cited, f"{name}: {meta['url']} is cited elsewhere"
        assert meta["expect"] == "none" or meta["expect"] or meta.get("fix_any"), name
    return sources


def is_github_thread(url: str) -> bool:
    return "github.com/" in url and url.count("/") >= 6


def thread_of(url: str) -> str:
    """``owner/repo#n`` of a GitHub thread URL, case-folded (issues and pulls share the number space); for a web page,
    its address without scheme, ``www.``, query, fragment or trailing slash, case-folded."""
    if is_github_thread(url):
        parts = url.rstrip("/").split("/")
        return f"{parts[3]}/{parts[4]}#{parts[6]}".lower()
    page = url.split("://", 1)[-1].split("#", 1)[0].split("?", 1)[0].rstrip("/").lower()
    return page.removeprefix("www.")


def source_of(url: str) -> str:
    """Where a log comes from, for the per-source cap: ``owner/repo`` on GitHub, else the web site's host."""
    if url.startswith("https://github.com/"):
        return "/".join(url.split("/")[3:5]).lower()
    return thread_of(url).split("/", 1)[0]


def group_of(meta: dict) -> str:
    """``known`` (catalog families), ``lacking`` (a cause the catalog has no family for) or ``healthy``."""
    return "healthy" if meta["expect"] == "none" else "known" if meta["expect"] else "lacking"


def random_halves(names_by_group: dict[str, list[str]], seed: int) -> tuple[set[str], set[str]]:
    """A pool split at random into a development and a blind half, group by group: each group's names sorted, shuffled
    with ``random.Random(seed)``, the first half (rounded down) to development. Reproducible from the seed alone."""
    import random

    rng, dev, blind = random.Random(seed), set(), set()
    for group in sorted(names_by_group):
        names = sorted(names_by_group[group])
        rng.shuffle(names)
        dev |= set(names[: len(names) // 2])
        blind |= set(names[len(names) // 2:])
    return dev, blind


def other_sets(folder: Path) -> tuple[Path, ...]:
    """Every other explain set (and the probe of the second development set): ``sources.yaml`` anywhere under
    ``explain_*`` outside ``folder``."""
    return tuple(sorted(p.parent for p in DATA.glob("explain_*/**/sources.yaml") if folder not in (p.parent, *p.parents)))


def check_fresh_set(folder: Path, min_logs: int, min_known: int, min_lacking: int, min_healthy: int,
                    web_pages: bool = False) -> dict:
    """A fresh set collected for issue 36 before a round of rules: at least ``min_logs`` logs, of which ``min_known``
    with catalog families, ``min_lacking`` with a cause the catalog lacks (``expect: []`` with the fix and its words)
    and ``min_healthy`` healthy or non-Ascend ones; each file present, one log per thread, every thread cited neither
    by the catalog nor by any other explain set, labels in the catalog's vocabulary. ``web_pages``: the set may also
    hold public web pages (blogs, Q&A, forums), each cited nowhere else either. Returns the set's sources."""
    sources = load_sources(folder)
    catalog = {x["url"] for e in ex.load_catalog() for x in e.examples} | {s for e in ex.load_catalog() for s in e.sources}
    others = {m["url"] for other in other_sets(folder) for m in load_sources(other).values()}
    cited = {thread_of(u) for u in catalog | others if is_github_thread(u) or web_pages}
    errors = [m for m in sources.values() if m["expect"] != "none"]
    lacking = [m for m in errors if m["expect"] == []]
    assert len(sources) >= min_logs and len(errors) - len(lacking) >= min_known and len(lacking) >= min_lacking
    assert len(sources) - len(errors) >= min_healthy
    assert len({thread_of(m["url"]) for m in sources.values()}) == len(sources), "a thread is used twice"
    for name, meta in sources.items():
        assert (folder / name).is_file(), name
        assert meta["url"].startswith("https://github.com/" if not web_pages else "https://"), name
        assert thread_of(meta["url"]) not in cited, f"{name}: {meta['url']} is cited elsewhere"
        assert meta["expect"] == "none" or all(c in ex.CATEGORIES for c in meta["expect"]), name
        assert meta["expect"] != [] or (meta.get("fix") and meta.get("fix_any")), name
        assert meta["expect"] != [] or all(w == w.lower() and 1 <= len(meta["fix_any"]) <= 4 for w in meta["fix_any"]), name
    return sources


def unmet_aims(result: dict) -> list[str]:
    """Issue 36's aims that ``result`` misses: never silent on an error log, right family among the first two for
    ≥ 85 % of known causes, advice naming the fix for ≥ 60 % of the causes the catalog lacks, nothing on healthy or
    non-Ascend logs. Each miss names the logs behind it."""
    rates, rows = result["rates"], result["rows"]
    unmet = []
    if rates["silent"][0]:
        unmet.append(f"silent: {[r['log'] for r in rows if r['silent']]}")
    if rates["known"][0] < 0.85 * rates["known"][1]:
        unmet.append(f"known: {[r['log'] for r in rows if r['known'] and not r['hit']]}")
    if rates["unanticipated"][0] < 0.60 * rates["unanticipated"][1]:
        unmet.append(f"fix named: {[r['log'] for r in rows if r['expect'] == [] and not r['hit']]}")
    if rates["healthy"][0] < rates["healthy"][1]:
        unmet.append(f"healthy: {[r['log'] for r in rows if r['expect'] == 'none' and not r['hit']]}")
    return unmet


def check_sources_txt(folder: Path) -> None:
    """SOURCES.txt (the only file of a blind set the rule writers may read) lists its thread URLs and nothing else."""
    listed = (folder / "SOURCES.txt").read_text(encoding="utf-8").split()
    assert sorted(listed) == sorted(m["url"] for m in load_sources(folder).values())


def check_logs_per_repository(folder: Path, most: int = 6) -> None:
    """No repository (or web site) gives a set more than ``most`` logs."""
    from collections import Counter

    repos = Counter(source_of(m["url"]) for m in load_sources(folder).values())
    assert max(repos.values()) <= most, repos


def check_floor(folder: Path, known: int, fix_named: int, healthy: int, silent: int) -> None:
    """The rates a round reached on a set, as a floor: at least ``known`` / ``fix_named`` / ``healthy`` hits and at
    most ``silent`` silent error logs."""
    rates = evaluate(folder)["rates"]
    assert rates["known"][0] >= known and rates["unanticipated"][0] >= fix_named, rates
    assert rates["healthy"][0] >= healthy and rates["silent"][0] <= silent, rates
