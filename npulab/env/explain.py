"""``python -m npulab explain LOG``: read an Ascend error log and say what went wrong and how to fix it.

The knowledge base is data: ``npulab/data/error_catalog.yaml`` (one entry per error family: patterns, Chinese
cause and fix, public sources, and real log excerpts that the tests run). This module is the reader and matcher:

- the log is streamed in blocks of whole lines (any size, bounded memory: one block plus one line of at most
  ``max_line`` bytes); each line is decoded on its own as UTF-8, else GB18030 (which covers GBK), else UTF-8 with
  replacement characters, so mixed files work; UTF-16 files with a byte-order mark (PowerShell ``>``) are
  transcoded; ANSI colour codes and Windows line endings are removed; binary junk is read and ignored;
- each pattern has a literal ``find`` string (a fast ``str.find`` over the whole block) and an optional regular
  expression checked only on the lines that contain it, so a 200 MB log costs a few seconds;
- an entry is reported when one of its ``error`` patterns matched (``hint`` lines only add evidence), unless it
  ``needs_hint`` and none matched, or an entry in its ``suppressed_by`` was reported; findings are sorted by the
  entry's ``priority`` (how likely it is the root cause), then by the first evidence line.

With ``--env`` (the default on the command line) a finding whose fix depends on this machine shows what
``python -m npulab doctor`` sees now (for example that ``set_env.sh`` is still not loaded).

Exit codes: 0 nothing recognised, 1 problems found, 2 usage error. Example::

    >>> report = explain_text("ImportError: libhccl.so: cannot open shared object file: No such file or directory")
    >>> [f.category for f in report.findings]
    ['env_not_loaded']
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.paths import DATA_DIR, load_yaml

CATALOG_PATH = DATA_DIR / "error_catalog.yaml"
CATEGORIES = (
    "version_mismatch", "env_not_loaded", "cann_python_deps", "device_busy", "visible_devices", "op_fallback",
    "dtype_unsupported", "fp16_overflow", "first_run_compile", "hccl_timeout", "nccl_backend", "npu_oom",
    "transfer_to_npu", "mindspore_target", "nnal_missing", "two_accelerators", "cuda_hardcoded",
)
LEVELS = ("error", "hint")
CHUNK_SIZE = 1 << 20  # bytes read at a time
MAX_LINE = 64 * 1024  # bytes of one line kept for matching; the rest of a longer line is skipped
MAX_EVIDENCE = 3  # evidence lines kept per pattern and shown per finding
EVIDENCE_CHARS = 240
CASEBOOK = "chapters/01_environment/03_troubleshooting_casebook.ipynb"

_ANSI_BYTES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]+")


# ---------------------------------------------------------------------------------------------------------------
# The knowledge base
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pattern:
    """One recognisable line: a literal ``find`` string, an optional regex, the error code it shows, its level."""

    find: str
    regex: re.Pattern | None
    code: str | None
    level: str

    @property
    def needles(self) -> tuple[bytes, ...]:
        """The ``find`` string as bytes, in UTF-8 and (when different) GB18030: the log is searched undecoded."""
        utf8, gb = self.find.encode("utf-8"), self.find.encode("gb18030")
        return (utf8,) if utf8 == gb else (utf8, gb)


@dataclass(frozen=True)
class Entry:
    """One error family of the catalog."""

    id: str
    title: str
    priority: int
    patterns: tuple[Pattern, ...]
    cause: str
    fix: str
    sources: tuple[str, ...]
    doctor: tuple[str, ...] = ()
    casebook: str = ""
    needs_hint: bool = False
    suppressed_by: tuple[str, ...] = ()
    examples: tuple[dict, ...] = ()
    negatives: tuple[dict, ...] = ()


class CatalogError(ValueError):
    """The catalog file is malformed (a bug in the course data, reported in Chinese)."""


_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_FOLD_SPACE = re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])|(?<=[，。；：、）」])\s+|\s+(?=[，。；：、（「])")


def tidy(text: str) -> str:
    """Folded YAML prose as one line: whitespace collapsed, and none left between Chinese characters."""
    return _FOLD_SPACE.sub("", " ".join(str(text).split()))


def _entry(raw: dict) -> Entry:
    where = f"条目 {raw.get('id', '?')!r}"
    try:
        patterns = []
        for p in raw["patterns"]:
            level = p.get("level", "error")
            if level not in LEVELS or not p.get("find"):
                raise CatalogError(f"{where}：模式必须有 find，level 只能是 error 或 hint：{p!r}")
            patterns.append(Pattern(str(p["find"]), re.compile(p["regex"]) if p.get("regex") else None,
                                    str(p["code"]) if p.get("code") is not None else None, level))
        entry = Entry(
            id=raw["id"], title=raw["title"], priority=int(raw["priority"]), patterns=tuple(patterns),
            cause=tidy(raw["cause"]), fix=tidy(raw["fix"]),
            sources=tuple(raw["sources"]), doctor=tuple(raw.get("doctor", ())), casebook=raw.get("casebook", ""),
            needs_hint=bool(raw.get("needs_hint", False)), suppressed_by=tuple(raw.get("suppressed_by", ())),
            examples=tuple(raw.get("examples", ())), negatives=tuple(raw.get("negatives", ())),
        )
    except KeyError as err:
        raise CatalogError(f"{where} 缺少字段 {err}") from None
    except re.error as err:
        raise CatalogError(f"{where} 的正则表达式无效：{err}") from None
    if not any(p.level == "error" for p in entry.patterns):
        raise CatalogError(f"{where} 至少要有一个 level: error 的模式")
    return entry


@functools.cache
def load_catalog(path: Path = CATALOG_PATH) -> tuple[Entry, ...]:
    """The catalog's entries, parsed and compiled once per process."""
    data = load_yaml(Path(path))
    entries = tuple(_entry(raw) for raw in data["entries"])
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise CatalogError("目录中有重复的条目 id")
    return entries


