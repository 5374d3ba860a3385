"""A CANN error code read through CANN's own registry (data: ``npulab/data/cann_error_registry.yaml``, extracted by
``scripts/extract_cann_error_registry.py`` from the error manager's tables). Every coded CANN message (``EI0008: The
CANN versions are inconsistent …``) is registered with a class title (``Package_Error_Incorrect_HCCL_Version``), a
possible cause and a solution, the text the troubleshooting guide's error-code pages print. So:

- a code whose class denotes a catalogue family (``explain_rules.yaml`` ``registry.families``: a version that does
  not match, device memory exhausted, a busy resource, a port already bound, HCCL's timeouts, a data type an
  operator does not implement) reports that family, the documented solution added to its fix;
- any other user-class code (0000–8999, less those the registry files as inner errors; internal errors' causes are
  told by the lines after them) that
  has a documented solution gets it as its own finding, so a log that printed the code without its
  ``Solution:`` line (older releases, a cut log) still says what CANN advises; where the log printed a
  ``Solution:`` line, the message's own advice (``rules/advice.py``) already quotes it and this finding is left out.

Read on error lines only, where the code stands alone (``EI0008:``, ``[EL0004]``), not inside a word. A line whose
code was cut off (or that a wrapper reprinted without it) is read by the message template a family's class registers,
its ``%s`` slots as any text, when the template's literal text is long enough to be CANN's alone (``MIN_LITERAL``)."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.registry import is_internal, registry
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "cann_registry"
_SOLUTION = re.compile(r"^\s*(?:Solution|处理建议)\s*[:：]")  # the line under a coded message (CANN's format)
_CODE = re.compile(r"(?<![0-9A-Za-z_])(E[0-9A-Z]\d{4})(?![0-9A-Za-z_])")
MIN_LITERAL = 30  # a template's literal characters, at least: "Failed to connect the device." (29) is any tool's words
_SLOT = re.compile(r"%[-0-9.]*l*[a-z]")


@functools.cache
def _families() -> tuple[tuple[re.Pattern, str], ...]:
    return tuple((re.compile(f["title"]), f["family"]) for f in rules_data()["registry"]["families"])


def family_of(title: str) -> str | None:
    """The catalogue family a registry class title denotes, or None."""
    return next((family for pattern, family in _families() if pattern.fullmatch(title)), None)


def _literals(message: str) -> list[str]:
    return [part.strip() for part in _SLOT.split(message) if part.strip()]


@functools.cache
def _templates() -> tuple[tuple[str, re.Pattern, str], ...]:
    """(code, the registered message as a pattern, its longest literal part) for every code of a mapped class whose
    message is long enough to be CANN's alone; the first code of a message two codes share wins."""
    found, seen = [], set()
    for code, entry in registry().items():
        parts = _literals(entry.get("message", ""))
        if not family_of(entry.get("title", "")) or sum(map(len, parts)) < MIN_LITERAL or tuple(parts) in seen:
            continue
        seen.add(tuple(parts))
        pattern = r".+?".join(re.escape(p).replace(r"\ ", r"\s+") for p in parts)
        found.append((code, re.compile(pattern, re.IGNORECASE), max(parts, key=len)))
    return tuple(found)


def _by_template(line: str) -> dict | None:
    for code, pattern, _longest in _templates():
        m = pattern.search(line)
        if m:
            return {"code": code, "family": family_of(registry()[code]["title"]), "focus": m.group(0)}
    return None


def read(line: str) -> dict | None:
    if _SOLUTION.match(line):
        return {"code": None, "family": None, "printed": True}
    for m in _CODE.finditer(line):
        entry = registry().get(m.group(1))
        if entry is None:
            continue
        family = family_of(entry.get("title", ""))
        if family or (entry.get("solution") and not is_internal(m.group(1))):
            return {"code": m.group(1), "family": family, "focus": m.group(1)}
    return _by_template(line)


def _note(code: str) -> str:
    entry = registry()[code]
    return t("explain.registry.note", code=code, title=entry.get("title", ""),
             solution=entry.get("solution") or entry.get("cause") or entry.get("message", ""))


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    coded = [h for h in hits if h.facts["code"]]
    if not coded:
        return None
    hit = next((h for h in coded if h.facts["family"]), coded[0])
    code = hit.facts["code"]
    source = registry()[code]["source"]
    same = [h for h in hits if h.facts["code"] == code]
    note = _note(code)
    if hit.facts["family"]:
        return rule_finding(NAME, note, note, note, same, [source], family=hit.facts["family"], note=note)
    if any(h.facts.get("printed") for h in hits):
        return None  # the log printed the solution: the message's own advice quotes it
    return rule_finding(NAME, t("explain.registry.title", code=code), t("explain.registry.cause", code=code), note,
                        same, [source])


NEEDLES = (b"solution", "处理建议".encode(), *sorted({code.lower().encode() for code in registry()}),
           *sorted({longest.lower().encode() for _code, _pattern, longest in _templates()}))
RULE = Rule(NAME, NEEDLES, read, finding, needs_error=True, root=False)
