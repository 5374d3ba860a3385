"""Documented troubleshooting entries: error messages the products' own documentation explains, matched verbatim.

The knowledge base ``npulab/data/explain_docs.yaml`` (``entries:``) holds, per entry: ``id``; ``product`` (one of
``PRODUCTS``); ``signatures`` (a string or a list: fragments of the message as the documentation prints it, at least
``MIN_SIGNATURE`` characters); an optional ``family`` (a family id of the error catalog); ``cause`` and ``fix`` in
Chinese, ``cause_en`` and ``fix_en`` in English; ``source`` (the page's URL) and ``version`` (the release it documents);
an optional ``generic_signature: true`` for a message that ordinary Python, Linux, pip or docker tools also print.
Without the file there are no entries and ``explain`` reads logs exactly as it does without this module.

Matching. A log line holds a signature when :func:`normalise` of the line holds :func:`normalise` of the signature
(Unicode compatibility forms, so full-width letters and punctuation count as their ASCII twins, plus the Chinese marks
NFKC keeps; lower case; runs of spaces as one, and none next to punctuation or Chinese text), and a signature that
starts or ends with a letter or digit does not continue a longer word there. The log itself is only folded
(:func:`fold`: forms, marks, case); the spacing is left to the expression each signature becomes (a space as one or
more spaces, any spaces next to punctuation or Chinese). One expression, the trie of every signature, is searched
over each block (linear in the log: at each offset the trie's first characters decide, and shared prefixes are read
once); the lines it finds, the first ``LOOK_BUDGET`` of them, are then read signature by signature. A line counts
when it is an error line (:func:`npulab.env.explain.root.rank`, or a line indented under one) or a warning line, and
neither a command echoed at a prompt, a command-line help text, nor a frame or source line of a Python traceback.

Findings (``documented_findings``), kind ``docs``, at most ``MAX_FINDINGS``, after the catalog's and the rules' own
findings (so they never displace one of those) and before the generic one. The entries whose lines are most decisive
come first: one matched on the root error line, then on the strongest error lines, then on other error lines, then on
warning lines; longer signatures first, then earlier lines. The category is the entry's family when the catalog has it,
else ``documented_case``. Deduplication: an entry of a family that a catalog or rule finding already names (or that a
reported family suppresses) adds no finding; it adds its documented fix to that finding, once, and only when it says
something new — its source is not cited there yet and its normalised fix is not already part of that finding's fix.
Of two entries of one family, or with the same source and fix, only the more decisive one speaks.

Guards (applied by :func:`npulab.env.explain.explain_stream`): a log another accelerator shows (and Ascend's own words
do not) gets nothing; a match on an error line counts as Ascend evidence, one on a warning line or of a generic
signature does not, and an entry with a generic signature speaks only in a log with other Ascend evidence; nothing is
said about a log with no error line (a healthy log).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from npulab.core import i18n
from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env.explain.catalog import CatalogError, Entry, tidy
from npulab.env.explain.matcher import MAX_EVIDENCE, Evidence, Finding
from npulab.env.explain.reader import decode_line, shorten
from npulab.env.explain.root import RootLine, rank

# how the rules find the line an indented line continues, and a launcher's prefix (one definition, shared)
from npulab.env.explain.rules import CANN_TRACEBACK, IS_CONTINUATION, LAUNCHER_PREFIX, last_head

DOCS_PATH = DATA_DIR / "explain_docs.yaml"
CATEGORY = "documented_case"  # the category of an entry with no catalog family
KIND = "docs"
PRODUCTS = {"cann": "CANN", "torch_npu": "torch_npu", "mindspore": "MindSpore", "hccl": "HCCL",
            "vllm_ascend": "vLLM-Ascend", "triton_ascend": "Triton-Ascend", "mindspeed": "MindSpeed", "mindie": "MindIE",
            "driver": ""}  # the driver: said in words
MIN_SIGNATURE = 12  # characters of a signature, at least (as written in the knowledge base)
MAX_FINDINGS = 2
LOOK_BUDGET = 2000  # lines holding a signature that are looked at closely, at most, in one log
HEAD_REACH = 50  # lines above an indented line searched for the line it continues
MAX_STARTS = 64  # places in one line where a signature may start, looked at

# Chinese marks NFKC leaves alone, as their ASCII twins (NFKC already maps full-width ASCII and the ideographic space)
_MARKS = {"。": ".", "、": ",", "“": '"', "”": '"', "‘": "'", "’": "'", "【": "[", "】": "]",
          "「": '"', "」": '"', "『": '"', "』": '"', "《": "<", "》": ">", "—": "-", "–": "-"}
_SPACES = re.compile(r"[^\S\n]+")
_LOOSE_SPACE = re.compile(r" (?![0-9a-z_])|(?<![0-9a-z_ ]) ")  # a space next to punctuation, Chinese or a line end
_WORD = re.compile(r"[0-9a-z_]")
# a command echoed at a shell or Python prompt ("$ python x.py", "[root@host dir]# …", "(venv) user@host:~$ …",
# ">>> …", "+ …" of ``set -x``, "PS C:\\…> …"), a shell command written out, or a help text's option line
_NOT_MESSAGE = re.compile(r"^\s*(?:(?:\(\S+\)\s*)?(?:\[?[\w.-]+@[\w.-]+[^\n$#]*?)?[$#%]\s|>>>\s|\+\s|"
                          r"PS [A-Za-z]:\\[^>]*>|In \[\d+\]:|usage:|-{1,2}[A-Za-z][\w-]*[ =,]|"
                          r"(?:echo|grep|export|sed|awk|cat|bash|sh|source)\s)")
_PY_TRACEBACK = re.compile(r"^\W*Traceback \(most recent call last\)")  # Python's: frames and source lines under it
_WARNING = re.compile(r"(?i)\bwarn(?:ing)?s?\b|\[W(?:\d{4}| )|^W\d{4} |\w+Warning\b")
# a shared library's file name in any of the forms one library takes: with its SONAME version ("libgomp.so.1"),
# the full version ("libgomp.so.1.0.0") or the hash auditwheel gives the copy it bundles into a wheel
# ("scikit_learn.libs/libgomp-d22c30c5.so.1.0.0"); all are compared as "libgomp.so"
_SO_NAME = re.compile(r"(?<![\w+-])(lib[\w+-]*?)(?:-[0-9a-f]{8})?\.so(?:\.\d+)*(?![\w.])")


def fold(text: str) -> str:
    """Text in compatibility forms (full-width letters and punctuation → ASCII), Chinese marks as ASCII, in lower
    case, a shared library's name without its version or bundling hash."""
    text = unicodedata.normalize("NFKC", text)
    for mark, ascii_mark in _MARKS.items():
        if mark in text:
            text = text.replace(mark, ascii_mark)
    text = text.lower()
    return _SO_NAME.sub(r"\1.so", text) if ".so" in text else text


