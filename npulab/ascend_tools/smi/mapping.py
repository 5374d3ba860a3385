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
from npulab.core.i18n import t

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
            warnings.append(t("smi.mapping_short_row", line=repr(line.strip()), tokens=len(tokens), columns=n))
            continue
        if name_at == n - 1:
            tokens = tokens[: n - 1] + [" ".join(tokens[n - 1:])]
        row = {"npu_id": None, "chip_id": None, "logic_id": None, "phy_id": None, "name": None}
        for label, value in zip(labels, tokens, strict=False):
            key = _KEYS.get(re.sub(r"[^a-z]", "", label.lower()), re.sub(r"[^a-z]", "", label.lower()))
            row[key] = text_value(value) if key in ("name", "type") else integer(value)
        if row["npu_id"] is None:
            warnings.append(t("smi.mapping_bad_row", line=repr(line.strip())))
            continue
        chips.append(row)
    if labels is None:
        raise SmiParseError(t("smi.no_mapping_header"))
    result: dict = {"chips": chips}
    if partial or not chips:
        result["partial"] = True
        if not chips:
            warnings.append(t("smi.mapping_header_only"))
    if warnings:
        result["warnings"] = warnings
    return result


def logic_ids(mapping: dict) -> dict[tuple[int, int], int]:
    """(NPU ID, Chip ID) → Chip Logic ID for the chips that have one (the MCU has none)."""
    return {(c["npu_id"], c["chip_id"]): c["logic_id"] for c in mapping["chips"]
            if c["logic_id"] is not None and c["chip_id"] is not None}
