"""The message's own advice: a clause of an error message that says what to do ("Please run 'source set_env.sh'…",
"Solution: Check that…", "try setting max_split_size_mb…", "Did you mean: 'x'?", "请…"), quoted as the first fix — the people who wrote
the message knew the cause better than any catalog. Boilerplate that every error of a table carries (``Rectify the
fault based on the error information in the ascend log``) is left out. A clause the line's end cuts off is read
on in the indented lines that continue it (CMake and Python warnings wrap their messages: "please set the correct
/   NNADAPTER_…_SDK_ROOT or manually set …")."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import packages
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "message_advice"
MAX_CLAUSES = 3
_SPLIT = re.compile(r"(?<=[.;!?])\s+(?=\S)|(?<=[。；！？])|(?<!\d)\.(?=\d[.)、]\s*\S)|(?<!\s)\s*\b(?:Solution|Suggestion|Troubleshooting|Possible Cause)\s*[:：]\s*"
                    # CANN's "EXXXXX: … is invalid. Reason: maybe you should set …" (its reason may be advice)
                    r"|\bReason\s*:\s*(?=(?i:maybe|perhaps|you|please|try)\b)"
                    r"|(?:处理建议|解决方法|可能原因)\s*[:：]\s*"
                    # round 14: advice after a comma ("…, consider using --enforce-eager", "To fix this, set X=1") and
                    # right after an exception's or a logger's colon ("ValueError: Please upgrade transformers …")
                    r"|(?<=[,，])\s*(?=(?:please|Please|请|you (?:must|should|need to)\b|(?i:consider|try|set|use|install|"
                    r"upgrade|downgrade|reinstall|rebuild|pass)\b))"
                    r"|(?<=\w)[:：]\s+(?=(?i:please|try|you (?:can|should|may|might|need to|must)|consider|upgrade|downgrade|"
                    r"reinstall|rebuild|pip install|set\s+[A-Za-z_]\w*=)\b)"
                    r"|(?<=[a-z])(?=please\s)"  # CANN glues sentences: "…calc OFT by floatplease use float to …"
                    r"|(?<=[a-z])\.(?=(?:Please|Make sure|Try|You (?:can|should|need to|must)|Set|Use|Check|Run)\b)")
# … and so do others without the space after the full stop: "…on your local machine.Make sure you have read…"
_TRAILER = re.compile(r"\[(?:FUNC|FILE|LINE):.*$")  # CANN's "[FUNC:…][FILE:…][LINE:…]" after the message
_NUMBERING = re.compile(r"^\s*(?:\d+[.)、]|[-*•])\s*")
_POINTER = re.compile(r"(?i)^(?:please\s+)?(?:refer to|see)\b")  # "please refer to …" points elsewhere …
_WHERE = re.compile(r"https?://|/|\.md\b|\.html?\b")  # … and says something only with an address


@functools.cache
def _patterns() -> tuple[re.Pattern, tuple[str, ...]]:
    data = rules_data()["advice"]
    return re.compile(r"^(?:" + "|".join(data["markers"]) + ")", re.IGNORECASE), tuple(data["boilerplate"])


_CONCRETE = re.compile(r"\s[A-Za-z_][\w.]*=\S|\s-{1,2}[A-Za-z][\w-]+|`[^`]+`")


def _says_enough(clause: str) -> bool:
    """Two words of at least three letters after the marker ("Try 3/10 loaded" says nothing); Chinese: six characters."""
    if not clause.isascii():
        return len(clause) >= 6
    if _CONCRETE.search(clause):  # a setting, a flag or a quoted command says enough by itself
        return True
    return sum(1 for w in clause.split()[1:] if sum(c.isalpha() for c in w) >= 3) >= 2


_LABELLED = re.compile(r"\b(?:Solution|Suggestion|Troubleshooting|Workaround)\s*[:：]\s*(.+)|(?:处理建议|解决方法|解决办法)\s*[:：]\s*(.+)")


def clauses(line: str) -> list[str]:
    """The advice clauses of one line, in order: clauses that open with an advice word, and whatever the message
    itself labels as the remedy ("Solution: …", "Troubleshooting: …", "处理建议：…") even without one."""
    marker, boilerplate = _patterns()
    labelled = _LABELLED.search(line)
    out = []
    if labelled:
        text = _TRAILER.sub("", labelled.group(1) or labelled.group(2)).strip().rstrip(".。")
        first = _NUMBERING.sub("", re.split(r"(?<=[.;。；])\s+|(?<!\d)\.(?=\d[.)、]\s*\S)", text)[0]).strip().rstrip(".。")
        if _says_enough("x " + first) and not any(b in first.lower() for b in boilerplate) and not marker.match(first):
            out.append(first)
    for piece in _SPLIT.split(line):
        piece = _NUMBERING.sub("", _TRAILER.sub("", piece or "")).strip().strip('"').strip()
        if not marker.match(piece) or not _says_enough(piece):
            continue
        if any(b in piece.lower() for b in boilerplate) or (_POINTER.match(piece) and not _WHERE.search(piece)):
            continue
        out.append(piece.rstrip(".。"))
    return list(dict.fromkeys(out))


@functools.cache
def _not_on_npu() -> re.Pattern | None:
    """``pip install X`` for a package that cannot be installed for the NPU (npulab/data/ascend_packages.yaml
    ``npu: false``): advice written for CUDA machines, left to the module rule's NPU alternative."""
    names = [n for p in packages.index()["packages"].values() if p.get("npu") is False for n in p.get("pip", ())]
    return re.compile(r"(?i)\binstall\s+[`'\"]?(?:" + "|".join(map(re.escape, names)) + r")\b") if names else None