def normalise(text: str) -> str:
    """Text as it is compared: :func:`fold`, then one space for a run of spaces and none next to punctuation, Chinese
    text or a line's ends. Line breaks stay."""
    return _LOOSE_SPACE.sub("", _SPACES.sub(" ", fold(text)))


@dataclass(frozen=True)
class DocEntry:
    """One documented troubleshooting entry, in one language."""

    id: str
    product: str
    signatures: tuple[str, ...]  # as the documentation writes them
    needles: tuple[str, ...]  # the same, normalised
    family: str
    cause: str
    fix: str
    source: str
    version: str = ""
    generic: bool = False  # its message is printed by ordinary tools too: it needs other Ascend evidence

    def product_name(self) -> str:
        return PRODUCTS[self.product] or t("explain.docs.driver")


def _entry(raw: dict, lang: str) -> DocEntry:
    where = f"explain_docs 条目 {raw.get('id', '?')!r}"
    signatures = raw.get("signatures")
    signatures = tuple(str(s) for s in ([signatures] if isinstance(signatures, str) else signatures or ()))
    if not signatures or any(len(s.strip()) < MIN_SIGNATURE for s in signatures):
        raise CatalogError(f"{where}：signatures 不能为空，每条至少 {MIN_SIGNATURE} 个字符")
    if raw.get("product") not in PRODUCTS:
        raise CatalogError(f"{where}：product 只能是 {', '.join(PRODUCTS)}")
    missing = [k for k in ("id", "cause", "fix", "source") if not raw.get(k)]
    if missing:
        raise CatalogError(f"{where} 缺少字段 {', '.join(missing)}")
    english = lang != "zh" and raw.get("cause_en") and raw.get("fix_en")  # else the Chinese text (as the catalog does)
    needles = tuple(dict.fromkeys(normalise(" ".join(s.split())) for s in signatures))
    return DocEntry(str(raw["id"]), raw["product"], signatures, needles,
                    str(raw.get("family") or ""), tidy(raw["cause_en"] if english else raw["cause"]),
                    tidy(raw["fix_en"] if english else raw["fix"]), str(raw["source"]), str(raw.get("version") or ""),
                    bool(raw.get("generic_signature", False)))


