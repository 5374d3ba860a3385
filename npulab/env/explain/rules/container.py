"""The NPU not detected, found or seen, in a log that shows a container (docker, Kubernetes, "容器"). A container
sees a device only when its device nodes (/dev/davinciN, /dev/davinci_manager, /dev/devmm_svm, /dev/hisi_hdc) and the
driver's libraries and tools are mounted into it, as the documented ``docker run`` lines do: the catalog's
``driver_not_mounted`` family (data: npulab/data/explain_rules.yaml ``container``). Without a container the line is
left to the other readings (a driver, a device list, a version)."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "container_devices"
_DEVICE = r"(?:npus?|ascend(?: npus?| devices?| cards?)?|davinci\w*|devices?|cards?|chips?)"
_NOT_SEEN = re.compile(r"(?i)\b(?:cannot|can't|could not|couldn't|unable to|fails? to|failed to|does not|doesn't|did not|"
                       r"didn't) (?:detect|find|see|recogni[sz]e|discover|list) (?:the |any |an? )?" + _DEVICE + r"\b|"
                       r"\bno (?:npu |ascend |davinci )?(?:devices?|npus?|cards?) (?:was |were |is |are )?"
                       r"(?:found|detected|available|visible)\b|"
                       r"\b(?:npus?|davinci\w*|ascend devices?) (?:is |are |was |were )?not (?:found|detected|visible)\b|"
                       r"(?:识别不到|检测不到|找不到|看不到|没有检测到|未检测到)\s*(?:NPU|npu|设备|卡|昇腾)")


def read(line: str) -> dict | None:
    m = _NOT_SEEN.search(line)
    return {"focus": m.group(0)} if m else None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    if "container" not in facts.frameworks:
        return None
    note = t("explain.container.note")
    data = rules_data()["container"]
    return rule_finding(NAME, t("explain.container.title"), note, note, hits, data["sources"], family=data["family"],
                        note=note)


RULE = Rule(NAME, (b"detect", b"find", b"see", b"recogni", b"discover", b"list", b"found", b"available", b"visible",
                   "识别不到".encode(), "检测不到".encode(), "找不到".encode(), "看不到".encode(), "检测到".encode()),
            read, finding)
