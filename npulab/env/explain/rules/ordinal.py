"""Which device a process uses, by its index: an index of ``-1`` (``Could not compute stream ID for … on device -1``,
``device_id=-1``) means this process never set a device before it used one (torch_npu's current device is unset
until ``torch.npu.set_device``); an error line naming two NPU indices (``expects … on npu:15, was on npu:0``) means
a process computes on another index than the one it was given — the index mapping of ``ASCEND_RT_VISIBLE_DEVICES``
(indices count from 0 within the visible devices), the catalog's ``visible_devices`` family. Tensors found on two
devices of one operation are the exception rule's (it reads those lines first)."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.root import rank
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding

NAME = "device_unset"
FAMILY = "visible_devices"
_UNSET = re.compile(r"(?i)\b(?:on device|device[ _]?id|device)\s?[=(]?\s?-1\b|\bnpu:-1\b")
_TWO = re.compile(r"\bnpu:(\d+)\b.{1,80}?\bnpu:(\d+)\b")
SOURCES = ["https://docs.pytorch.org/docs/stable/generated/torch.cuda.set_device.html",
           "https://github.com/Ascend/pytorch/blob/master/README.md"]


def read(line: str) -> dict | None:
    if rank(line) == 0:
        return None
    m = _UNSET.search(line)
    if m:
        return {"kind": "unset", "focus": m.group(0)}
    m = _TWO.search(line)
    if m and m.group(1) != m.group(2):
        return {"kind": "other", "devices": [f"npu:{m.group(1)}", f"npu:{m.group(2)}"], "focus": m.group(0)[:30]}
    return None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    if hit["kind"] == "other":
        first, second = hit["devices"]
        return rule_finding(NAME, "", "", "", hits, SOURCES, family=FAMILY,
                            note=t("explain.rule.device_other.note", first=first, second=second))
    return rule_finding(NAME, t("explain.rule.device_unset.title"), t("explain.rule.device_unset.cause"),
                        t("explain.rule.device_unset.fix"), hits, SOURCES)


RULE = Rule(NAME, (b"device -1", b"device=-1", b"device_id=-1", b"device id -1", b"deviceid=-1", b"npu:-1", b"npu:"),
            read, finding)
