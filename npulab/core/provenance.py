"""Figures with provenance: every number a lesson shows says where it comes from.

Four kinds (DESIGN.md): measured by the cell just run, recorded on real Ascend hardware,
reported by a named source (kept in ``npulab/data/reported_figures.yaml``), or derived from
cited numbers by a formula shown next to it.

What a reader sees (kinds, origins, table headers, the labels and methods of reported figures) is in npulab's
language (``npulab.core.i18n``): the data file keeps an English twin beside each Chinese field (``what_en`` …).
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from enum import Enum

from npulab.core.display import Table, emit
from npulab.core.i18n import language, localized, t
from npulab.core.paths import DATA_DIR, load_yaml

REPORTED_FILE = DATA_DIR / "reported_figures.yaml"
CHIPS_FILE = DATA_DIR / "chips.yaml"  # the chip table: its figures are reported figures too (chip.<KEY>.<field>)
_UNITS_EN = {"个": ""}  # Chinese units of the data files (a count) as an English page writes them


class Kind(Enum):
    MEASURED = "实测"
    RECORDED = "录制"
    REPORTED = "报告"
    DERIVED = "推导"

    @property
    def label(self) -> str:
        """The kind as the reader's language names it (``value`` stays the Chinese name)."""
        return {Kind.MEASURED: lambda: t("provenance.kind_measured"), Kind.RECORDED: lambda: t("provenance.kind_recorded"),
                Kind.REPORTED: lambda: t("provenance.kind_reported"),
                Kind.DERIVED: lambda: t("provenance.kind_derived")}[self]()


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


def _chip_figures(chips: dict, figures: dict) -> dict:
    """The chip table's stored figures as reported-figure entries: ``chip.<KEY>.<field>`` plus the legacy ids.

    A bare number takes the chip's source; ``{ref: id}`` points at a figure kept elsewhere (not copied);
    ``{published: false}`` is no figure at all. Derived figures are not stored (npulab.hw.chips derives them).
    """
    out: dict = {}
    for key, chip in chips["chips"].items():
        for field, raw in chip["figures"].items():
            entry = raw if isinstance(raw, dict) else {"value": raw}
            if entry.get("published") is False:
                continue
            if "ref" in entry:
                out[f"chip.{key}.{field}"] = {**figures[entry["ref"]], **({"note": entry["note"]} if "note" in entry else {})}
                continue
            meta = chips["fields"][field]
            method = ({"method": entry["method"], **({"method_en": entry["method_en"]} if "method_en" in entry else {})}
                      if "method" in entry else
                      {"method": t("provenance.platform_file", "zh"), "method_en": t("provenance.platform_file", "en")})
            out[f"chip.{key}.{field}"] = {
                "value": entry["value"], "unit": meta["unit"], "what": t("provenance.chip_what", "zh", chip=key, what=meta["what"]),
                **({"what_en": t("provenance.chip_what", "en", chip=key, what=meta["what_en"])} if "what_en" in meta else {}),
                "source": entry.get("source", chip["source"]), **method,
                **({"note": entry["note"]} if "note" in entry else {})}
    for prefix, spec in chips.get("legacy", {}).items():  # e.g. ini.910b3.cube_cores = chip.910B3.cube_cores
        renamed = {v: k for k, v in spec.get("renames", {}).items()}
        for field, raw in chips["chips"][spec["chip"]]["figures"].items():
            cid = f"chip.{spec['chip']}.{field}"
            if cid in out and not (isinstance(raw, dict) and "ref" in raw):
                out[f"{prefix}.{renamed.get(field, field)}"] = out[cid]
    return out


def _load_reported() -> dict:
    data = load_yaml(REPORTED_FILE)
    chips = load_yaml(CHIPS_FILE)
    data["sources"].update(chips["sources"])
    data["figures"].update(_chip_figures(chips, data["figures"]))
    return data


def figure_entries() -> dict:
    """Every reported figure entry by id (the data file's and the chip table's), as plain data."""
    return _load_reported()["figures"]


def reported(figure_id: str, label: str | None = None) -> Figure:
    """A figure reported by a named source, from the course's data file."""
    data = _load_reported()
    try:
        entry = data["figures"][figure_id]
    except KeyError:
        raise KeyError(t("provenance.unknown_figure", figure=repr(figure_id), file=REPORTED_FILE.name)) from None
    source = data["sources"][entry["source"]]
    origin = t("provenance.origin", title=localized(source, "title"), hardware=localized(source, "hardware"),
               versions=localized(source, "versions"))
    method = localized(entry, "method") if "method" in entry else ""
    unit = localized(entry, "unit")
    if language() == "en":
        unit = _UNITS_EN.get(unit, unit)
    return Figure(label or localized(entry, "what"), entry["value"], unit, Kind.REPORTED, origin, method)


