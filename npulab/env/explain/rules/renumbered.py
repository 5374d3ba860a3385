"""Device ids that do not exist inside a container. Ascend Docker Runtime mounts the physical chips that
``ASCEND_VISIBLE_DEVICES`` lists (``=5``: /dev/davinci5) into the container; inside it CANN numbers the devices it
sees by logical id, 0 to N-1 where N is the number of devices in the machine, VM or container (CANN's environment
variable reference, ASCEND_DEVICE_ID and ASCEND_RT_VISIBLE_DEVICES). So ``ASCEND_RT_VISIBLE_DEVICES=5`` (or
``ASCEND_DEVICE_ID=5``) beside ``ASCEND_VISIBLE_DEVICES=5`` names a device the container does not have: the process
sees no NPU (and a framework that falls back runs on the CPU). Read from the settings the log shows (the assignment
forms of lint-npu, as ``values`` reads them), only where the log shows a container; the catalog's ``visible_devices``
family (data: npulab/data/explain_rules.yaml ``renumbered``)."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data
from npulab.env.explain.rules.values import user_settings

NAME = "container_device_ids"
MOUNTED = "ASCEND_VISIBLE_DEVICES"  # Ascend Docker Runtime's: physical chip ids mounted into the container
LOGICAL = ("ASCEND_RT_VISIBLE_DEVICES", "ASCEND_DEVICE_ID")  # CANN's: logical ids inside it
_IDS = re.compile(r"^\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*$")  # "0", "1,3", "0-2,4" (Ascend Docker Runtime's forms)
MAX_IDS = 64


def ids(value: str) -> list[int] | None:
    """The device ids of a list such as ``0-2,4`` (None when the value is not such a list)."""
    value = value.strip().rstrip(".,;:。，；：")
    if not _IDS.match(value):
        return None
    out: list[int] = []
    for part in value.split(","):
        low, _, high = part.partition("-")
        out.extend(range(int(low), int(high or low) + 1)[:MAX_IDS])
    return out[:MAX_IDS]


# the container's own settings on its start line: `docker run -e ASCEND_VISIBLE_DEVICES=0-3`, `--env …`, `ctr … --env …`
_RUN_ENV = re.compile(r"(?:^|\s)(?:-e|--env)[\s=]+[\"']?(" + "|".join((MOUNTED, *LOGICAL)) + r")=([\d,-]+)")


def read(line: str) -> dict | None:
    found = [(s.name, s.value) for s in user_settings(line)] + [m.groups() for m in _RUN_ENV.finditer(line)]
    for name, value in found:
        if name in (MOUNTED, *LOGICAL) and ids(value):
            return {"variable": name, "value": value.strip(), "focus": name}
    return None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    if "container" not in facts.frameworks:
        return None
    mounted = next((h for h in hits if h.facts["variable"] == MOUNTED), None)
    logical = next((h for h in hits if h.facts["variable"] in LOGICAL), None)
    if mounted is None or logical is None:
        return None
    count, wanted = len(ids(mounted.facts["value"])), ids(logical.facts["value"])
    missing = [i for i in wanted if i >= count]
    if not missing:
        return None
    note = t("explain.renumbered.note", mounted=mounted.facts["value"], count=count, last=count - 1,
             variable=logical.facts["variable"], value=logical.facts["value"])
    data = rules_data()["renumbered"]
    return rule_finding(NAME, note, note, note, [mounted, logical], data["sources"], family=data["family"], note=note)


RULE = Rule(NAME, (b"ascend_visible_devices", b"ascend_rt_visible_devices", b"ascend_device_id"), read, finding,
            root=False)
