"""An aclnn operator's first phase that failed with no reason from CANN: MindSpore's "aclnnXGetWorkSpaceSize call
failed, please check!" (its aclnn wrapper raises it when ``aclnnXGetWorkspaceSize`` does not return success). Where
CANN states why (a check under an ``E?????`` code: a data type, a shape, a layout), the rules of that text read it;
where the log holds no such code, MindSpore's FAQ gives the documented cause: the installed CANN is older than the
operator MindSpore calls (``ops.ring_attention_update`` needs CANN 8.2.RC1; overflow detection's ``aclnnAllFinite``
a CANN that matches the MindSpore release) — ``version_mismatch``, the operator named in the note. torch_npu's twin
("aclnnX or aclnnXGetWorkspaceSize not in libopapi.so") is the catalogue's own pattern of the family.
Data: npulab/data/explain_rules.yaml ``workspace``."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.registry import registry
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "aclnn_workspace"
_CALL = re.compile(r"\b(aclnn\w+?)GetWorkSpaceSize call failed", re.IGNORECASE)
_CANN_CODE = re.compile(r"\bE[0-9A-Z]\d{4}\b")  # CANN's own reason (EZ1001, EZ9999, E39999 …)


def read(line: str) -> dict | None:
    m = _CALL.search(line)
    if m:
        return {"call": m.group(1), "focus": m.group(0)}
    m = _CANN_CODE.search(line)
    return {"reason": m.group(0), "focus": m.group(0)} if m else None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    calls = [h for h in hits if "call" in h.facts]
    if not calls or any("reason" in h.facts for h in hits):
        return None  # CANN said why the call failed: the reading of that text is the finding
    note = t("explain.workspace.note", call=calls[0].facts["call"])
    return rule_finding(NAME, note, note, note, calls, rules_data()["workspace"]["sources"], family="version_mismatch",
                        note=note)


NEEDLES = (b"getworkspacesize call failed", *sorted({code.lower().encode() for code in registry()}))
RULE = Rule(NAME, NEEDLES, read, finding, most=6)
