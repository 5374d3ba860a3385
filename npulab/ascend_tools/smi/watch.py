"""``npu-smi info watch``: one line per chip per refresh, under a header of titled columns.

The header names each column with its unit in parentheses (``NpuID(Idx)  ChipId(Idx) Pwr(W)  Temp(C)
AI Core(%)  AI Cpu(%)  Ctrl Cpu(%)  Memory(%)  Memory BW(%)``); two titles can be separated by a single
space, and titles contain spaces, so titles are found by the ``name(unit)`` pattern, not by splitting.
The columns can be selected on the command line, so the parser takes whatever header it finds. Values are
separated by whitespace; a header and its values may even share one line (a flattened copy).
"""

from __future__ import annotations

import re

from npulab.ascend_tools.smi.common import SmiParseError, is_annotation, is_command_line, number, snake
from npulab.core.i18n import t

_TITLE = re.compile(r"[A-Za-z][A-Za-z0-9_ ]*?\([^)]*\)")
_ALIASES = {"npuid_idx": "npu_id", "npuid": "npu_id", "chipid_idx": "chip_id", "chipid": "chip_id",
            "pwr_w": "power_w", "ai_core_pct": "aicore_pct", "ai_cpu_pct": "aicpu_pct", "ctrl_cpu_pct": "ctrlcpu_pct"}


def _split_header(line: str) -> tuple[list[str], str]:
    """Column titles of a header line and whatever follows them on the same line."""
    stripped = line.strip()
    if "(" in stripped:
        titles = list(_TITLE.finditer(stripped))
        end = titles[-1].end() if titles else 0
        return [m.group().strip() for m in titles], stripped[end:]
    words = stripped.split()
    lead = 0
    while lead < len(words) and not re.fullmatch(r"[-+]?\d+(\.\d+)?|NA|-", words[lead]):
        lead += 1
    return words[:lead], " ".join(words[lead:])


def parse_watch(text: str) -> dict:
    """Parse ``npu-smi info watch`` into ``{"columns": [keys], "rows": [{key: value}, …]}``."""
    columns: list[str] | None = None
    values: list[str] = []
    for line in text.splitlines():
        if not line.strip() or is_command_line(line) or is_annotation(line):
            continue
        if re.search(r"NpuID", line, re.I):
            titles, rest = _split_header(line)
            if columns is None:
                columns = [_ALIASES.get(snake(t), snake(t)) for t in titles]
            values.extend(rest.split())
            continue
        if columns is not None:
            values.extend(line.split())
    if not columns:
        raise SmiParseError(t("smi.no_watch_header"))
    n = len(columns)
    rows = [dict(zip(columns, (number(v) for v in values[i:i + n]), strict=True))
            for i in range(0, len(values) - n + 1, n)]
    result: dict = {"columns": columns, "rows": rows}
    leftover = len(values) % n
    if leftover:
        result["partial"] = True
        result["warnings"] = [t("smi.watch_short_row", leftover=leftover, expected=n)]
    return result
