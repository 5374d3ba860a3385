"""Memory and resource limits of kernels: which memory ran out — the Unified Buffer of a core (a tile too big),
an operator's workspace, the device's HBM or the host's memory — and the knob that sizes it
(npulab/data/explain_rules.yaml ``resource``). HBM exhaustion is the catalog's ``npu_oom`` family."""

from __future__ import annotations

import re

from npulab.core.i18n import localized, t
from npulab.env.explain.catalog import tidy
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "resource_limit"
ORDER = ("ub", "workspace", "host", "hbm")  # most specific first
_WORKSPACE_SHORT = re.compile(r"(?i)alloc|memory|exceed|insufficient|not enough|out of")
_NUMBERS = re.compile(r"(?i)requires?\s+(\d+)\s*(bits|bytes|B|KB|MB)?[^\d]{1,40}?(\d+)\s*(bits|bytes|B|KB|MB)?\s+available")


def read(line: str) -> dict | None:
    lower = line.lower()
    if "cuda out of memory" in lower:
        return None
    kinds = rules_data()["resource"]["kinds"]
    for kind in ORDER:
        word = next((w for w in kinds[kind]["words"] if w in lower), None)
        if word and (kind != "workspace" or _WORKSPACE_SHORT.search(line)):
            m = _NUMBERS.search(line)
            numbers = t("explain.resource.numbers", need=m.group(1), unit=m.group(2) or "", have=m.group(3),
                        have_unit=m.group(4) or m.group(2) or "").strip() if m else ""
            return {"kind": kind, "numbers": numbers, "focus": word}
    return None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = min((h.facts for h in hits), key=lambda f: ORDER.index(f["kind"]))
    kind = rules_data()["resource"]["kinds"][hit["kind"]]
    label = localized(kind, "label")
    amounts = t("explain.resource.amounts", numbers=hit["numbers"]) if hit["numbers"] else ""
    cause = t("explain.resource.cause", label=label, amounts=amounts)
    fix = tidy(localized(kind, "knob"))
    return rule_finding(NAME, t("explain.resource.title", label=label), cause, fix, hits, kind["sources"],
                        family=kind.get("family"), note=t("explain.resource.note", label=label, amounts=amounts, fix=fix))


RULE = Rule(NAME, (b"ub ", b"unified buffer", b"workspace", b"memory", b"alloc", b"mem size", b"host memory"),
            read, finding, needs_error=True)
