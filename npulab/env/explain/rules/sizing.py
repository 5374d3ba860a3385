"""A size the message says is too small or too large and names by an environment variable's form (capitals and
underscores): ``HCCL_BUFFSIZE_EP is too SMALL, … NEEDED_… = 600MB, HCCL_BUFFSIZE=256MB``. The fix is that
variable: the message names it, and often the value it needed and the value it had. When the named quantity is a
derived one (``HCCL_BUFFSIZE_EP``) and the line shows the setting it comes from (``HCCL_BUFFSIZE=256MB``), the
setting is what the user changes."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding

NAME = "size_setting"
_TOO = re.compile(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s+(?:is|was|are)\s+too\s+(small|large|big|low|high)\b", re.IGNORECASE)
_ASSIGNED = re.compile(r"\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s*=\s*(\d[\w.]*)")
_NEEDED = re.compile(r"\b(?:NEEDED|REQUIRED|need(?:ed|s)?|requires?d?)\w*\b[^=]{0,200}=\s*(\d[\w.]*)", re.IGNORECASE)
SOURCES = ["https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850/maintenref/envvar/envref_07_0001.html"]


def read(line: str) -> dict | None:
    m = _TOO.search(line)
    if not m or not m.group(1).isupper():
        return None
    named, way = m.group(1), m.group(2).lower()
    variable, value = named, None
    for a in _ASSIGNED.finditer(line):
        if a.group(1) == named or named.startswith(a.group(1) + "_"):
            variable, value = a.group(1), a.group(2)
            break
    needed = _NEEDED.search(line)
    return {"named": named, "variable": variable, "value": value, "needed": needed.group(1) if needed else None,
            "raise": way in ("small", "low"), "focus": named}


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    var, value, needed = hit["variable"], hit["value"] or "?", hit["needed"] or "?"
    if hit["raise"]:
        cause = t("explain.rule.size.cause_small", named=hit["named"], variable=var, value=value, needed=needed)
        fix = t("explain.rule.size.fix_raise", variable=var, needed=needed)
    else:
        cause = t("explain.rule.size.cause_large", named=hit["named"], variable=var, value=value, needed=needed)
        fix = t("explain.rule.size.fix_lower", variable=var, needed=needed)
    return rule_finding(NAME, t("explain.rule.size.title", variable=var), cause, fix, hits, SOURCES)


RULE = Rule(NAME, (b" too small", b" too large", b" too big", b" too low", b" too high"), read, finding,
            needs_error=True)