def load_documented(path: Path | str | None = None, lang: str | None = None) -> tuple[DocEntry, ...]:
    """The knowledge base's entries in ``lang`` (default: npulab's language), parsed once per process and language;
    no entries when the file does not exist."""
    return _load(Path(path or DOCS_PATH), lang or i18n.language())


@functools.cache
def _load(path: Path, lang: str) -> tuple[DocEntry, ...]:
    if not path.exists():
        return ()
    entries = tuple(_entry(raw, lang) for raw in (load_yaml(path) or {}).get("entries") or ())
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise CatalogError(f"{path.name} 中有重复的条目 id")
    return entries


# what a normalised signature is read as in a folded line: its characters, and between them the spacing normalise drops
_UNIT = {"start": r"(?<![0-9a-z_])", "end": r"(?![0-9a-z_])", "space": r"[^\S\n]+", "any_space": r"[^\S\n]*"}


def _units(needle: str) -> tuple[str, ...]:
    """A normalised signature as the units of its expression: characters and ``_UNIT`` names."""
    units = ["start"] if _WORD.match(needle[0]) else []
    for i, ch in enumerate(needle):
        if ch == " ":
            units.append("space")
            continue
        if i and needle[i - 1] != " " and not (_WORD.match(needle[i - 1]) and _WORD.match(ch)):
            units.append("any_space")
        units.append(ch)
    return (*units, "end") if _WORD.match(needle[-1]) else tuple(units)


def _unit(unit: str) -> str:
    return _UNIT[unit] if len(unit) > 1 else re.escape(unit)


@functools.lru_cache(maxsize=4096)
def pattern(needle: str) -> re.Pattern:
    """The expression of one normalised signature, searched in a folded line (compiled once per process)."""
    return re.compile("".join(map(_unit, _units(needle))))


def _trie(needles: list[str]) -> str:
    """One expression for a set of normalised signatures, as a trie of their units: shared prefixes are read once."""
    tree: dict = {}
    for needle in needles:
        node = tree
        for unit in _units(needle):
            node = node.setdefault(unit, {})
        node[""] = {}

    def walk(node: dict) -> str:
        if "" in node and len(node) == 1:
            return ""
        branches = [_unit(unit) + walk(child) for unit, child in sorted(node.items()) if unit]
        body = branches[0] if len(branches) == 1 and "" not in node else f"(?:{'|'.join(branches)})"
        return f"{body}?" if "" in node else body  # a signature that ends here: the rest is optional

    return walk(tree)


@dataclass
class DocHit:
    """A line that holds a documented signature: its number, its text, how it counts, the signature."""

    line: int
    text: str
    level: int  # 0 an error line, 1 a warning line
    needle: str


