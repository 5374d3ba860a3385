"""Matching the catalog's families against a log, block by block: evidence lines, findings, the report."""

from __future__ import annotations

from dataclasses import dataclass, field

from npulab.env.explain.catalog import Entry
from npulab.env.explain.reader import decode_line, line_at, shorten

MAX_EVIDENCE = 3  # evidence lines kept per pattern and shown per finding


@dataclass
class Evidence:
    """A log line that matched: its 1-based number and its (shortened) text."""

    line: int
    text: str

    def to_dict(self) -> dict:
        return {"line": self.line, "text": self.text}


@dataclass
class Finding:
    """One recognised problem (the JSON ``findings`` item); ``kind`` is ``family``, ``rule``, ``case`` (similar
    reported cases), ``docs`` (a documented troubleshooting entry) or ``generic``."""

    category: str
    title: str
    codes: list[str]
    cause: str
    fix: str
    evidence: list[Evidence]
    sources: list[str]
    priority: int = 0
    casebook: str = ""
    kind: str = "family"
    environment: list[dict] = field(default_factory=list)
    rule: str = ""  # the general rule that read the line (npulab.env.explain.rules), when one did
    entry: str = ""  # a documented entry's id, product, source page and release (kind ``docs``)
    product: str = ""
    source: str = ""
    version: str = ""

    def to_dict(self) -> dict:
        """The JSON form: category, kind, codes, title, cause, fix, evidence, sources (+ rule when a general rule
        read the line, + entry, product, source and version for a documented entry, + environment when checked)."""
        out = {"category": self.category, "kind": self.kind, "codes": self.codes, "title": self.title,
               "cause": self.cause, "fix": self.fix, "evidence": [e.to_dict() for e in self.evidence],
               "sources": self.sources}
        if self.rule:
            out["rule"] = self.rule
        if self.kind == "docs":
            out.update(entry=self.entry, product=self.product, source=self.source, version=self.version)
        if self.environment:
            out["environment"] = self.environment
        return out


class FamilyMatcher:
    """Collects the evidence of every catalog pattern over the blocks of a log, then turns it into findings."""

    def __init__(self, entries: tuple[Entry, ...]):
        self.entries = entries
        self.hits: dict[tuple[int, int], list[Evidence]] = {}

    def feed(self, first_line: int, block: bytes) -> None:
        """Search one block of whole lines (bytes) for every pattern; keep at most ``MAX_EVIDENCE`` lines each."""
        first: dict[bytes, int] = {}  # a needle shared by several patterns is searched once per block
        for ei, entry in enumerate(self.entries):
            for pi, pattern in enumerate(entry.patterns):
                found = self.hits.setdefault((ei, pi), [])
                for needle in pattern.needles:
                    if len(found) >= MAX_EVIDENCE:
                        break
                    if needle not in first:
                        first[needle] = block.find(needle)
                    pos = first[needle]
                    while pos >= 0:
                        start, end = line_at(block, pos)
                        line = decode_line(block[start:end])
                        if pattern.regex is None or pattern.regex.search(line):
                            found.append(Evidence(first_line + block.count(b"\n", 0, start),
                                                  shorten(line, pattern.find)))
                            if len(found) >= MAX_EVIDENCE:
                                break
                        pos = block.find(needle, end)

    def findings(self, ascend: bool = True, failed: bool = True) -> list[Finding]:
        """The families whose error patterns matched, most likely root cause first (priority, then first line).
        ``ascend``: whether the log shows Ascend evidence (patterns marked ``context: ascend`` count only then);
        ``failed``: whether it has an error line (patterns marked ``context: failure`` need both)."""
        reported: dict[str, Finding] = {}
        for ei, entry in enumerate(self.entries):
            hits = {pi: self.hits.get((ei, pi), []) for pi, p in enumerate(entry.patterns)
                    if (ascend or not p.ascend_only) and (failed or not p.failure_only)}
            errors = [ev for pi, evs in hits.items() if entry.patterns[pi].level == "error" for ev in evs]
            hints = [ev for pi, evs in hits.items() if entry.patterns[pi].level == "hint" for ev in evs]
            if not errors or (entry.needs_hint and not hints):
                continue
            codes = [p.code for pi, p in enumerate(entry.patterns) if p.code and hits.get(pi)]
            lines: dict[int, Evidence] = {}
            for ev in sorted(errors, key=lambda e: e.line) + sorted(hints, key=lambda e: e.line):
                lines.setdefault(ev.line, ev)
            evidence = sorted(list(lines.values())[:MAX_EVIDENCE + 1], key=lambda e: e.line)
            reported[entry.id] = Finding(entry.id, entry.title, list(dict.fromkeys(codes)), entry.cause, entry.fix,
                                         evidence, list(entry.sources), entry.priority, entry.casebook)
        for entry in self.entries:
            if entry.id in reported and any(s in reported for s in entry.suppressed_by):
                del reported[entry.id]
        first = {cat: min(e.line for e in f.evidence) for cat, f in reported.items()}
        return sorted(reported.values(), key=lambda f: (-f.priority, first[f.category]))
