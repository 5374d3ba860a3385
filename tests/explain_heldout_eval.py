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

import yaml

from npulab.env import explain as ex

DATA = Path(__file__).resolve().parent / "data"


def load_sources(folder: Path) -> dict:
    return yaml.safe_load((folder / "sources.yaml").read_text(encoding="utf-8"))


def _hit(meta: dict, report: ex.Report) -> bool:
    expect = meta["expect"]
    if expect == "none":
        return report.findings == []
    if expect:
        return bool(set(expect) & set(report.categories[:2]))
    words = [w.lower() for w in meta["fix_any"]]
    return any(w in f.fix.lower() for f in report.findings[:2] for w in words)


def evaluate(folder: Path) -> dict:
    """Per log: expected, what explain said, hit or not; and ``(hits, total)`` per group."""
    rows = []
    for name, meta in load_sources(folder).items():
        report = ex.explain_file(folder / name)
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
