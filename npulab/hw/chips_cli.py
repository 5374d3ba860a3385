"""``python -m npulab chips [NAME] [--json]``: the Ascend chip table, or one chip's figures with their sources.

Without NAME: one comparison table of all parts. With NAME (``910B4``, ``Ascend910_9391``, ``310P3``…): every figure
of that chip — reported (with its source), derived (with its formula) or not published (with what is known).
Exit code 0 done, 2 for an unknown chip name.
"""

from __future__ import annotations

import dataclasses
import json

from npulab.core.cli import EXIT_OK, UsageError
from npulab.core.display import Table
from npulab.core.i18n import language, localized, t
from npulab.core.provenance import Figure, figure_entries, reported_source
from npulab.hw import chips as chip_table


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help=t(f"cli.tool.{name}"),
                                   description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", help=f"芯片名（{'、'.join(chip_table.chips())}，或 CANN SoC 名）；省略时列出全部")
    parser.add_argument("--json", action="store_true", help="输出 JSON")
    parser.set_defaults(run=run)


def _origin(source_key: str) -> str:
    """'title；硬件：…；版本：…' of a source, in the reader's language (what provenance.reported writes)."""
    src = reported_source(source_key)
    return t("chips.origin", title=localized(src, "title"), hardware=localized(src, "hardware"),
             versions=localized(src, "versions"))


def _formula(fig: Figure) -> str:
    """A derived figure's formula with its inputs; in English without the Chinese punctuation and count unit."""
    if language() != "en":
        return fig.origin
    for zh, en in (("（", " ("), ("）", ")"), ("，", ", "), (" 个", "")):
        fig = dataclasses.replace(fig, origin=fig.origin.replace(zh, en))
    return fig.origin


def _stored(chip: chip_table.Chip, name: str, fig: Figure) -> tuple[str, str, str]:
    """(value, source, note) of a figure stored in the chip table, in the reader's language."""
    entry = chip.raw[name]
    entry = entry if isinstance(entry, dict) else {}
    if "ref" in entry:
        ref = figure_entries()[entry["ref"]]
        return (fig.formatted(), _origin(ref["source"]), localized(ref, "method") if "method" in ref else "")
    unit = localized(chip_table.fields()[name], "unit")
    method = localized(entry, "method") if "method" in entry else t("chips.platform_file")
    return dataclasses.replace(fig, unit=unit).formatted(), _origin(entry.get("source", chip.source)), method


def _announced(fid: str, fig: Figure) -> tuple[str, str, str]:
    """(label, source, note) of a vendor-announced figure, in the reader's language."""
    entry = figure_entries()[fid]
    return localized(entry, "what"), _origin(entry["source"]), localized(entry, "method") if "method" in entry else ""


def _figure_json(fig: Figure, origin: str | None = None, note: str | None = None, unit: str | None = None) -> dict:
    return {"value": fig.value, "unit": fig.unit if unit is None else unit, "kind": fig.kind.label,
            "origin": fig.origin if origin is None else origin, "note": fig.note if note is None else note}


def chip_json(chip: chip_table.Chip) -> dict:
    """Everything the table knows about one chip, as plain data (figures with provenance, None when unpublished)."""
    stored = {}
    for name in chip_table.fields():
        if name not in chip.raw:
            continue
        fig = chip.figure(name)
        if fig:
            value, origin, note = _stored(chip, name, fig)
            ref = isinstance(chip.raw[name], dict) and "ref" in chip.raw[name]
            stored[name] = _figure_json(fig, origin, note, None if ref else localized(chip_table.fields()[name], "unit"))
        else:
            stored[name] = {"value": None, "published": False, "note": chip.unpublished_note(name)}
    announced = {}
    for fid, fig in zip(chip.announced, chip.announced_figures(), strict=True):
        label, origin, note = _announced(fid, fig)
        announced[label] = _figure_json(fig, origin, note)
    bf16_source = chip_table.reported_source(chip.bf16_source) if chip.bf16_source else None
    if bf16_source:  # the source in the reader's language, without the data file's twins
        bf16_source = {k: localized(bf16_source, k) for k in bf16_source if not k.endswith("_en")}
    return {
        "key": chip.key, "soc_version": chip.soc_version, "npu_smi_name": chip.text("npu_smi_name", chip.npu_smi_name),
        "series": chip.text("series"), "products": chip.text("products"), "dies": chip.dies,
        "architecture": chip.text("architecture"), "role": chip.text("role"),
        "training": chip.training, "bf16": chip.bf16, "dtypes": chip.text("dtypes"),
        "programming": list(chip.text("programming")), "notes": chip.text("notes"), "figures": stored,
        "derived": {f.label: _figure_json(f, _formula(f)) for f in chip.derived_figures()},
        "announced": announced,
        "preliminary": chip.text("preliminary"), "bf16_source": bf16_source,
    }


def chip_detail_table(chip: chip_table.Chip) -> Table:
    """One chip's figures: value, kind, meaning, source or formula — and the unpublished ones with their note."""
    rows = []
    for name, meta in chip_table.fields().items():
        if name not in chip.raw:
            continue
        fig = chip.figure(name)
        what = localized(meta, "what")
        if fig is None:
            rows.append([t("chips.unpublished"), "—", what, "—", chip.unpublished_note(name)])
        else:
            value, origin, note = _stored(chip, name, fig)
            rows.append([value, fig.kind.label, what, origin, note])
    for fig in chip.derived_figures():
        rows.append([fig.formatted(), fig.kind.label, fig.label, _formula(fig), fig.note])
    for fid, fig in zip(chip.announced, chip.announced_figures(), strict=True):
        label, origin, note = _announced(fid, fig)
        rows.append([fig.formatted(), t("chips.kind_announced"), label, origin, note])
    title = t("chips.detail_title", chip=chip.key, soc=chip.soc_version, series=chip.text("series"),
              role=chip.text("role"), dies=chip.dies)
    notes = [t("chips.architecture", text=chip.text("architecture")), t("chips.dtypes", text=chip.text("dtypes")),
             t("chips.programming", text=t("chips.list_sep").join(chip.text("programming")))]
    if chip.notes:
        notes.append(t("chips.notes", text=chip.text("notes")))
    if chip.preliminary:
        notes.append(t("chips.no_derived_peak", text=chip.text("preliminary")))
    if chip.bf16_source:
        notes.append(t("chips.bf16_basis", support=t("chips.bf16_yes") if chip.bf16 else t("chips.bf16_no"),
                       source=chip_table.source_line(chip.bf16_source)))
    return Table([t("chips.col_value"), t("chips.col_kind"), t("chips.col_meaning"), t("chips.col_origin"),
                  t("chips.col_note")], rows, title, notes=notes)


def run(args) -> int:
    if args.name is None:
        if args.json:
            print(json.dumps([chip_json(c) for c in chip_table.chips().values()], ensure_ascii=False, indent=2))
        else:
            print(chip_table.comparison_table().text())
        return EXIT_OK
    try:
        chip = chip_table.get_chip(args.name)
    except chip_table.UnknownChip as err:
        raise UsageError(str(err)) from None
    if args.json:
        print(json.dumps(chip_json(chip), ensure_ascii=False, indent=2))
    else:
        print(chip_detail_table(chip).text())
    return EXIT_OK
