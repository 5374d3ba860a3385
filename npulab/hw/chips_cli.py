"""``python -m npulab chips [NAME] [--json]``: the Ascend chip table, or one chip's figures with their sources.

Without NAME: one comparison table of all parts. With NAME (``910B4``, ``Ascend910_9391``, ``310P3``…): every figure
of that chip — reported (with its source), derived (with its formula) or not published (with what is known).
Exit code 0 done, 2 for an unknown chip name.
"""

from __future__ import annotations

import json

from npulab.core.cli import EXIT_OK, UsageError
from npulab.core.display import Table
from npulab.core.provenance import Figure
from npulab.hw import chips as chip_table


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help="昇腾芯片对照表：核数、频率、内存、缓冲、峰值与出处",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", help=f"芯片名（{'、'.join(chip_table.chips())}，或 CANN SoC 名）；省略时列出全部")
    parser.add_argument("--json", action="store_true", help="输出 JSON")
    parser.set_defaults(run=run)


def _figure_json(fig: Figure) -> dict:
    return {"value": fig.value, "unit": fig.unit, "kind": fig.kind.value, "origin": fig.origin, "note": fig.note}


def chip_json(chip: chip_table.Chip) -> dict:
    """Everything the table knows about one chip, as plain data (figures with provenance, None when unpublished)."""
    stored = {}
    for name in chip_table.fields():
        if name not in chip.raw:
            continue
        fig = chip.figure(name)
        stored[name] = _figure_json(fig) if fig else {"value": None, "published": False, "note": chip.unpublished_note(name)}
    return {
        "key": chip.key, "soc_version": chip.soc_version, "npu_smi_name": chip.npu_smi_name, "series": chip.series,
        "products": chip.products, "dies": chip.dies, "architecture": chip.architecture, "role": chip.role,
        "training": chip.training, "bf16": chip.bf16, "dtypes": chip.dtypes, "programming": list(chip.programming),
        "notes": chip.notes, "figures": stored,
        "derived": {f.label: _figure_json(f) for f in chip.derived_figures()},
        "announced": {f.label: _figure_json(f) for f in chip.announced_figures()},
        "preliminary": chip.preliminary, "bf16_source": chip_table.reported_source(chip.bf16_source) if chip.bf16_source else None,
    }


def chip_detail_table(chip: chip_table.Chip) -> Table:
    """One chip's figures: value, kind, meaning, source or formula — and the unpublished ones with their note."""
    rows = []
    for name, meta in chip_table.fields().items():
        if name not in chip.raw:
            continue
        fig = chip.figure(name)
        if fig is None:
            rows.append(["未公开", "—", meta["what"], "—", chip.unpublished_note(name)])
        else:
            rows.append([fig.formatted(), fig.kind.value, meta["what"], fig.origin, fig.note])
    for fig in chip.derived_figures():
        rows.append([fig.formatted(), fig.kind.value, fig.label, fig.origin, fig.note])
    for fig in chip.announced_figures():
        rows.append([fig.formatted(), "报告（厂商标称）", fig.label, fig.origin, fig.note])
    title = f"{chip.key}（{chip.soc_version}）：{chip.series}；{chip.role}；{chip.dies} 个 die"
    notes = [f"架构：{chip.architecture}", f"数据类型：{chip.dtypes}", f"编程与部署路径：{'、'.join(chip.programming)}"]
    if chip.notes:
        notes.append(f"说明：{chip.notes}")
    if chip.preliminary:
        notes.append(f"没有推导峰值：{chip.preliminary}")
    if chip.bf16_source:
        notes.append(f"BF16 {'支持' if chip.bf16 else '不支持'}的依据：{chip_table.source_line(chip.bf16_source)}")
    return Table(["数值", "类型", "含义", "出处 / 公式", "说明"], rows, title, notes=notes)


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
