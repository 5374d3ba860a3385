"""Documented warnings of an NPU back end that a user acts on, although the run goes on: an operator the back end has
no NPU kernel for, run on the CPU instead, and a data type the device does not have, replaced by another. Each is
printed by the back end's own code (cited in npulab/data/explain_rules.yaml ``documented_warning``) and read at
WARNING level too. The finding is the catalog family the warning belongs to (``op_fallback``, ``dtype_unsupported``),
placed after every family an error line shows: in a log that also fails, the failure comes first.

- Paddle's kernel selection (paddle/fluid/framework/operator.cc, paddle/phi/core/kernel_factory.cc): ``missing NPU
  kernel: lookup_table, expected_kernel_key:…, fallbacking to CPU one!`` (another accelerator's device, XPU or GPU,
  is not the NPU's and is not read);
- torch_npu's ``to`` (NPUNativeOpApiFunctions::to, TORCH_NPU_WARN_ONCE): ``Device do not support double dtype now,
  dtype cast repalce with float.`` — float64 tensors moved to the NPU become float32.
"""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "documented_warning"
PRIORITY = 1  # after every catalog family and the inference-chip reading (2): a warning, not the failure
_PADDLE = re.compile(r"\bmissing (?:(\w+) )?kernel: ?([\w.]+)\s*,\s*expected_kernel_key.{0,400}?fallback(?:ing)? to CPU")
_OTHER_DEVICES = {"xpu", "gpu", "cuda", "gpudnn", "kps", "xpu_kp", "onednn", "cpu"}  # Paddle's other back ends
_DOUBLE = re.compile(r"(?i)device do not support double dtype now\W+dtype cast rep\w* with float")


def read(line: str) -> dict | None:
    m = _PADDLE.search(line)
    if m and (m.group(1) or "npu").lower() not in _OTHER_DEVICES:
        return {"kind": "fallback", "op": m.group(2), "focus": m.group(0)}
    m = _DOUBLE.search(line)
    if m:
        return {"kind": "double", "focus": m.group(0)}
    return None


def npu_stack(facts: dict) -> bool:
    """Whether the warning is the NPU back end's own words (torch_npu's cast; Paddle's names the NPU device)."""
    return facts.get("kind") == "double"


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    data = rules_data()["documented_warning"]
    first = hits[0].facts
    if first["kind"] == "fallback":
        ops = ", ".join(dict.fromkeys(h.facts["op"] for h in hits if h.facts["kind"] == "fallback"))
        note, family, sources = t("explain.warning.fallback", ops=ops), data["fallback"], data["fallback_sources"]
    else:
        note, family, sources = t("explain.warning.double"), data["double"], data["double_sources"]
    found = rule_finding(NAME, note, note, note, [h for h in hits if h.facts["kind"] == first["kind"]], sources,
                         family=family, note=note)
    found.priority = PRIORITY
    return found


RULE = Rule(NAME, (b"fallbacking to cpu", b"fallback to cpu", b"double dtype now"), read, finding, warnings=True)
