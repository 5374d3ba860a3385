"""Reading a log: bytes of any size and encoding → blocks of whole, cleaned lines with their first line number.

The log is streamed in blocks of whole lines (bounded memory: one block plus one line of at most ``max_line``
bytes); each line is decoded on its own as UTF-8, else GB18030 (which covers GBK), else UTF-8 with replacement
characters, so mixed files work; UTF-16 files with a byte-order mark (PowerShell ``>``) are transcoded; ANSI colour
codes and Windows line endings are removed; binary junk is read and ignored.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import BinaryIO

CHUNK_SIZE = 1 << 20  # bytes read at a time
MAX_LINE = 64 * 1024  # bytes of one line kept for matching; the rest of a longer line is skipped
EVIDENCE_CHARS = 240

_ANSI_BYTES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]+")


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


def line_at(block: bytes, pos: int) -> tuple[int, int]:
    """Start and end offsets of the line of ``block`` that contains offset ``pos``."""
    start = block.rfind(b"\n", 0, pos) + 1
    end = block.find(b"\n", pos)
    return start, len(block) if end < 0 else end


def shorten(line: str, needle: str = "") -> str:
    """A log line as evidence: control characters removed, at most ``EVIDENCE_CHARS`` around ``needle``."""
    if "\r" in line:  # a progress bar redrawn with bare carriage returns: keep the segment that matched
        line = next((seg for seg in line.split("\r") if needle and needle in seg), line.split("\r")[-1] or line)
    text = _CONTROL.sub(" ", line).strip()
    if len(text) > EVIDENCE_CHARS:
        at = max(0, text.find(needle) - EVIDENCE_CHARS // 3) if needle else 0
        text = ("…" if at else "") + text[at:at + EVIDENCE_CHARS] + "…"
    return text


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


MAX_HIT_LINES = 5000  # lines per block looked at more closely by one scanner (bounds time on pathological logs)
CODE_LITERAL = re.compile(rb"E[0-9A-Z]\d{4}|ERR\d{5}")  # a literal first byte: fast; boundaries checked by callers


def is_word_byte(b: int) -> bool:
    """Whether a byte is an ASCII letter, digit or underscore."""
    return 48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122 or b == 95


def standalone(block: bytes, start: int, end: int) -> bool:
    """Whether ``block[start:end]`` is not part of a longer word."""
    return (start == 0 or not is_word_byte(block[start - 1])) and (end >= len(block) or not is_word_byte(block[end]))


def hit_lines(block: bytes, haystack: bytes, needles: tuple[bytes, ...], extra: tuple[int, ...] = ()) -> list[tuple[int, int]]:
    """Start/end of each line of ``block`` whose ``haystack`` twin (e.g. ``block.lower()``) holds a needle.

    ``extra`` adds the lines at these offsets. Lines come sorted, once each, at most ``MAX_HIT_LINES``.
    """
    starts: set[int] = set()
    for needle in needles:
        pos = haystack.find(needle)
        while pos >= 0 and len(starts) < MAX_HIT_LINES:
            start, end = line_at(block, pos)
            starts.add(start)
            pos = haystack.find(needle, end)
    for pos in extra:
        starts.add(line_at(block, pos)[0])
    return [line_at(block, s) for s in sorted(starts)[:MAX_HIT_LINES]]
