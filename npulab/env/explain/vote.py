"""The vote of the nearest reported cases: a catalog family, a reported fix, or nothing.

The ``K`` nearest cases at least ``MIN_SIMILARITY`` alike vote with their similarity: a case labelled with catalog
families for each of them, a healthy case (``none``) for silence, a case the catalog lacks for "no family". The label
with the largest total wins. A family that wins is the verdict, citing the cases that voted for it. When "no family"
wins, the nearest such case's own fix is the verdict only if that case is at least ``MIN_FIX_SIMILARITY`` alike (a
fix for a cause no family describes carries over only to a nearly identical log). Silence gives no verdict.

The three numbers were chosen by leave-one-set-out on the sets collected before pool 2026-12j (tests/explain_loso.py,
``--tune``): K in 1, 3, 5, MIN_SIMILARITY in 0.2–0.5, MIN_FIX_SIMILARITY in 0.5–0.9. No combination raised the hits
over the rules alone (242 known + fix named, all within ±1); among the ties these gave the verdicts most often right
(10 of 27 added findings on those sets), and a higher fix threshold was no more precise.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from npulab.env.explain.casebase import LACKING, NONE, Case

K = 3
MIN_SIMILARITY = 0.5
MIN_FIX_SIMILARITY = 0.5


@dataclass(frozen=True)
class Verdict:
    """What the nearest cases say: a family (``family``) or a reported fix (``fix``), the cases behind it and how
    alike the nearest of them is."""

    family: str
    fix: str
    cases: tuple[Case, ...]
    similarity: float


def decide(neighbours: list[tuple[float, Case]], k: int = K, min_similarity: float = MIN_SIMILARITY,
           min_fix_similarity: float = MIN_FIX_SIMILARITY) -> Verdict | None:
    """The verdict of the ``k`` nearest of ``neighbours`` (most similar first), or None."""
    voters = [(s, c) for s, c in neighbours[:k] if s >= min_similarity]
    votes: dict[str, float] = defaultdict(float)
    for s, case in voters:
        for label in case.families or (case.label,):
            votes[label] += s
    if not votes:
        return None
    winner = max(votes, key=lambda label: (votes[label], label == NONE))  # a tie goes to silence
    if winner == NONE:
        return None
    if winner == LACKING:
        s, case = next((s, c) for s, c in voters if c.label == LACKING)
        return Verdict("", case.fix, (case,), s) if case.fix and s >= min_fix_similarity else None
    backers = tuple(c for _, c in voters if winner in c.families)
    return Verdict(winner, "", backers, max(s for s, c in voters if winner in c.families))