# ---------------------------------------------------------------------------------------------------------------
# Reading: bytes of any encoding → blocks of whole, cleaned lines with their first line number
# ---------------------------------------------------------------------------------------------------------------


def decode_line(raw: bytes) -> str:
    """One line's bytes as text: UTF-8, else GB18030 (a superset of GBK), else UTF-8 with replacements."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("gb18030")
    except UnicodeDecodeError:
        return raw.decode("utf-8", errors="replace")


def clean(data: bytes) -> bytes:
    """Bytes without ANSI escape sequences and without the ``\\r`` of Windows line endings."""
    if b"\x1b" in data:
        data = _ANSI_BYTES.sub(b"", data)
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
        if data.endswith(b"\r"):
            data = data[:-1]
    return data


def _raw_chunks(stream: BinaryIO, chunk_size: int) -> Iterator[bytes]:
    head = stream.read(max(chunk_size, 4))
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16 with a byte-order mark: transcode to UTF-8 on the fly
        text = io.TextIOWrapper(io.BufferedReader(_Prepend(head, stream)), encoding="utf-16", errors="replace")
        while piece := text.read(chunk_size):
            yield piece.encode("utf-8")
        return
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    while head:
        yield head
        head = stream.read(chunk_size)


class _Prepend(io.RawIOBase):
    """A readable stream that first returns ``head`` and then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: BinaryIO):
        self._head, self._stream = head, stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self._head or self._stream.read(len(buffer))
        self._head = b""
        n = min(len(data), len(buffer))
        buffer[:n] = data[:n]
        if n < len(data):
            self._head = data[n:]
        return n


def iter_blocks(stream: BinaryIO, chunk_size: int = CHUNK_SIZE, max_line: int = MAX_LINE) -> Iterator[tuple[int, bytes]]:
    """Yield ``(first_line_number, block)``: consecutive blocks of whole lines (bytes, cleaned, not decoded).

    The last item is ``(lines_read + 1, b"")``, a sentinel that carries the number of lines read.
    A line longer than ``max_line`` bytes keeps only its first ``max_line`` bytes.
    """
    line = 1
    carry = b""
    skipping = False  # inside an over-long line whose head was already yielded
    for data in _raw_chunks(stream, chunk_size):
        if skipping:
            newline = data.find(b"\n")
            if newline < 0:
                continue
            data, skipping, line = data[newline + 1:], False, line + 1
        data = carry + data
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
        else:
            block, carry = data[:cut], data[cut + 1:]
            yield line, clean(block)
            line += block.count(b"\n") + 1
        if len(carry) > max_line:
            yield line, clean(carry[:max_line])
            carry, skipping = b"", True
    if carry:
        yield line, clean(carry)
    if carry or skipping:
        line += 1
    yield line, b""


# ---------------------------------------------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class Evidence:
    """A log line that matched: its 1-based number and its (shortened) text."""

    line: int
    text: str

    def to_dict(self) -> dict:
        return {"line": self.line, "text": self.text}


