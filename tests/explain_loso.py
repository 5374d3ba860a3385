"""Leave-one-set-out measurement of the reported-cases reader (npulab.env.explain.neighbours), issue 36 round 10.

For each labelled set S (a top folder ``tests/data/explain_*``), the case base holds every case of the OTHER sets
only (and no case from a thread S's folder also uses: ``cases_without``), then S's folders are scored with ``evaluate``: the neighbours never see
the log they judge, nor any log collected with it. ``rules`` is the same run with an empty case base.
``BLIND`` are the sets kept out of tuning (pool 2026-12j, both halves, and 12k); the hyper-parameters of
npulab/env/explain/vote.py and neighbours.POSITION were chosen on the others.

Usage: ``python tests/explain_loso.py [--tune] [--blind]`` (from the repository root, with PYTHONPATH set).
"""

from __future__ import annotations

import functools
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from explain_heldout_eval import DATA, evaluate  # noqa: E402

from npulab.env.explain import neighbours, vote  # noqa: E402
from npulab.env.explain.casebase import CaseIndex, load_cases  # noqa: E402

BLIND = ("explain_pool_2026_12j", "explain_fresh_2026_12k")
GROUPS = ("known", "unanticipated", "silent", "healthy")


def folders(top: str) -> list[Path]:
    return sorted(p.parent for p in (DATA / top).glob("**/sources.yaml"))


def sets() -> list[str]:
    return sorted({c.set for c in load_cases()})


def measure(tops: list[str]) -> dict[str, dict[str, dict]]:
    """Per folder: the rates with rules only and with the neighbours (leave-one-set-out)."""
    out = {}
    for top in tops:
        for folder in folders(top):
            name = folder.relative_to(DATA).as_posix()
            out[name] = {"rules": evaluate(folder, cases=CaseIndex(()))["rates"], "cases": evaluate(folder)["rates"]}
    return out


def total(table: dict, reader: str) -> dict[str, list[int]]:
    sums = {g: [0, 0] for g in GROUPS}
    for row in table.values():
        for g in GROUPS:
            sums[g][0] += row[reader][g][0]
            sums[g][1] += row[reader][g][1]
    return sums


def lines(table: dict) -> list[str]:
    out = [f"{'set':42} {'reader':6} " + " ".join(f"{g:>13}" for g in GROUPS)]
    for name, row in [*table.items(), ("TOTAL", {r: total(table, r) for r in ("rules", "cases")})]:
        for reader in ("rules", "cases"):
            out.append(f"{name:42} {reader:6} " + " ".join(f"{'{}/{}'.format(*row[reader][g]):>13}" for g in GROUPS))
    return out


def with_params(k: int, min_similarity: float, min_fix_similarity: float, position: int):
    """Set the vote's hyper-parameters for a measurement (tuning only)."""
    neighbours.decide = functools.partial(vote.decide, k=k, min_similarity=min_similarity,
                                          min_fix_similarity=min_fix_similarity)
    neighbours.POSITION = position


def tune() -> None:
    """Every combination of the grid on the older sets; the score is known + fix-named hits with the neighbours."""
    older = [s for s in sets() if s not in BLIND]
    results = []
    for k, sim, fix, pos in itertools.product((1, 3, 5), (0.2, 0.3, 0.4, 0.5), (0.5, 0.7, 0.9, 2.0), (0, 1)):
        with_params(k, sim, fix, pos)
        sums = total(measure(older), "cases")
        results.append((sums["known"][0] + sums["unanticipated"][0], k, sim, fix, pos, sums))
        print(k, sim, fix, pos, sums, flush=True)
    rules = total(measure(older), "rules")
    print("rules only:", rules)
    for r in sorted(results, key=lambda r: -r[0])[:10]:
        print(r)


if __name__ == "__main__":
    if "--tune" in sys.argv:
        tune()
    else:
        chosen = [s for s in sets() if (s in BLIND) == ("--blind" in sys.argv)]
        print("\n".join(lines(measure(chosen))))
