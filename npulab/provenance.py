"""Figures with provenance: every number a lesson shows says where it comes from.

Four kinds (DESIGN.md): measured by the cell just run, recorded on real Ascend hardware,
reported by a named source (kept in ``assets/data/reported_figures.yaml``), or derived from
cited numbers by a formula shown next to it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from enum import Enum

from npulab.paths import DATA_DIR, load_yaml

REPORTED_FILE = DATA_DIR / "reported_figures.yaml"


class Kind(Enum):
    MEASURED = "实测"
    RECORDED = "录制"
    REPORTED = "报告"
    DERIVED = "推导"


@dataclass(frozen=True)
class Figure:
    """One number with its unit, kind and where it comes from (device, source or formula)."""

    label: str
    value: float
    unit: str
    kind: Kind
    origin: str  # measured: the device; reported: the source; derived: the formula
    note: str = ""

    def formatted(self) -> str:
        value = f"{self.value:,.6g}" if isinstance(self.value, float) else f"{self.value:,}"
        return f"{value} {self.unit}".strip()


def _load_reported() -> dict:
    return load_yaml(REPORTED_FILE)


def reported(figure_id: str, label: str | None = None) -> Figure:
    """A figure reported by a named source, from the course's data file."""
    data = _load_reported()
    try:
        entry = data["figures"][figure_id]
    except KeyError:
        raise KeyError(f"报告数据中没有 {figure_id!r}；请先把它连同来源加入 {REPORTED_FILE.name}") from None
    source = data["sources"][entry["source"]]
    origin = f"{source['title']}；硬件：{source['hardware']}；版本：{source['versions']}"
    return Figure(label or entry["what"], entry["value"], entry["unit"], Kind.REPORTED, origin, entry.get("method", ""))


def reported_source(key: str) -> dict:
    """The bibliographic entry (title, url, hardware, versions) of a source key."""
    return dict(_load_reported()["sources"][key])


def measured(label: str, value: float, unit: str, device: object, note: str = "") -> Figure:
    """A figure measured by the cell just run, on ``device``."""
    return Figure(label, value, unit, Kind.MEASURED, f"本机 {device}", note)


def derived(label: str, value: float, unit: str, formula: str, note: str = "") -> Figure:
    """A figure computed from other figures by ``formula`` (shown to the reader)."""
    return Figure(label, value, unit, Kind.DERIVED, formula, note)


class FigureTable:
    """A table of figures that renders as HTML in Jupyter and the book, and as text elsewhere."""

    columns = ("数值", "类型", "含义", "出处 / 设备 / 公式", "说明")

    def __init__(self, figures: list[Figure], title: str = ""):
        self.figures = list(figures)
        self.title = title

    def rows(self) -> list[tuple[str, ...]]:
        return [(f.formatted(), f.kind.value, f.label, f.origin, f.note) for f in self.figures]

    def _repr_html_(self) -> str:
        """HTML table; each distinct source of reported figures is cited once, as a numbered note under it."""
        notes: list[str] = []
        rows = []
        for figure, row in zip(self.figures, self.rows(), strict=True):
            cells = [html.escape(str(cell)) for cell in row]
            if figure.kind is Kind.REPORTED:
                if figure.origin not in notes:
                    notes.append(figure.origin)
                cells[3] = f"见注 [{notes.index(figure.origin) + 1}]"
            rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
        head = "".join(f"<th>{c}</th>" for c in self.columns)
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        foot = ""
        if notes:
            items = "<br>".join(f"[{i}] {html.escape(note)}" for i, note in enumerate(notes, 1))
            foot = f'<tfoot><tr><td colspan="{len(self.columns)}">来源：<br>{items}</td></tr></tfoot>'
        return (f'<table class="npulab-figures">{caption}<thead><tr>{head}</tr></thead>'
                f'<tbody>{"".join(rows)}</tbody>{foot}</table>')

    def __repr__(self) -> str:
        lines = [self.title] if self.title else []
        lines += [" | ".join(row) for row in self.rows()]
        return "\n".join(lines)


def show(figures: list[Figure], title: str = "") -> FigureTable:
    """Return a displayable table of ``figures`` (the last expression of a cell renders it)."""
    return FigureTable(figures, title)
