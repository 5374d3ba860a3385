"""A header of the Ascend stack that the C/C++ compiler cannot find (GCC's ``fatal error: acl/acl.h: No such file or
directory``, Clang's ``fatal error: 'acl/acl.h' file not found``): which component installs it and how its include
directory gets on the compiler's search path — CANN's headers under ``${ASCEND_HOME_PATH}/include`` once its
``set_env.sh`` is sourced, NNAL/ATB's under ``${ATB_HOME_PATH}/include``, torch_npu's in its wheel's ``include``
folder (npulab/data/explain_rules.yaml ``header``). The compile-time twin of a library the loader cannot open."""

from __future__ import annotations

import re

from npulab.core.i18n import localized, t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "missing_header"
# GCC: "x.cpp:1:10: fatal error: acl/acl.h: No such file or directory"; Clang: "fatal error: 'acl/acl.h' file not found"
_MISSING = re.compile(r"\berror:\s*['\"]?([\w.+/-]+\.(?:h|hh|hpp|hxx|inc))['\"]?:?\s*(?:No such file or directory|file not found)")


def component(header: str) -> dict | None:
    """The component of the Ascend stack whose include tree holds the header (by its leading path or its name)."""
    for entry in rules_data()["header"]["components"]:
        if any(header == p or (p.endswith("/") and header.startswith(p)) for p in entry["headers"]):
            return entry
    return None


def read(line: str) -> dict | None:
    m = _MISSING.search(line)
    if m is None or component(m.group(1)) is None:
        return None
    return {"header": m.group(1), "focus": m.group(1)}


def npu_stack(facts: dict) -> bool:
    """Every header this rule reads belongs to the Ascend stack: the line itself is Ascend evidence."""
    return component(facts["header"]) is not None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    header = hits[0].facts["header"]
    owner = component(header)
    return rule_finding(NAME, t("explain.header.title", header=header),
                        t("explain.header.cause", header=header, name=owner["name"]),
                        t("explain.header.fix", header=header, remedy=localized(owner, "fix").strip()),
                        hits, [*rules_data()["header"]["sources"], *owner.get("sources", ())])


RULE = Rule(NAME, (b"no such file or directory", b"file not found"), read, finding)
