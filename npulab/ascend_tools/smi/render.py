"""Plain-text views of the parse results (for the terminal and for notebook cells)."""

from __future__ import annotations

from npulab.ascend_tools.smi.info import SmiInfo
from npulab.ascend_tools.smi.topo import Topology
from npulab.core.display import cell_text as _cell
from npulab.core.display import text_table
from npulab.core.i18n import t


def _pair(used: int | None, total: int | None) -> str | None:
    return None if used is None and total is None else f"{_cell(used)} / {_cell(total)}"


def info_text(info: SmiInfo) -> str:
    """The chip table, the process table and any warnings of a parsed ``npu-smi info``."""
    head = t("smi.info_head", smi=info.smi_version or "?", driver=info.driver_version or "?", summary=info.summary())
    rows = [[c.npu_id, c.chip_id, c.phy_id, c.name, c.health, c.power_w, c.temp_c, c.aicore_pct,
             _pair(c.hbm_used_mb, c.hbm_total_mb), _pair(c.memory_used_mb, c.memory_total_mb), c.bus_id]
            for c in info.chips]
    parts = [head, text_table(["NPU", "Chip", "Phy-ID", t("smi.col_name"), t("smi.col_health"), t("smi.col_power"),
                               t("smi.col_temp"), "AI Core %", t("smi.col_hbm_used_total"), t("smi.col_memory_used_total"),
                               "Bus-Id"], rows)]
    if info.processes:
        parts.append(text_table(["NPU", "Chip", "PID", t("smi.col_process"), t("smi.col_device_memory")],
                           [[p.npu_id, p.chip_id, p.pid, p.name, p.memory_mb] for p in info.processes]))
    elif info.idle_npus:
        parts.append(t("smi.no_processes", npus=", ".join(map(str, info.idle_npus))))
    parts += [t("smi.note", warning=w) for w in info.warnings]
    return "\n\n".join(parts[:2] + ["\n".join(parts[2:])] if len(parts) > 2 else parts)


def topo_text(topo: Topology) -> str:
    """The link matrix with the CPU-affinity column, then a one-line summary."""
    rows = [[d] + [("X" if c == d else topo.link(d, c)) for c in topo.columns] + [topo.cpu_affinity.get(d)]
            for d in topo.devices]
    lines = [text_table([""] + topo.columns + [t("smi.col_cpu_affinity")], rows), topo.summary()]
    lines += [t("smi.note", warning=w) for w in topo.warnings]
    return "\n".join(lines)


def kv_text(result: dict, indent: str = "") -> str:
    """``key: value`` lines; chip or card records indented under their heading."""
    lines = []
    for key, value in result.items():
        if key in ("chips", "cards", "rows") and isinstance(value, list):
            for i, record in enumerate(value):
                label = {"chips": t("smi.record_chip"), "cards": t("smi.record_card"), "rows": t("smi.record_row")}[key]
                lines.append(f"{indent}[{label} {i}]")
                lines.append(kv_text(record, indent + "  ") if isinstance(record, dict) else f"{indent}  {record}")
        elif isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            lines.append(kv_text(value, indent + "  "))
        elif isinstance(value, list):
            lines.append(f"{indent}{key}: {', '.join(map(_cell, value))}")
        else:
            lines.append(f"{indent}{key}: {_cell(value)}")
    return "\n".join(line for line in lines if line)


def render(kind: str, result: object) -> str:
    """Text view of any parse result."""
    if isinstance(result, SmiInfo):
        return info_text(result)
    if isinstance(result, Topology):
        return topo_text(result)
    if kind == "watch" and isinstance(result, dict) and result.get("rows"):
        cols = result["columns"]
        text = text_table(cols, [[row.get(c) for c in cols] for row in result["rows"]])
        return "\n".join([text] + [t("smi.note", warning=w) for w in result.get("warnings", [])])
    return kv_text(result) if isinstance(result, dict) else str(result)
