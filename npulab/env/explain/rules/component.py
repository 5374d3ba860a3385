"""A component the error line names — a service, an operator or a subprocess — mapped to what it does and its
documented remedy (npulab/data/explain_rules.yaml ``component``): "Ascend Transfer Engine initialization failed"
names SGLang's PD-disaggregation transfer engine and the store address it needs, a failing ``GetNext`` names the
data-sink queue, vLLM's "Engine core initialization failed" names a subprocess whose own error is printed above.
A component marked ``summary`` only sums up earlier failures: it is reported only when nothing else was."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import localized, t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import package_index
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "component"
SUMMARY = "component_summary"  # the category of a summary component's finding


@functools.cache
def _components() -> tuple[tuple[dict, re.Pattern], ...]:
    return tuple((c, re.compile(c["match"])) for c in rules_data()["component"]["components"])


def read(line: str) -> dict | None:
    for data, pattern in _components():
        m = pattern.search(line)
        if m:
            requirement = next((g for g in m.groups() if g), None) if data.get("requirement") else None
            return {"id": data["id"], "focus": m.group(0), "requirement": requirement}
    return None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    wanted = hits[0].facts["id"]
    data = next(c for c, _ in _components() if c["id"] == wanted)
    same = [h for h in hits if h.facts["id"] == wanted]
    fix = localized(data, "fix")
    published = next((package_index.hint(h.facts["requirement"]) for h in same if h.facts.get("requirement")), None)
    if published:  # the course's stack table knows where the package the resolver did not find is published
        fix = f"{published} {fix}"
    found = rule_finding(NAME, t("explain.component.title", label=localized(data, "label")), localized(data, "cause"),
                         fix, same, data["sources"])
    if data.get("summary"):
        found.category = SUMMARY
    return found


RULE = Rule(NAME, tuple(n.encode() for c, _ in _components() for n in c["needles"]), read, finding, needs_error=True)
