"""Graph capture and graph-mode failures (ACL graph / NPUGraph capture, torch.compile and TorchAir, MindSpore
GRAPH_MODE, vLLM-Ascend's graph mode): fall back to eager execution to confirm, and start from the operator or
call the line names — the one that could not be captured or compiled. The fallback is given for the frameworks
the log shows (npulab/data/explain_rules.yaml ``graph``)."""

from __future__ import annotations

import re

from npulab.core.i18n import localized, t
from npulab.env.explain.catalog import tidy
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "graph_capture"
_GRAPH = re.compile(r"(?i)captur|graph[ _]?mode|aclgraph|acl graph|npugraph|dynamo|call_function|unsupportedoperator|"
                    r"torchair|fullgraph|graph break|静态图|图模式|图捕获")
_TROUBLE = re.compile(r"(?i)error|fail|not support|unsupported|exception|cannot|can't|invalid")
_OPS = (re.compile(r"call_function\s+([\w.:]+)"), re.compile(r"UnsupportedOperatorException:?\s*([\w.:]+)"),
        re.compile(r"\b(_C\.\w+(?:\.\w+)?)"), re.compile(r"\b((?:rt|acl)[A-Z]\w+)\s*[:(]"),
        re.compile(r"(?:[Oo]p(?:type| type)?|operator)\s*[\[:]?\s*([A-Z][\w.:]+)"))
FRAMEWORK_ORDER = ("vllm", "acl", "torch", "mindspore")


def read(line: str) -> dict | None:
    if not (_GRAPH.search(line) and _TROUBLE.search(line)):
        return None
    op = next((m.group(1) for p in _OPS for m in [p.search(line)] if m), None)
    return {"op": op, "focus": op or _GRAPH.search(line).group(0)}


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    data = rules_data()["graph"]
    op = next((h.facts["op"] for h in hits if h.facts["op"]), None)
    seen = [f for f in FRAMEWORK_ORDER if f in facts.frameworks] or ["acl", "torch"]
    fallbacks = localized(data, "fallbacks")
    steps = [tidy(fallbacks[f]).rstrip("。.") for f in seen]
    if op:
        steps.append(localized(data, "find_op").format(op=f"`{op}`").rstrip("。."))
    title = t("explain.graph.title_op", op=op) if op else t("explain.graph.title")
    cause = t("explain.graph.cause", op=t("explain.graph.op", op=op) if op else "")
    return rule_finding(NAME, title, cause, t("explain.graph.fix", steps=t("explain.separator").join(steps)), hits,
                        data["sources"])


RULE = Rule(NAME, (b"captur", b"graph", b"dynamo", b"call_function", b"unsupportedoperator", b"torchair",
                   "图模式".encode(), "静态图".encode()), read, finding)