def reported_source(key: str) -> dict:
    """The bibliographic entry (title, url, hardware, versions) of a source key."""
    return dict(_load_reported()["sources"][key])


def measured(label: str, value: float, unit: str, device: object, note: str = "") -> Figure:
    """A figure measured by the cell just run, on ``device``."""
    return Figure(label, value, unit, Kind.MEASURED, t("provenance.this_machine", device=device), note)


def derived(label: str, value: float, unit: str, formula: str, note: str = "") -> Figure:
    """A figure computed elsewhere from other figures by ``formula`` (shown to the reader).

    Prefer :func:`derive`, which computes the value from the formula it shows, so the two cannot disagree.
    """
    return Figure(label, value, unit, Kind.DERIVED, formula, note)


_ALLOWED_CALLS = {"min": min, "max": max, "abs": abs, "sqrt": math.sqrt, "log2": math.log2, "ceil": math.ceil,
                  "floor": math.floor}
_ALLOWED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Call, ast.Add,
                  ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.Mod, ast.USub, ast.UAdd)


def _value_of(x: object) -> float:
    return x.value if isinstance(x, Figure) else x  # type: ignore[return-value]


def _shown_number(x: float) -> str:
    """Large integers with thousands separators (25,557,032; 1800 stays 1800), other numbers in short form."""
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return f"{int(x):,}" if abs(x) >= 10_000 else str(int(x))
    return f"{x:.6g}"


def evaluate(formula: str, **inputs: object) -> float:
    """Evaluate an arithmetic ``formula`` over named inputs (numbers or Figures; min/max/abs/sqrt/log2/ceil/floor)."""
    tree = ast.parse(formula, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ValueError(t("provenance.bad_node", formula=repr(formula), node=type(node).__name__))
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _ALLOWED_CALLS):
            raise ValueError(t("provenance.bad_call", names=", ".join(_ALLOWED_CALLS), formula=repr(formula)))
        if isinstance(node, ast.Name) and node.id not in inputs and node.id not in _ALLOWED_CALLS:
            raise ValueError(t("provenance.missing_input", formula=repr(formula), name=repr(node.id)))
    names = {k: _value_of(v) for k, v in inputs.items()}
    return eval(compile(tree, "<formula>", "eval"), {"__builtins__": {}}, {**_ALLOWED_CALLS, **names})  # noqa: S307


def derive(label: str, formula: str, unit: str, *, digits: int | None = 4, note: str = "", **inputs: object) -> Figure:
    """A derived figure whose value IS ``formula`` evaluated over ``inputs``; the page shows the formula and the
    numbers put into it, so label, formula and value cannot disagree.

    >>> derive("加速比", "t_cpu / t_npu", "×", t_cpu=351.01, t_npu=2.13).value
    164.8
    """
    value = evaluate(formula, **inputs)
    shown = t("provenance.input_separator").join(
        f"{k} = {_shown_number(_value_of(v))}" + (f" {v.unit}" if isinstance(v, Figure) and v.unit else "")
        for k, v in inputs.items())
    if digits is not None:
        value = float(f"{value:.{digits}g}")
    origin = t("provenance.formula_inputs", formula=formula, inputs=shown) if shown else formula
    return Figure(label, value, unit, Kind.DERIVED, origin, note)


class FigureTable(Table):
    """A table of figures: value, kind, meaning, where it comes from, note.

    Each distinct source of reported figures is cited once, as a numbered note under the table, instead of the
    same long citation in every row.
    """

    columns = ("数值", "类型", "含义", "出处 / 设备 / 公式", "说明")  # the Chinese headers; the table shows column_headers()

    @staticmethod
    def column_headers() -> tuple[str, ...]:
        """The column headers in npulab's language."""
        return (t("provenance.column_value"), t("provenance.column_kind"), t("provenance.column_meaning"),
                t("provenance.column_origin"), t("provenance.column_note"))

    def __init__(self, figures: list[Figure], title: str = ""):
        self.figures = list(figures)
        sources: list[str] = []
        rows = []
        for f in self.figures:
            origin = f.origin
            if f.kind is Kind.REPORTED:
                if origin not in sources:
                    sources.append(origin)
                origin = t("provenance.see_note", number=sources.index(origin) + 1)
            rows.append((f.formatted(), f.kind.label, f.label, origin, f.note))
        notes = [t("provenance.sources")] + [f"[{i}] {s}" for i, s in enumerate(sources, 1)] if sources else []
        super().__init__(self.column_headers(), rows, title, notes=notes)


def show(figures: list[Figure], title: str = "") -> None:
    """Show a table of ``figures`` where it is called (HTML in a notebook, text elsewhere); ``FigureTable`` builds one.

    It displays itself rather than returning the table: a returned table renders only as the last expression of a
    cell, so a table followed by the machine footer or shown inside an ``if`` used to vanish from the page.
    """
    emit(FigureTable(figures, title))
