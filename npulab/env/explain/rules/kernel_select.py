"""MindSpore's kernel selection on Ascend that found no kernel for an operator, in the words its releases print:

- up to 2.3 (``kernel_select_ascend.cc`` ``CollectNotMatchMessage``): "Can not select a valid kernel info for [Op]
  in AI CORE or AI CPU kernel info candidates list", then the candidates as ``(<Int16xDefaultFormat>, …) -> (…)``
  rows; and "Can not find any available kernel info for: Op. Maybe the operator is not supported on Ascend
  platform." when neither AI Core nor AI CPU has the operator at all;
- from 2.4 (``ge_kernel_executor.cc`` ``PrintQueryAclTypeErr``): "The current [Op] operator did not match any
  operator prototype library. The reason is:", then "The supported input and output data types for the current
  operator are:", ``InputDesc [i] support {…}`` rows, "But current operator's input and output data types is:" and
  ``InputDesc [i] is T`` rows — or, as the reason, "The current operator needs to be supplemented with an adapter";
  the exception it raises (``kernel_select_ascend.cc`` ``CollectNotMatchMessage``, under "Ascend operator selection
  failed info:" when the CPU back-off failed too) starts with the reason and "node is <full name>".

A kernel that exists but not for the given data types is ``dtype_unsupported`` (MindSpore's FAQ "Kernel Select
Failed"); an operator with no kernel at all on Ascend is ``op_fallback``. The note names the operator and the data
types the log lists (supported and given). Data: npulab/data/explain_rules.yaml ``kernel_select``."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "kernel_select"
_NO_VALID = re.compile(r"Can ?not select a valid kernel info for \[([^\]\s]{1,120})\]")
_NO_KERNEL = re.compile(r"Can ?not find any available kernel info for:? ?([\w/.-]{1,120})")
_NO_PROTOTYPE = re.compile(r"current \[([^\]\s]{1,120})\] operator did not match any operator prototype library")
# the exception's own first line (2.4+ CollectNotMatchMessage): the reason, then "node is <full name>"
_TYPES_OF_NODE = re.compile(r"data types for the current operator are: node is ([^\s,]{1,120})")
_ADAPTER_OF_NODE = re.compile(r"supplemented with an adapter, please check in .transform. directory\. ?node is ([^\s,]{1,120})")
# the reason 2.4+ gives when the graph engine has no adapter (no prototype) for the operator at all
_ADAPTER = "needs to be supplemented with an adapter"
# the rows under the header: a candidate "(<Int16xDefaultFormat>, <Int16xNC1HWC0>, …) -> (…)" (its inputs, before
# "->"), "InputDesc [1] support {float16,float,}", "InputDesc [0] is Float32"
_CANDIDATE = re.compile(r"^\s*\(<[A-Za-z]+\d*x\w+>")
_CANDIDATE_TYPE = re.compile(r"<([A-Za-z]+\d*)x\w+>")
_SUPPORTED = re.compile(r"^\s*InputDesc \[(\d+)\] support \{([\w,\s]{1,200})\}")
_GIVEN = re.compile(r"^\s*InputDesc \[(\d+)\] is (\w{1,20})\s*$")


def _op(name: str) -> str:
    """The operator's type from its full name: ``Default/AvgPool3DGrad-op507`` → ``AvgPool3DGrad``."""
    return re.sub(r"-op\d+$", "", name.rsplit("/", 1)[-1])


def read(line: str) -> dict | None:
    for pattern, kind in ((_NO_VALID, "dtype"), (_TYPES_OF_NODE, "dtype"), (_NO_PROTOTYPE, "prototype"),
                          (_NO_KERNEL, "op"), (_ADAPTER_OF_NODE, "op")):
        m = pattern.search(line)
        if m:
            return {"op": _op(m.group(1).rstrip(".")), "kind": kind, "focus": m.group(0)}
    if _ADAPTER in line:
        return {"adapter": True, "focus": _ADAPTER}
    if _CANDIDATE.match(line):  # one candidate: the data types of its inputs, as a tuple
        types = _CANDIDATE_TYPE.findall(line.split("->", 1)[0])
        return {"supported": f"({', '.join(types)})", "focus": line.split("->", 1)[0][:40]}
    m = _SUPPORTED.match(line)
    if m:
        types = ", ".join(x.strip() for x in m.group(2).split(",") if x.strip())
        return {"supported": f"InputDesc [{m.group(1)}] {{{types}}}", "focus": m.group(0)}
    m = _GIVEN.match(line)
    if m:
        return {"given": f"InputDesc [{m.group(1)}] {m.group(2)}", "index": m.group(1), "focus": m.group(0)}
    return None


def _types(hits: list[RuleHit], key: str) -> str:
    """What the rows name, in order, once each; a given type once per input (MindSpore prints the outputs' rows
    under the same ``InputDesc`` label after the inputs')."""
    rows = [h.facts for h in hits if key in h.facts]
    first = {}
    for row in rows:
        first.setdefault(row.get("index", row[key]), row[key])
    return t("explain.kernel_select.join").join(first.values())


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    head = next((h for h in hits if "op" in h.facts), None)
    if head is None:  # rows of a table without the message that heads it: not this message
        return None
    op, kind = head.facts["op"], head.facts["kind"]
    if kind == "prototype":  # the reason follows on its own lines: no adapter at all, or the data types it lists
        if any("adapter" in h.facts for h in hits):
            kind = "op"
        elif any("supported" in h.facts or "given" in h.facts for h in hits):
            kind = "dtype"
        else:
            return None
    if kind == "op":
        note = t("explain.kernel_select.no_kernel", op=op)
        family = "op_fallback"
    else:
        note = t("explain.kernel_select.no_match", op=op)
        supported, given = _types(hits, "supported"), _types(hits, "given")
        if supported:
            note += t("explain.kernel_select.supported", types=supported)
        if given:
            note += t("explain.kernel_select.given", types=given)
        note += t("explain.kernel_select.change", op=op)
        family = "dtype_unsupported"
    return rule_finding(NAME, note, note, note, [head], rules_data()["kernel_select"]["sources"], family=family,
                        note=note)


RULE = Rule(NAME, (b"valid kernel info", b"available kernel info", b"operator prototype library", b"object_type:",
                   b"data types for the current operator are: node is", _ADAPTER.encode(),
                   b"inputdesc ["), read, finding, most=12)