def read(line: str) -> dict | None:
    skip = _not_on_npu()
    found = [c for c in clauses(line) if not (skip and skip.search(c))]
    return {"advice": found, "focus": found[0][:20]} if found else None


# advice that names a parameter to set ("maybe you should set input_shape to specify its shape", "try increasing
# `gpu_memory_utilization`"): a lower-case name of two or more parts, as command-line tools name their options
_NAMED_PARAMETER = re.compile(r"(?i:\b(?:set|specify|pass|add|use|increase|increasing|decrease|decreasing|reduce|reducing|"
                              r"lower|lowering|raise|enable|disable)\s+(?:the\s+)?(?:(?:option|parameter|argument|flag)\s+)?)"
                              r"[`'\"]?([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)\b")


def as_option(advice: list[str], command: tuple[str, tuple[str, ...]] | None) -> tuple[str, str] | None:
    """The command-line option a clause of advice names, in the spelling of the command the log echoes (its options
    written with hyphens or with underscores), with that command: ("atc", "input_shape"), ("vllm serve",
    "gpu-memory-utilization"); None when the log shows no command with --options or no clause names a parameter."""
    if command is None or not command[1]:
        return None
    program, options = command
    for clause in advice:
        m = _NAMED_PARAMETER.search(clause)
        if m and f"--{m.group(1)}" not in clause:
            name = m.group(1)
            kebab = any("-" in o for o in options) and not any("_" in o for o in options)
            return program, name.replace("_", "-") if kebab else name
    return None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    advice = list(dict.fromkeys(a for h in hits for a in h.facts["advice"]))
    # a clause that names what to set (a setting, a flag, a parameter) before general ones ("check the detail log")
    advice = sorted(advice, key=lambda a: not (_CONCRETE.search(a) or _NAMED_PARAMETER.search(a)))[:MAX_CLAUSES]
    quoted = t("explain.separator").join(f"“{a}”" for a in advice)  # the message's own words, quoted as they are
    fix = t("explain.advice.fix", quoted=quoted)
    option = as_option(advice, facts.command)
    if option:
        fix += t("explain.advice.option", program=option[0], option=option[1])
    return rule_finding(NAME, t("explain.advice.title"), t("explain.advice.cause"), fix, hits,
                        rules_data()["advice"]["sources"])


RULE = Rule(NAME, (b"please", b"try", b"should", b"solution", b"suggest", b"consider", b"make sure", b"you can",
                   b"you need", b"you may", b"you must", b"check", b"ensure", b"verify", b"troubleshooting", b"run `pip",
                   b"run 'pip", b"did you mean", "请".encode(), "建议".encode(), "尝试".encode(),
                   # round 14: the imperative of a fix anywhere in the line ("…; pip install 'numpy<2' to fix it")
                   b"upgrade", b"downgrade", b"install", b"to fix", b"to resolve", b"set ", b"use ", b"pass --"),
            read, finding, needs_error=True, wraps=True)
