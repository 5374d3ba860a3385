"""An Ascend environment variable set under a name nothing reads, one letter away from a documented name
(``export ASCEND_RT_VISIBLE_DEVICE=0,1``): no error says so, the setting is ignored and the default holds. The
documented names are npulab/data/env_vars.yaml's (CANN's and torch_npu's references), the assignments those of a
command line (rules/values.py: ``export X=``, ``X=… cmd``) plus Python's ``os.environ["X"] = …``; a documented name that
belongs to a catalog family (``ASCEND_RT_VISIBLE_DEVICES`` → ``visible_devices``) reports that family
(npulab/data/explain_rules.yaml ``variables``)."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import t
from npulab.env.env_vars import is_checked, table
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data
from npulab.env.explain.rules.values import user_settings

NAME = "misspelt_variable"
_ENVIRON = re.compile(r"""environ(?:\[|\.setdefault\(|\.update\(\{?)\s*['"]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"]""")


@functools.cache
def _documented() -> tuple[frozenset[str], tuple[str, ...]]:
    data = table()
    return frozenset(v["name"] for v in data["variables"] if v.get("name")), tuple(data["families"])


def one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by inserting, deleting or replacing one character (``a != b``)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k in range(len(a)) if a[k] != b[k]), len(a))
    return a[i + (len(a) == len(b)):] == b[i + 1:]


def near_miss(name: str) -> str | None:
    """The documented variable one letter away from ``name``, when ``name`` is an Ascend-family name that is not."""
    documented, families = _documented()
    if name in documented or not is_checked(name, list(families)):
        return None
    return next((d for d in sorted(documented) if one_edit(name, d)), None)


def read(line: str) -> dict | None:
    names = [u.name for u in user_settings(line)] + _ENVIRON.findall(line)
    for name in names:
        documented = near_miss(name)
        if documented:
            return {"variable": name, "documented": documented, "focus": name}
    return None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    var, documented = hit["variable"], hit["documented"]
    data = rules_data()["variables"]
    cause = t("explain.misspelt.cause", variable=var, documented=documented)
    fix = t("explain.misspelt.fix", variable=var, documented=documented)
    return rule_finding(NAME, t("explain.misspelt.title", variable=var, documented=documented), cause, fix, hits,
                        data["sources"], family=data["families"].get(documented),
                        note=t("explain.rule.note_pair", cause=cause, fix=fix))


RULE = Rule(NAME, (b"ascend_", b"hccl_", b"hccn_", b"acl_", b"npu_"), read, finding)
