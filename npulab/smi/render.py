"""Plain-text views of the parse results (for the terminal and for notebook cells)."""

from __future__ import annotations

import html
import unicodedata

from npulab.smi.info import SmiInfo
from npulab.smi.topo import Topology


def display_width(text: str) -> int:
    """Display width: CJK characters take two columns in a terminal."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _cell(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def table(headers: list[str], rows: list[list[object]]) -> str:
    """A left-aligned text table; None shows as an em dash."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([display_width(h)] + [display_width(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: list[str]) -> str:
        return "  ".join(v + " " * (w - display_width(v)) for v, w in zip(values, widths, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells])


def _pair(used: int | None, total: int | None) -> str | None:
    return None if used is None and total is None else f"{_cell(used)} / {_cell(total)}"


def info_text(info: SmiInfo) -> str:
    """The chip table, the process table and any warnings of a parsed ``npu-smi info``."""
    head = f"npu-smi {info.smi_version or '?'}，驱动 {info.driver_version or '?'}：{info.summary()}"
    rows = [[c.npu_id, c.chip_id, c.phy_id, c.name, c.health, c.power_w, c.temp_c, c.aicore_pct,
             _pair(c.hbm_used_mb, c.hbm_total_mb), _pair(c.memory_used_mb, c.memory_total_mb), c.bus_id]
            for c in info.chips]
    parts = [head, table(["NPU", "Chip", "Phy-ID", "名称", "健康", "功耗 W", "温度 °C", "AI Core %",
                          "HBM 已用/总量 MB", "内存 已用/总量 MB", "Bus-Id"], rows)]
    if info.processes:
        parts.append(table(["NPU", "Chip", "PID", "进程名", "设备内存 MB"],
                           [[p.npu_id, p.chip_id, p.pid, p.name, p.memory_mb] for p in info.processes]))
    elif info.idle_npus:
        parts.append(f"进程表：NPU {', '.join(map(str, info.idle_npus))} 上没有进程")
    parts += [f"注意：{w}" for w in info.warnings]
    return "\n\n".join(parts[:2] + ["\n".join(parts[2:])] if len(parts) > 2 else parts)


def topo_text(topo: Topology) -> str:
    """The link matrix with the CPU-affinity column, then a one-line summary."""
    rows = [[d] + [("X" if c == d else topo.link(d, c)) for c in topo.columns] + [topo.cpu_affinity.get(d)]
            for d in topo.devices]
    lines = [table([""] + topo.columns + ["CPU 亲和性"], rows), topo.summary()]
    lines += [f"注意：{w}" for w in topo.warnings]
    return "\n".join(lines)


def kv_text(result: dict, indent: str = "") -> str:
    """``key: value`` lines; chip or card records indented under their heading."""
    lines = []
    for key, value in result.items():
        if key in ("chips", "cards", "rows") and isinstance(value, list):
            for i, record in enumerate(value):
                label = {"chips": "芯片记录", "cards": "卡", "rows": "行"}[key]
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
        text = table(cols, [[row.get(c) for c in cols] for row in result["rows"]])
        return "\n".join([text] + [f"注意：{w}" for w in result.get("warnings", [])])
    return kv_text(result) if isinstance(result, dict) else str(result)


class Table:
    """Rows that show as an HTML table in Jupyter and the book, and as aligned text anywhere else."""

    def __init__(self, headers: list[str], rows: list[list[object]], title: str = ""):
        self.headers, self.rows, self.title = list(headers), [list(r) for r in rows], title

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(h)}</th>" for h in self.headers)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>" for row in self.rows)
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return f'<table class="npulab-figures">{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'

    def __repr__(self) -> str:
        return "\n".join(([self.title] if self.title else []) + [table(self.headers, self.rows)])
