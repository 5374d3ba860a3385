"""An aclnn call that failed on a requirement its inner error states: ``call aclnnX failed`` (torch_npu's
``NPU function error``, any return code: 161002, or the 561002 of a tiling check) with CANN's own error text, under
an ``E?????`` code, saying what an input must be ("must be same equal 192/128/64", "has 1 uncontiguous input",
"only support …"). CANN's aclnn interfaces check their inputs before they run (two-phase interface: the
GetWorkspaceSize phase validates shapes, data types, formats and layouts) and report a failed check as text under an
inner-error code; the fix is the catalog's ``aclnn_param_check`` (read the requirement, fix the caller's shapes or
types), its reading of the line added as a note. It reads before the exception rule (whose reading of "must be …"
is a generic value check); a requirement on a data type is left to the capability rule (``dtype_unsupported``, which
suppresses this family in error_catalog.yaml). Data: npulab/data/explain_rules.yaml ``requirement_check``."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "aclnn_requirement"
_CALL = re.compile(r"\bcall (aclnn\w+) failed")
_CANN_CODE = re.compile(r"\bE[0-9A-Z]\d{4}\b")  # CANN's error code of the text (EZ9999, E89999, EZ1001 …)
# what the text requires of an input, in the words CANN's op checks use
_REQUIRES = re.compile(r"(?i)\b(?:must|should)(?: not)? (?:be|equal|have|match|satisfy)\b[^[]{0,120}|"
                       r"\bonly supports?\b[^[]{0,120}|\bhas \d+ uncontiguous inputs?\b[^[]{0,80}")
# a requirement on a data type is the capability rule's reading (``dtype_unsupported``): left to it
_DTYPE = re.compile(r"(?i)\b(?:dtype|data ?type|b?float\d*|bf16|fp\d+|u?int\d+|double|complex\d*)\b")


def read(line: str) -> dict | None:
    call = _CALL.search(line)
    if call:
        return {"call": call.group(1), "focus": call.group(0)}
    if _CANN_CODE.search(line):
        m = _REQUIRES.search(line)
        if m and not _DTYPE.search(line):
            return {"requires": m.group(0).strip(), "focus": m.group(0)}
    return None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    call = next((h.facts["call"] for h in hits if "call" in h.facts), None)
    requires = [h for h in hits if "requires" in h.facts]
    if call is None or not requires:
        return None
    note = t("explain.requirement_check.note", call=call, requires=requires[0].facts["requires"])
    return rule_finding(NAME, t("explain.requirement_check.title"), note, note, requires,
                        rules_data()["requirement_check"]["sources"], family="aclnn_param_check", note=note)


RULE = Rule(NAME, (b"call aclnn", b"must", b"should", b"only support", b"uncontiguous"), read, finding,
            needs_error=True, most=6)
