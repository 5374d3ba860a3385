"""The work found on the CPU instead of the NPU, said in words ("It is running on CPU", "falls back to CPU"; the
wording is root.CPU_RUN). Where the log shows a framework whose Ascend back end documents what it runs on the NPU
(llama.cpp's CANN back end: FP16, Q4_0 and Q8_0 models only), the finding quotes that; elsewhere the line is the root
error of the generic finding only (data: npulab/data/explain_rules.yaml ``cpu_fallback``)."""

from __future__ import annotations

import re

from npulab.core.i18n import localized, t
from npulab.env.explain.catalog import tidy
from npulab.env.explain.matcher import Finding
from npulab.env.explain.root import CPU_RUN
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "cpu_fallback"
_RUN = re.compile(r"(?i)" + CPU_RUN)


def read(line: str) -> dict | None:
    m = _RUN.search(line)
    return {"focus": m.group(0)} if m else None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    backend = next((b for b in rules_data()["cpu_fallback"]["backends"] if b["framework"] in facts.frameworks), None)
    if backend is None:
        return None
    remedy = tidy(localized(backend, "remedy"))
    return rule_finding(NAME, t("explain.fallback.title"), t("explain.fallback.cause"), remedy, hits, [backend["source"]])


RULE = Rule(NAME, (b"cpu",), read, finding)