@dataclass
class Finding:
    """One recognised problem (the JSON ``findings`` item)."""

    category: str
    title: str
    codes: list[str]
    cause: str
    fix: str
    evidence: list[Evidence]
    sources: list[str]
    priority: int = 0
    casebook: str = ""
    environment: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The JSON form: category, codes, title, cause, fix, evidence, sources (+ environment when checked)."""
        out = {"category": self.category, "codes": self.codes, "title": self.title, "cause": self.cause,
               "fix": self.fix, "evidence": [e.to_dict() for e in self.evidence], "sources": self.sources}
        if self.environment:
            out["environment"] = self.environment
        return out


@dataclass
class Report:
    """What ``explain`` found: lines read and the findings, most likely root cause first."""

    lines_read: int
    findings: list[Finding]

    def to_dict(self) -> dict:
        return {"lines_read": self.lines_read, "findings": [f.to_dict() for f in self.findings]}

    @property
    def categories(self) -> list[str]:
        return [f.category for f in self.findings]


def _evidence_text(line: str, needle: str) -> str:
    if "\r" in line:  # a progress bar redrawn with bare carriage returns: keep the segment that matched
        line = next((seg for seg in line.split("\r") if needle in seg), line)
    text = _CONTROL.sub(" ", line).strip()
    if len(text) > EVIDENCE_CHARS:
        at = max(0, text.find(needle) - EVIDENCE_CHARS // 3)
        text = ("…" if at else "") + text[at:at + EVIDENCE_CHARS] + "…"
    return text


class _Matcher:
    def __init__(self, entries: tuple[Entry, ...]):
        self.entries = entries
        self.hits: dict[tuple[int, int], list[Evidence]] = {}

    def feed(self, first_line: int, block: bytes) -> None:
        for ei, entry in enumerate(self.entries):
            for pi, pattern in enumerate(entry.patterns):
                found = self.hits.setdefault((ei, pi), [])
                for needle in pattern.needles:
                    pos = block.find(needle) if len(found) < MAX_EVIDENCE else -1
                    while pos >= 0:
                        start = block.rfind(b"\n", 0, pos) + 1
                        end = block.find(b"\n", pos)
                        end = len(block) if end < 0 else end
                        line = decode_line(block[start:end])
                        if pattern.regex is None or pattern.regex.search(line):
                            found.append(Evidence(first_line + block.count(b"\n", 0, start),
                                                  _evidence_text(line, pattern.find)))
                            if len(found) >= MAX_EVIDENCE:
                                break
                        pos = block.find(needle, end)

    def findings(self) -> list[Finding]:
        reported: dict[str, Finding] = {}
        for ei, entry in enumerate(self.entries):
            errors = [ev for pi, p in enumerate(entry.patterns) if p.level == "error" for ev in self.hits.get((ei, pi), [])]
            hints = [ev for pi, p in enumerate(entry.patterns) if p.level == "hint" for ev in self.hits.get((ei, pi), [])]
            if not errors or (entry.needs_hint and not hints):
                continue
            codes = [p.code for pi, p in enumerate(entry.patterns) if p.code and self.hits.get((ei, pi))]
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


def explain_stream(stream: BinaryIO, *, entries: tuple[Entry, ...] | None = None,
                   chunk_size: int = CHUNK_SIZE, max_line: int = MAX_LINE) -> Report:
    """Read a binary stream to its end and return the report (memory bounded by ``chunk_size + max_line``)."""
    matcher = _Matcher(load_catalog() if entries is None else entries)
    lines_read = 0
    for first_line, block in iter_blocks(stream, chunk_size, max_line):
        if block:
            matcher.feed(first_line, block)
        lines_read = first_line - 1
    return Report(lines_read, matcher.findings())


def explain_bytes(data: bytes, **kwargs) -> Report:
    """``explain_stream`` over bytes in memory."""
    return explain_stream(io.BytesIO(data), **kwargs)


def explain_text(text: str, **kwargs) -> Report:
    """``explain_stream`` over a string (as UTF-8)."""
    return explain_bytes(text.encode("utf-8", errors="surrogatepass"), **kwargs)


def explain_file(path: str | Path, **kwargs) -> Report:
    """``explain_stream`` over a file, read in chunks."""
    with Path(path).open("rb") as f:
        return explain_stream(f, **kwargs)


# ---------------------------------------------------------------------------------------------------------------
# What this machine shows now (doctor), for findings whose fix depends on it
# ---------------------------------------------------------------------------------------------------------------


def environment_notes(report: Report, environ: Mapping[str, str] | None = None,
                      diagnose: Callable[[], list] | None = None) -> None:
    """Attach to each finding the doctor checks its entry names (run once, without importing torch_npu)."""
    env = os.environ if environ is None else environ
    wanted = {f.category: next((e.doctor for e in load_catalog() if e.id == f.category), ()) for f in report.findings}
    checks = {}
    if any(wanted.values()):
        if diagnose is None:
            from npulab.env.doctor import diagnose as doctor_diagnose

            def diagnose():
                return doctor_diagnose(environ=env, probe_timeout=0)
        checks = {c.id: c for c in diagnose()}
    for finding in report.findings:
        notes = [{"check": cid, "status": checks[cid].status, "message": checks[cid].message}
                 for cid in wanted[finding.category] if cid in checks]
        if finding.category == "npu_oom" and env.get("PYTORCH_CUDA_ALLOC_CONF") and not env.get("PYTORCH_NPU_ALLOC_CONF"):
            notes.append({"check": "PYTORCH_NPU_ALLOC_CONF", "status": "warn",
                          "message": "当前环境设置了 PYTORCH_CUDA_ALLOC_CONF 而没有设置 PYTORCH_NPU_ALLOC_CONF："
                                     "前者对 NPU 不起作用。"})
        finding.environment = notes


# ---------------------------------------------------------------------------------------------------------------
# Output and command line
# ---------------------------------------------------------------------------------------------------------------

_MARKS = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-"}
NOTHING_FOUND = ("没有识别出已知的昇腾错误。请确认日志包含最早出现的那条报错（多进程时看每个 rank 的日志），"
                 "并运行 `python -m npulab doctor` 检查本机环境。")


def render(report: Report) -> str:
    """The human-readable report (Chinese)."""
    if report.lines_read == 0:
        return "输入为空：没有读到任何日志行。" + NOTHING_FOUND
    if not report.findings:
        return f"读取了 {report.lines_read} 行。" + NOTHING_FOUND
    out = [f"读取了 {report.lines_read} 行，识别出 {len(report.findings)} 类问题（最可能的根因排在最前）：", ""]
    for i, f in enumerate(report.findings, 1):
        codes = f"  错误码：{'、'.join(f.codes)}" if f.codes else ""
        out.append(f"{i}. [{f.category}] {f.title}{codes}")
        out.append("   证据：")
        out += [f"     第 {e.line} 行：{e.text}" for e in f.evidence]
        out.append(f"   原因：{f.cause}")
        out.append(f"   修复：{f.fix}")
        for note in f.environment:
            out.append(f"   本机现在：{_MARKS.get(note['status'], '?')} {note['check']}  {note['message']}")
        out.append(f"   来源：{'；'.join(f.sources)}")
        if f.casebook:
            out.append(f"   案例：{CASEBOOK}#{f.casebook}")
        out.append("")
    out.append("修复后可以运行 `python -m npulab doctor` 复查本机环境。")
    return "\n".join(out)


def _open_input(source: str | None) -> tuple[BinaryIO, bool]:
    """The stream to read and whether it must be closed; ``None`` on a terminal asks for a paste."""
    if source is None or source == "-":
        if source is None and sys.stdin.isatty():
            print("请粘贴日志，结束后另起一行按 Ctrl-D（Windows 上按 Ctrl-Z 再回车）：", file=sys.stderr)
        return sys.stdin.buffer, False
    path = Path(source)
    if path.is_dir():
        raise UsageError(f"{source} 是目录：请给出日志文件的路径（或用 - 表示从标准输入读取）")
    if not path.exists():
        raise UsageError(f"找不到文件 {source}（用 - 表示从标准输入读取）")
    try:
        return path.open("rb"), True
    except OSError as err:
        raise UsageError(f"无法读取 {source}：{err.strerror or err}") from None


def build_parser(subparsers, name: str) -> None:
    """Add the ``explain`` sub-command."""
    parser = subparsers.add_parser(
        name, help="读昇腾报错日志：指出是哪一类问题、证据在哪一行、怎么修",
        description="读取日志（文件或标准输入，任意大小；UTF-8/GBK/GB18030/混合编码、颜色码、Windows 换行均可），"
                    "识别常见的昇腾错误并给出原因、修复方法与公开来源。退出码：0 未识别出问题，1 识别出问题，2 用法错误。")
    parser.add_argument("log", nargs="?", default=None, help="日志文件；- 表示标准输入；省略时在终端里提示粘贴")
    parser.add_argument("--json", action="store_true",
                        help='以 JSON 输出：{"lines_read", "findings": [{"category", "codes", "title", "cause", '
                             '"fix", "evidence", "sources"}]}')
    parser.add_argument("--no-env", dest="env", action="store_false",
                        help="不检查本机环境（默认会对与环境有关的问题附上 doctor 的检查结果）")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Explain the log named by ``args.log``; print text or JSON; return 0, 1 or 2."""
    stream, close = _open_input(args.log)
    try:
        report = explain_stream(stream)
    except OSError as err:
        raise UsageError(f"读取日志时出错：{err.strerror or err}") from None
    finally:
        if close:
            stream.close()
    if args.env:
        environment_notes(report)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(report))
    return EXIT_FAIL if report.findings else EXIT_OK


__all__ = [
    "CATALOG_PATH", "CATEGORIES", "CatalogError", "Entry", "Evidence", "Finding", "Pattern", "Report", "clean",
    "decode_line", "environment_notes", "explain_bytes", "explain_file", "explain_stream", "explain_text",
    "iter_blocks", "load_catalog", "render",
]
