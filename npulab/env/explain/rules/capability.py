"""A capability mismatch: a line saying something is "not supported" / "unsupported" / "only supports" (or a user
asking whether it is supported: "支持 910A 吗？", "Does X support bf16?") and naming
what — a chip (SoC), a data type, a format, an operator, a version or a run mode. The finding says what is not
supported, on what (the chip when the line names one) and the documented way around it
(npulab/data/explain_rules.yaml ``capability``). A chip that is itself unsupported, a data type and an operator
lead to their catalog families."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import language, localized, t
from npulab.env.explain.catalog import tidy
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data, sentence

NAME = "unsupported_capability"
SAYS_UNSUPPORTED = re.compile(r"(?i)\b(?:not\s+supported|unsupported|unsupport|not\s+support|do(?:es)?\s*n[o']t\s+support|"
                              r"can\s?not\s+support|only\s+supports?|only\s+supported\s+(?:on|for|with|by)|is\s+not\s+implemented)\b|不支持"
                              # a user's question whether it is supported (an issue title): "… 支持 910A 吗？", "Does X support Y?"
                              r"|支持[^。？?！!\n]{1,40}?[吗么]|\b(?:[Dd]oes|[Dd]o|[Ii]s|[Aa]re|[Cc]an)\b[^.?!\n]{1,60}?\bsupport(?:ed)?\b[^.?!\n]{0,60}\?")
_ONLY_ON = re.compile(r"(?i)only\s+supported\s+(?:on|for|with|by)\s+([^.;\n\"]{1,120})")  # … the list after "on"
_SOC_ITSELF = re.compile(r"(?i)unsupported\s+soc|soc[_ ]?version|support\s+soc|SOC_VERSION|support for Ascend")
# which noun the line is about, most telling first; the chip comes first only when the chip itself is unsupported
ORDER = ("dtype", "shape", "format", "op", "version", "mode", "feature", "soc")


@functools.cache
def _nouns() -> dict[str, tuple[re.Pattern, ...]]:
    # ASCII word boundaries: a noun glued to Chinese text ("支持bfloat16", "昇腾310P3") is still a word
    return {kind: tuple(re.compile(p, re.ASCII) for p in pats) for kind, pats in rules_data()["capability"]["nouns"].items()}


def _first(kind: str, text: str) -> str | None:
    for pattern in _nouns()[kind]:
        m = pattern.search(text)
        if m:
            return (m.group(1) if m.groups() else m.group(0)).strip()
    return None


def read(line: str) -> dict | None:
    m = SAYS_UNSUPPORTED.search(line)
    if not m:
        return None
    found = {kind: _first(kind, line) for kind in ORDER}
    soc = found["soc"]
    if soc and _SOC_ITSELF.search(line):
        kind = "soc"
    else:
        kind = next((k for k in ORDER if found[k] and k != "soc"), "soc" if soc else None)
    if kind is None:  # nothing named: the generic finding quotes the line, a rule would add nothing
        return None
    where = _ONLY_ON.search(line, m.start())
    return {"kind": kind, "what": found[kind], "on": soc if kind != "soc" else None, "focus": m.group(0),
            "only": m.group(0).lower().startswith("only"), "where": where.group(1).strip() if where else None}


SPECIFIC = ("soc", "dtype")  # kinds that name what to change, before any other kind


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    # the most specific reading first: a line naming the chip or the data type says more than one naming only the op
    hit = next((h.facts for k in SPECIFIC for h in hits if h.facts["kind"] == k), hits[0].facts)
    data = rules_data()["capability"]
    sources = list(data["kinds"]["version"]["sources"])
    kind = data["kinds"][hit["kind"]]
    label = localized(kind, "label")
    on = t("explain.capability.on", chip=hit["on"]) if hit.get("on") else ""
    if hit.get("where"):  # "X is only supported on A, B or C": X exists, but not on this device
        said = t("explain.capability.only_on", label=label, what=hit["what"], where=hit["where"])
    elif hit.get("only"):
        said = t("explain.capability.only", label=label, what=hit["what"])
    else:
        said = t("explain.capability.unsupported", label=label, what=hit["what"])
    title = sentence(t("explain.capability.title", said=said.replace("`", ""), on=on))
    cause = t("explain.capability.cause", said=said, on=on, label=label)
    fix = tidy(localized(kind, "alternatives"))
    for special in kind.get("specific", ()):  # a documented NPU counterpart of the named feature
        if re.search(special["match"], hit["what"] or ""):
            fix = f"{tidy(localized(special, 'alternative'))}{_space()}{fix}"
            sources = [*special["sources"], *sources]
            break
    family = kind.get("family") or (kind.get("family_on_chip") if hit.get("on") else None)
    note = t("explain.capability.note", said=said, on=on)
    if kind.get("note_alternatives"):  # the family's own fix is general: the way around this capability goes with it
        note = f"{note}{_space()}{fix}"
    return rule_finding(NAME, title, cause, fix, hits, [*kind["sources"], *sources], family=family, note=note)


def _space() -> str:
    """Between two English sentences a space (Chinese joins them directly)."""
    return " " if language() == "en" else ""


RULE = Rule(NAME, (b"support", b"not implemented", "支持".encode()), read, finding)
