"""An Ascend environment variable set to a value its documentation does not allow (``export
ASCEND_RT_VISIBLE_DEVICES=1,0``: CANN takes only an ascending list): the value grammar of npulab/data/env_vars.yaml
(``values``, each with its documented source) and its checker are lint-npu's (npulab.env.value_grammar), as are the
shell assignment forms; a variable that belongs to a catalog family reports that family (npulab/data/explain_rules.yaml
``variables``)."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import localized, t
from npulab.env.env_values import Setting, checkable, shell_settings
from npulab.env.env_vars import table
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import advice
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data
from npulab.env.value_grammar import problem

NAME = "variable_value"


@functools.cache
def _grammars() -> dict[str, dict]:
    return table().get("values", {})


# what may stand before an assignment that a user ran: a prompt, export / ENV / env, other assignments of the same
# command ("$ export A=1", "ENV A=1", "A=1 B=2 python x.py"); a message that quotes a value ("…, HCCL_BUFFSIZE=256MB")
# is not a setting
_COMMAND_PREFIX = re.compile(r"\s*(?:[$#>!%]+\s*)?(?:(?:export|ENV|env|RUN|sudo)\s+|[A-Z][A-Z0-9_]*=\S*\s+)*")


def user_settings(line: str) -> list[Setting]:
    """The assignments of a command line in the log (lint-npu's shell forms, at the start of a command)."""
    return [s for s in shell_settings([(1, line)])
            if _COMMAND_PREFIX.fullmatch(line[:max(0, line.find(f"{s.name}="))])]


def read(line: str) -> dict | None:
    if advice.read(line):  # "please set ASCEND_LAUNCH_BLOCKING=1.": the message's own advice, not a setting
        return None
    for setting in user_settings(line):
        spec = _grammars().get(setting.name)
        value = setting.value.rstrip(".,;:。，；：")  # a sentence's own punctuation after a value in prose
        if spec is None or not checkable(value):
            continue
        why = problem(value, spec)
        if why:
            return {"variable": setting.name, "value": value, "why": why, "source": localized(spec, "source"),
                    "focus": setting.name}
    return None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    data = rules_data()["variables"]
    fields = {k: hit[k] for k in ("variable", "value", "why", "source")}
    cause, fix = t("explain.values.cause", **fields), t("explain.values.fix", **fields)
    return rule_finding(NAME, t("explain.values.title", **fields), cause, fix, hits, data["sources"],
                        family=data["families"].get(hit["variable"]), note=t("explain.rule.note_pair", cause=cause, fix=fix))


RULE = Rule(NAME, (b"ascend_", b"hccl_", b"hccn_", b"acl_", b"npu_", b"task_queue", b"inf_nan", b"cpu_affinity",
                   b"combined_", b"multi_stream", b"per_stream", b"streams_per"), read, finding)