class Signatures:
    """The signatures of a set of entries, compiled: the trie of them all, and each one's own expression (compiled
    when first needed), grouped by the character it starts with."""

    def __init__(self, entries: tuple[DocEntry, ...]):
        needles = sorted({n for e in entries for n in e.needles})
        self.any = re.compile(_trie(needles)) if needles else None
        self.entries_of = {n: [i for i, e in enumerate(entries) if n in e.needles] for n in needles}
        self.starting: dict[str, list[str]] = {}
        for n in needles:
            self.starting.setdefault(n[0], []).append(n)

    def held(self, folded: str, first: int) -> list[str]:
        """The signatures a folded line holds (``first``: where the earliest one starts): those that start with a
        character some signature's match starts with, checked one by one."""
        starts, pos = set(), first
        for _ in range(MAX_STARTS):
            starts.add(folded[pos])
            m = self.any.search(folded, pos + 1)
            if m is None:
                break
            pos = m.start()
        return [n for ch in starts for n in self.starting.get(ch, ()) if pattern(n).search(folded)]


@functools.lru_cache(maxsize=8)
def signatures(entries: tuple[DocEntry, ...]) -> Signatures:
    """The compiled signatures of a set of entries, built once per process."""
    return Signatures(entries)


class DocScanner:
    """Collects, over the blocks of a log, the lines that hold each entry's signatures (``MAX_EVIDENCE`` each)."""

    def __init__(self, entries: tuple[DocEntry, ...]):
        self.entries = entries
        self.hits: dict[int, list[DocHit]] = {}  # entry index → its lines, earliest first
        self.looked = 0  # lines holding a signature looked at so far
        self._head = ""  # the last unindented line before the current block
        self._signatures = signatures(entries) if entries else None

    def feed(self, first_line: int, block: bytes) -> None:
        """Read one block of whole lines."""
        if self._signatures is None or self.looked >= LOOK_BUDGET:
            return
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:
            text = "\n".join(decode_line(raw) for raw in block.split(b"\n"))
        folded = fold(text)
        lines: list[str] | None = None  # the block's lines as written, split when first needed
        index, at, pos = 0, 0, 0
        while self.looked < LOOK_BUDGET and (m := self._signatures.any.search(folded, pos)):
            index += folded.count("\n", at, m.start())
            start, end = folded.rfind("\n", 0, m.start()) + 1, folded.find("\n", m.start())
            end = len(folded) if end < 0 else end
            at = pos = end
            self.looked += 1
            if lines is None:
                lines = text.split("\n")
            level = self._level(lines, index)
            if level is not None:
                line, at_match = lines[index], m.start() - start
                focus = line[at_match:at_match + MIN_SIGNATURE] if len(line) == end - start else ""  # forms kept
                self._keep(first_line + index, shorten(line, focus), level,
                           self._signatures.held(folded[start:end], at_match))
        last = last_head(block)
        if last is not None:
            self._head = last

    def _keep(self, number: int, text: str, level: int, needles: list[str]) -> None:
        for needle in needles:
            for i in self._signatures.entries_of[needle]:
                kept = self.hits.setdefault(i, [])
                if len(kept) < MAX_EVIDENCE and all(h.line != number for h in kept):
                    kept.append(DocHit(number, text, level, needle))

    def _level(self, lines: list[str], index: int) -> int | None:
        """0 for an error line, 1 for a warning line, None for any other (a command, a help text, a traceback's
        frames and source lines, plain output)."""
        line = lines[index]
        if _NOT_MESSAGE.match(line):
            return None
        head = self._head_of(lines, index) if IS_CONTINUATION.match(line) else line
        if head is not line and _PY_TRACEBACK.match(LAUNCHER_PREFIX.sub("", head, count=1)):
            return None
        if rank(line) or (head is not line and (rank(head) or CANN_TRACEBACK.match(head))):
            return 0
        return 1 if _WARNING.search(line) or _WARNING.search(head) else None

    def _head_of(self, lines: list[str], index: int) -> str:
        """The unindented line an indented line continues (within ``HEAD_REACH`` lines, or the previous block's)."""
        for above in range(index - 1, max(-1, index - 1 - HEAD_REACH), -1):
            if lines[above].strip() and not IS_CONTINUATION.match(lines[above]):
                return lines[above]
        return self._head if index < HEAD_REACH else ""

    def error_lines(self) -> bool:
        """Whether a signature that is not generic was found on an error line (Ascend evidence, in a log no other
        accelerator shows)."""
        return any(h.level == 0 for i, hits in self.hits.items() if not self.entries[i].generic for h in hits)


