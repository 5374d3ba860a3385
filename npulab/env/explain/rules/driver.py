"""A driver call's return code read through the driver's own enumeration (data: ``npulab/data/driver_error_codes.yaml``,
extracted by ``scripts/extract_driver_error_codes.py`` from CANN's runtime repository). Every call of the Ascend
driver's user-space API (``halGetDeviceInfo``, ``drvGetDevNum``, ``halMemAlloc`` …) returns a ``drvError_t``, and the
runtime and frameworks print it when the call fails (``halGetDeviceInfo get device type version failed , ret:87``,
``halMemAlloc failed: … drvRetCode=6``). A code whose enumerator names a catalogue family's cause
(``explain_rules.yaml`` ``driver.families``: ``DRV_ERROR_RESOURCE_OCCUPIED`` a device held elsewhere,
``DRV_ERROR_OUT_OF_MEMORY``, the permission codes, ``DRV_ERROR_NOT_SUPPORT``) reports that family, the call and the
code's name added to its fix; any other code is decoded in the codes list only (``codes.py``).

Read on error lines that name a driver call, the return value after the call's name."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import t
from npulab.env.explain.codes import driver_codes
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "driver_code"
_CALL = re.compile(r"\b((?:hal|drv)[A-Z]\w*)")
# the value the call returned, as runtimes print it: "ret:87", "ret = 87", "drvRetCode=6", "result=87", "error code is
# 87", "errno 87", "返回 87"; a hexadecimal or decimal fraction is not one
_RETURN = re.compile(r"(?i)(?:\bret(?:code)?|drvRetCode|\bresult|\berror[ _]?code(?:\s+is)?|\berrno|返回(?:值)?)"
                     r"\s*(?:is\s*|=\s*|:\s*|：\s*|\[\s*|为\s*|\(\s*)?(\d{1,5})(?![\dx.])")


@functools.cache
def families() -> dict[str, str]:
    """The catalogue family each mapped enumerator name denotes."""
    return dict(rules_data()["driver"]["families"])


def read(line: str) -> dict | None:
    call = _CALL.search(line)
    if call is None:
        return None
    m = _RETURN.search(line, call.end())
    entry = driver_codes()["codes"].get(int(m.group(1))) if m else None
    if entry is None or entry["name"] not in families():
        return None
    return {"call": call.group(1), "code": int(m.group(1)), "name": entry["name"],
            "meaning": entry.get("comment") or entry["name"], "family": families()[entry["name"]], "focus": m.group(0)}


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    note = t("explain.driver.note", call=hit["call"], code=hit["code"], name=hit["name"], meaning=hit["meaning"])
    same = [h for h in hits if h.facts["code"] == hit["code"]]
    return rule_finding(NAME, note, note, note, same, [driver_codes()["source"]], family=hit["family"], note=note)


RULE = Rule(NAME, (b"hal", b"drv"), read, finding, needs_error=True)
