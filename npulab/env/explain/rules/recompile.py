"""torch.compile's recompilation limit, a warning the PyTorch documentation asks the user to act on: ``torch._dynamo
hit config.cache_size_limit (8)`` / ``recompile_limit``: the function was recompiled for every new shape, dtype or
guard until the limit, and from then on runs eagerly (uncompiled) — on the NPU (torchair, torch.compile) the speed
falls back silently. The rule reads this warning although it is printed at WARNING level, in Ascend logs only."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding

NAME = "recompile_limit"
_LIMIT = re.compile(r"torch\._dynamo hit config\.(cache_size_limit|recompile_limit|accumulated_cache_size_limit)"
                    r"\s*\((\d+)\)")
SOURCES = ["https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html",
           "https://docs.pytorch.org/docs/stable/torch.compiler_dynamic_shapes.html"]


def read(line: str) -> dict | None:
    m = _LIMIT.search(line)
    return {"limit": m.group(1), "value": m.group(2), "focus": m.group(0)[:30]} if m else None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    return rule_finding(NAME, t("explain.rule.recompile.title"),
                        t("explain.rule.recompile.cause", limit=hit["limit"], value=hit["value"]),
                        t("explain.rule.recompile.fix", limit=hit["limit"]), hits, SOURCES)


RULE = Rule(NAME, (b"torch._dynamo hit config.",), read, finding, warnings=True)
