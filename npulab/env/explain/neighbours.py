"""The finding of the nearest reported cases, for a log the catalog's families do not recognise.

When the catalog gives no family, the log's words (:mod:`npulab.env.explain.features`) are compared with the
labelled real logs of the case base (:mod:`npulab.env.explain.casebase`) and their vote
(:mod:`npulab.env.explain.vote`) may add one finding (kind ``case``): a family, with the catalog's cause and fix,
or, for a cause the catalog has no family for, the fix the nearest case's thread names. The finding says that it
comes from similar reported cases and cites their threads; it goes second, after the first reading of the error
lines themselves (first when there is none).
"""

from __future__ import annotations

from npulab.core.i18n import t
from npulab.env.explain.casebase import CaseIndex
from npulab.env.explain.catalog import Entry
from npulab.env.explain.matcher import Evidence, Finding
from npulab.env.explain.vote import Verdict, decide

POSITION = 1  # where the finding goes among those before the generic one (0: first)
MAX_CITED = 3


def case_finding(verdict: Verdict, entries: tuple[Entry, ...], evidence: list[Evidence]) -> Finding | None:
    """The finding that states a verdict (None for a family the catalog no longer has); ``evidence``: the log's lines
    that were compared (its root error line)."""
    cited = [c.url for c in verdict.cases[:MAX_CITED]]
    urls = t("explain.separator").join(cited)
    if not verdict.family:
        return Finding("case_fix", t("explain.case.fix_title"),
                       [], t("explain.case.fix_cause", similarity=verdict.similarity, url=urls),
                       t("explain.case.fix_fix", fix=verdict.fix, url=urls), evidence, cited, priority=-1, kind="case")
    entry = next((e for e in entries if e.id == verdict.family), None)
    if entry is None:
        return None
    return Finding(entry.id, t("explain.case.title", title=entry.title), [],
                   t("explain.case.cause", count=len(verdict.cases), similarity=verdict.similarity, cause=entry.cause),
                   entry.fix, evidence, cited + list(entry.sources), entry.priority, entry.casebook, kind="case")


def consult(findings: list[Finding], tokens: list[str], index: CaseIndex, entries: tuple[Entry, ...],
            evidence: list[Evidence]) -> None:
    """Add the nearest cases' finding to ``findings`` (in place) when the catalog gave no family and they agree; it
    goes at ``POSITION`` among the findings before the generic one (which stays last)."""
    if not index.cases or any(f.kind == "family" for f in findings):
        return
    verdict = decide(index.nearest(tokens, k=len(index.cases)))
    finding = case_finding(verdict, entries, evidence) if verdict else None
    if finding is not None:
        findings.insert(min(POSITION, sum(f.kind != "generic" for f in findings)), finding)
