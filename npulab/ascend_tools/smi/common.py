"""Rules shared by the npu-smi parsers: null markers, typed values, ``used / total`` pairs, column splitting.

npu-smi output changes width between driver versions, so nothing here uses character offsets: columns are
separated by runs of two or more spaces (or tabs), a ``used / total`` pair may lose its spaces
(``26838/ 32768``), and ``NA``, ``N/A``, ``-`` and an empty cell all mean "no value" (hiascend npu-smi field tables 300Ipro_015, atlasdg_11_0151, and the captures in ``npulab/data/samples``).
"""

from __future__ import annotations

import re

NULL_MARKERS = frozenset({"", "NA", "N/A", "-", "--"})
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?")
_COLUMNS = re.compile(r"\s{2,}|\t")
_PAIR = re.compile(r"^(?P<used>\S+?)\s*/\s*(?P<total>\S+)$")


class SmiParseError(ValueError):
    """The text is not npu-smi output of the expected kind; the message (Chinese) says what was expected."""


class SmiUnsupported(SmiParseError):
    """npu-smi answered that the device does not support this query (e.g. ``-t topo`` on an Atlas 200I A2)."""


def is_null(text: str | None) -> bool:
    """True for the markers npu-smi prints instead of a value: ``NA``, ``N/A``, ``-``, ``--`` or nothing."""
    return text is None or text.strip().upper() in NULL_MARKERS


def number(text: str | None) -> int | float | None:
    """``"42"`` → 42, ``"94.6"`` → 94.6; a null marker or anything that is not a number → None."""
    if is_null(text):
        return None
    text = text.strip()
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    return None


def integer(text: str | None) -> int | None:
    """An integer field (ids, MB, pages); None when null or not an integer."""
    value = number(text)
    return value if isinstance(value, int) else None


def real(text: str | None) -> float | None:
    """A real-valued field such as power in W; None when null or not a number."""
    value = number(text)
    return None if value is None else float(value)


def text_value(text: str | None) -> str | None:
    """A text field, stripped; None for a null marker."""
    return None if is_null(text) else text.strip()


def used_total(text: str | None) -> tuple[int | None, int | None]:
    """``"3379 / 65536"``, ``"26838/ 32768"`` or ``"0/0"`` → (used, total); null parts → None."""
    if is_null(text):
        return None, None
    match = _PAIR.match(text.strip())
    if not match:
        return None, None
    return integer(match["used"]), integer(match["total"])


def split_columns(text: str) -> list[str]:
    """Split on runs of ≥ 2 spaces or tabs (single spaces stay inside a value such as ``Ascend 910B3``)."""
    text = text.strip()
    return [part for part in _COLUMNS.split(text) if part] if text else []


def join_pairs(text: str) -> str:
    """Close up ``used / total`` so that the pair is one column: ``"0    / 0   3373 / 65536"`` → ``"0/0   3373/65536"``."""
    return re.sub(r"\s*/\s*", "/", text)


def snake(label: str) -> str:
    """A field label as a Python key: ``"Memory Usage Rate(%)"`` → ``"memory_usage_rate_pct"``."""
    key = label.replace("%", " pct ")
    key = re.sub(r"[^0-9A-Za-z]+", "_", key).strip("_").lower()
    return key or "field"


def unsupported_sentence(text: str) -> str | None:
    """The sentence npu-smi prints for an unsupported query ("This device does not support …"), or None."""
    for line in text.splitlines():
        if re.search(r"does not support", line, flags=re.I):
            return line.strip()
    return None


def is_command_line(line: str) -> bool:
    """A shell prompt or the command itself (``npu-smi info -t board -i 0``), not tool output."""
    stripped = line.strip()
    return bool(re.search(r"(^|[\s#$>])npu-smi(\s|$)", stripped)) and "|" not in stripped and ":" not in stripped.split("npu-smi")[-1]


def is_annotation(line: str) -> bool:
    """An editor's note in a copied sample (``[... truncated ...]``), never tool output."""
    return line.strip().startswith("[...")
