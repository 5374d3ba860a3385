"""``npu-smi info -m``: which (NPU ID, Chip ID) is which "Chip Logic ID" — the id frameworks use.

The output is a whitespace-aligned table: ``NPU ID  Chip ID  Chip Logic ID  [Chip Phy-ID]  Chip Name``, one
row per chip, the MCU management chip included with logic id ``-``. ``Chip Name`` may contain a space
(``Ascend 910B3``), so it takes the rest of the row. On A3 products two chips (dies) per NPU carry logic ids.
"""

from __future__ import annotations

import re

from npulab.ascend_tools.smi.common import (
    SmiParseError,
    integer,
    is_annotation,
    is_command_line,
    split_columns,
    text_value,
)

_NAMES = re.compile(r"NPU ID|Chip Logic ID|Chip Phy-?ID|Chip Phy ID|Chip ID|Chip Name|Chip Type", re.I)
_KEYS = {"npuid": "npu_id", "chipid": "chip_id", "chiplogicid": "logic_id", "chipphyid": "phy_id",
         "chipname": "name", "chiptype": "type"}


def _header(line: str) -> list[str] | None:
    if not re.search(r"NPU\s+ID", line, re.I) or not re.search(r"Logic\s+ID", line, re.I) or ":" in line:
        return None
    found = _NAMES.findall(line)
    if re.sub(r"\s+", "", "".join(found)) == re.sub(r"\s+", "", line):
        return found
    return split_columns(line)


def parse_mapping(text: str) -> dict:
    """Parse ``npu-smi info -m`` into ``{"chips": [{npu_id, chip_id, logic_id, phy_id, name}, …]}``."""
    labels: list[str] | None = None
    chips: list[dict] = []
    warnings: list[str] = []
    partial = False
    for line in text.splitlines():
        if not line.strip() or is_command_line(line) or is_annotation(line):
            continue
        if labels is None:
            labels = _header(line)
            continue
        if _header(line):
            continue  # a repeated header
        tokens = line.split()
        n = len(labels)
        name_at = next((i for i, lab in enumerate(labels) if "name" in lab.lower()), None)
        if len(tokens) < n:
            partial = True
            warnings.append(f"行 {line.strip()!r} 只有 {len(tokens)} 列，表头有 {n} 列：输入可能被截断")
            continue
        if name_at == n - 1:
            tokens = tokens[: n - 1] + [" ".join(tokens[n - 1:])]
        row = {"npu_id": None, "chip_id": None, "logic_id": None, "phy_id": None, "name": None}
        for label, value in zip(labels, tokens, strict=False):
            key = _KEYS.get(re.sub(r"[^a-z]", "", label.lower()), re.sub(r"[^a-z]", "", label.lower()))
            row[key] = text_value(value) if key in ("name", "type") else integer(value)
        if row["npu_id"] is None:
            warnings.append(f"无法解读的行：{line.strip()!r}")
            continue
        chips.append(row)
    if labels is None:
        raise SmiParseError("没有找到 `npu-smi info -m` 的表头（NPU ID  Chip ID  Chip Logic ID  Chip Name）。")
    result: dict = {"chips": chips}
    if partial or not chips:
        result["partial"] = True
        if not chips:
            warnings.append("只有表头，没有数据行")
    if warnings:
        result["warnings"] = warnings
    return result


def logic_ids(mapping: dict) -> dict[tuple[int, int], int]:
    """(NPU ID, Chip ID) → Chip Logic ID for the chips that have one (the MCU has none)."""
    return {(c["npu_id"], c["chip_id"]): c["logic_id"] for c in mapping["chips"]
            if c["logic_id"] is not None and c["chip_id"] is not None}