def documented_findings(scanner: DocScanner, findings: list[Finding], root: RootLine | None,
                        strongest: list[RootLine], catalog: tuple[Entry, ...], evidence: bool) -> list[Finding]:
    """The documented entries' findings (at most ``MAX_FINDINGS``), most decisive first; an entry whose family a
    finding of ``findings`` already names adds its fix to that finding instead (see the module docstring).
    ``evidence``: whether the log shows Ascend evidence (entries with a generic signature need it)."""
    if root is None or not scanner.hits:
        return []
    decisive = {r.line for r in strongest}

    def weight(hit: DocHit) -> tuple:  # the root line, the strongest error lines, other errors, warnings; longer first
        return 0 if hit.line == root.line else 1 if hit.line in decisive else 2, hit.level, -len(hit.needle), hit.line

    families = {e.id: e for e in catalog}
    named = {f.category: f for f in findings if f.kind in ("family", "rule") and f.category in families}
    suppressed = {e.id for e in catalog if any(s in named for s in e.suppressed_by)}
    out: list[Finding] = []
    spoken: set[tuple[str, str]] = set()
    enriched: set[str] = set()
    for i in sorted(scanner.hits, key=lambda i: min(map(weight, scanner.hits[i]))):
        entry, hits = scanner.entries[i], scanner.hits[i]
        if entry.generic and not evidence:
            continue
        family = entry.family if entry.family in families else ""
        if family in named or family in suppressed:
            if family in named and family not in enriched and _adds(entry, named[family]):
                _enrich(named[family], entry)
                enriched.add(family)
            continue
        key = (family or entry.source, entry.fix if not family else "")
        if key in spoken or len(out) >= MAX_FINDINGS:
            continue
        spoken.add(key)
        out.append(_finding(entry, hits, families.get(family)))
    return out


def _adds(entry: DocEntry, finding: Finding) -> bool:
    """Whether an entry says something its family's finding does not: a source not cited there, a fix not in it."""
    return entry.source not in finding.sources and normalise(entry.fix) not in normalise(finding.fix)


def _enrich(finding: Finding, entry: DocEntry) -> None:
    note = t("explain.docs.note", product=entry.product_name(), version=_version(entry), fix=entry.fix,
             source=entry.source)
    finding.fix = f"{finding.fix}{note}"
    finding.sources.append(entry.source)


def _version(entry: DocEntry) -> str:
    return t("explain.docs.version", version=entry.version) if entry.version else ""


def _finding(entry: DocEntry, hits: list[DocHit], family: Entry | None) -> Finding:
    product = entry.product_name()
    what = family.title if family else next((s for s in entry.signatures if normalise(s).strip() in
                                              {h.needle for h in hits}), entry.signatures[0]).strip()
    evidence = [Evidence(h.line, h.text) for h in sorted(hits, key=lambda h: h.line)]
    return Finding(family.id if family else CATEGORY, t("explain.docs.title", product=product, what=what), [],
                   t("explain.docs.cause", product=product, version=_version(entry), source=entry.source,
                     cause=entry.cause),
                   t("explain.docs.fix", fix=entry.fix), evidence, [entry.source], priority=-1,
                   casebook=family.casebook if family else "", kind=KIND, entry=entry.id, product=entry.product,
                   source=entry.source, version=entry.version)
