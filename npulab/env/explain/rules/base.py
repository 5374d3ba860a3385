"""What every rule shares: the rule data, one matched line (``RuleHit``), what the whole log shows (``LogFacts``),
and turning hits into a finding — its own, or the catalog family the rule's noun belongs to."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from npulab.core.i18n import language, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env.explain.catalog import load_catalog, tidy
from npulab.env.explain.matcher import Evidence, Finding

RULES_PATH = DATA_DIR / "explain_rules.yaml"
MAX_HITS = 3  # lines kept per rule


@functools.cache
def rules_data() -> dict:
    """The rule data (npulab/data/explain_rules.yaml), parsed once per process."""
    return load_yaml(RULES_PATH)


@dataclass
class RuleHit:
    """A line a rule read: its number, its text (shortened) and what the rule took from it."""

    line: int
    text: str
    facts: dict = field(default_factory=dict)


@dataclass
class LogFacts:
    """What the whole log shows beyond single lines: which frameworks appear (for framework-specific advice), and the
    first line, at any level, saying that something is unavailable (``… GPU quantization are unavailable``): a value
    that is None later in the log was most often meant to come from it; and the first source line that tests an
    availability check without calling it (``elif is_torch_npu_available:``)."""

    frameworks: set[str] = field(default_factory=set)
    unavailable: RuleHit | None = None
    uncalled: RuleHit | None = None  # a source line that tests an availability check without calling it (rules/choice.py)
    # the first command line the log echoes with --options ("atc --model=x.pb --soc_version=Ascend310"): the command
    # and its option names, for advice that names a parameter of it (rules/advice.py)
    command: tuple[str, tuple[str, ...]] | None = None


@dataclass(frozen=True)
class Rule:
    """One general rule: its category, the byte needles that pre-select lines (lower case), how it reads one line
    (the facts it takes from it, or None) and how its hits become a finding. Lines at WARNING/INFO level, and the
    indented lines under them, are not read (see ``warnings`` and ``read_warning``); ``needs_error``: only lines that are errors themselves or sit under
    an error line (a ``Solution:`` line, an indented continuation)."""

    name: str
    needles: tuple[bytes, ...]
    read: Callable[[str], dict | None]
    finding: Callable[[list[RuleHit], LogFacts], Finding | None]
    needs_error: bool = False
    warnings: bool = False  # reads WARNING-level lines too (a documented warning the user acts on)
    # how it reads a WARNING-level line when only some of its messages are printed as warnings (torch_npu's "Failed
    # to find function X"), None: such lines are read by ``read`` when ``warnings``, else not at all
    read_warning: Callable[[str], dict | None] | None = None
    wraps: bool = False  # reads a line cut mid-clause with the indented lines that continue it (a wrapped message)
    root: bool = True  # a line it read may stand as the root error (False: a setting, wrong only beside another one)
    most: int = MAX_HITS  # lines kept (a package listing needs one line per package)


def note_mark() -> str:
    """What joins a family's fix and a rule's reading of the line (" 本条日志：", " In this log: ")."""
    return t("explain.rule.note_mark")


def sentence(text: str) -> str:
    """English starts a sentence with a capital letter (a data file's ``install_en`` is a clause); Chinese is left as it is."""
    return text[:1].upper() + text[1:] if language() == "en" else text


def evidence(hits: list[RuleHit]) -> list[Evidence]:
    return [Evidence(h.line, h.text) for h in hits]


def rule_finding(rule: str, title: str, cause: str, fix: str, hits: list[RuleHit], sources: list[str], *,
                 family: str | None = None, note: str = "") -> Finding:
    """A rule's finding; with ``family``, the catalog family's finding (its cause, fix and sources first) reached
    through this rule, the rule's reading of the line added as ``note``."""
    title, cause, fix, note = tidy(title), tidy(cause), tidy(fix), tidy(note)
    if family:
        entry = next((e for e in load_catalog() if e.id == family), None)
        if entry is not None:
            fix_text = entry.fix + (f"{note_mark()}{note}" if note else "")
            return Finding(entry.id, entry.title, [], entry.cause, fix_text, evidence(hits),
                           list(dict.fromkeys([*entry.sources, *sources])), entry.priority, entry.casebook,
                           kind="family", rule=rule)
    return Finding(rule, title, [], cause, fix, evidence(hits), list(dict.fromkeys(sources)), priority=0,
                   casebook="read-the-message", kind="rule", rule=rule)
