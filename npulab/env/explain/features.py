"""What a log comes down to for comparing it with other logs: the words of its decisive error lines.

The lines are the ones the other readers already picked (the root error line, the strongest error lines, the rules'
evidence), plus the documented codes and the package the error was raised in. Each line is reduced to what carries
over from one machine to another: exception types, error codes, library, package and operator names and the words
of the message; numbers, hexadecimal addresses, time stamps and the folders of paths are dropped (a path keeps its
file name: ``/usr/local/Ascend/…/libhccl.so`` → ``libhccl.so``). Identifiers are kept whole and also split at ``.``
and ``_`` (``torch_npu.npu_format_cast`` → ``torch_npu``, ``npu_format_cast``, ``torch``, ``npu``, ``format``, ``cast``); digits are dropped from words
(``aclnnConv3d`` → ``aclnnconvd``, ``float16`` → ``float``); Chinese text gives its character pairs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MIN_CHARS = 3  # shorter words are dropped ("a", "is", "ms")
_SPLIT = re.compile(r"[\s\"'`()\[\]{}<>,;=|]+")  # what ends a path (no pattern here backtracks: any line is linear)
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
_WORD = re.compile(r"[a-z_][a-z0-9_.]*[a-z0-9_]|[a-z_]")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_STOP = frozenset("""the and for with from this that not was are but has have had you your can could will would
into than then there their them they its it's which when while what where were been being does did done all any some
one two use used using please line file""".split())


def line_tokens(line: str) -> list[str]:
    """The comparable words of one line, in order (a word may repeat)."""
    text = _HEX.sub(" ", " ".join(w.replace("\\", "/").rpartition("/")[2] for w in _SPLIT.split(line))).lower()
    out = []
    for word in _WORD.findall(text):
        dotted = word.split(".")
        parts = dict.fromkeys([word, *dotted, *(p for d in dotted for p in d.split("_"))])
        for part in parts:
            part = re.sub(r"\d+", "", part).strip("_.")
            if len(part) >= MIN_CHARS and part not in _STOP:
                out.append(part)
    for run in _CJK_RUN.findall(line):
        out.extend(run[i:i + 2] for i in range(len(run) - 1))
    return out


def log_tokens(lines: Iterable[str], codes: Iterable[str] = (), components: Iterable[str] = ()) -> list[str]:
    """The words of a log's decisive lines (each distinct line once), its codes (``code:<code>``) and the packages its
    errors were raised in (``pkg:<name>``)."""
    out = []
    for line in dict.fromkeys(line for line in lines if line):
        out.extend(line_tokens(line))
    out.extend(f"code:{c.lower()}" for c in dict.fromkeys(codes))
    out.extend(f"pkg:{c.lower()}" for c in dict.fromkeys(components))
    return out
