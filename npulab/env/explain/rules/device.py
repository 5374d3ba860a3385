"""torch does not know the ``npu`` device: ``Expected one of cpu, cuda, … device type at start of device string: npu``,
``Invalid device string: 'npu:0'``, ``module 'torch' has no attribute 'npu'``. The ``npu`` device type is registered
by the torch_npu plugin when it is imported (PyTorch's PrivateUse1 backend): these are torch's words for a process that
never imported torch_npu (or whose torch_npu failed to load). The line itself is Ascend evidence: it names the NPU.
When the traceback shows the code choosing ``npu`` by a check it never called (rules/choice.py), that comes first."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding

NAME = "npu_device_unknown"
_UNKNOWN = re.compile(r"device type at start of device string:\s*['\"]?(npu[:\d]*)|"
                      r"Invalid device string:?\s*['\"](npu[:\d]*)['\"]|"
                      r"module ['\"]torch['\"] has no attribute ['\"](npu)['\"]")
SOURCES = ["https://github.com/Ascend/pytorch/blob/master/README.md",
           "https://docs.pytorch.org/tutorials/advanced/privateuseone.html"]


def read(line: str) -> dict | None:
    m = _UNKNOWN.search(line)
    if not m:
        return None
    return {"device": next(g for g in m.groups() if g), "focus": m.group(0)[:30]}


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    device = hits[0].facts["device"]
    fix = t("explain.rule.npu_device.fix")
    if facts.uncalled is not None:  # the code chose "npu" by a check it never called (rules/choice.py)
        check = facts.uncalled.facts["check"]
        fix = t("explain.rule.npu_device.uncalled", check=check, line=facts.uncalled.line) + fix
    return rule_finding(NAME, t("explain.rule.npu_device.title", device=device),
                        t("explain.rule.npu_device.cause", device=device), fix, hits, SOURCES)


RULE = Rule(NAME, (b"device string", b"has no attribute 'npu'", b'has no attribute "npu"'), read, finding)
