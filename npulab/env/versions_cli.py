"""``python -m npulab versions [--cann V] [--driver V] [--chip NAME] [--json]``: what to install for these versions.

A thin reader of ``npulab/data/compatibility.yaml`` through ``npulab.env.compatibility`` (no table of its own):

- CANN ↔ driver (HDK): the HDK released with this CANN, and the matrix's answer for the given driver;
- PyTorch + torch_npu: the official rows for this CANN, as ``pip install`` commands (torch from the PyTorch CPU index,
  written by ``npulab.env.torch_install``), with the Python versions;
- MindSpore: the releases the MindSpore tables pair with this CANN;
- the chip (``npulab.hw.chips``): its series and what it runs.

Without ``--cann`` it gives the course's recommended combination. Exit code 0 done, 1 when the driver does not
match the CANN in the matrix, 2 for bad input.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import t
from npulab.env import compatibility as compat
from npulab.env import torch_install
from npulab.hw import chips as chip_table


def cpu_torch_source() -> str:
    """Why and where torch comes from the PyTorch CPU index, in the reader's language."""
    return t("versions.cpu_torch_source", source=torch_install.SOURCE)


@dataclass
class Section:
    """One part of the answer: a title, its status (ok, warn, fail, info), lines, commands and the sources."""

    title: str
    status: str = "info"
    lines: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def _cann_version(text: str) -> str:
    if compat.try_parse(compat.cann_base(text)) is None:
        raise UsageError(t("versions.bad_cann", text=repr(text)))
    return text


def driver_section(cann: str, driver: str | None) -> Section:
    """The HDK released with this CANN and, when a driver version is given, the matrix's answer."""
    paired = compat.hdk_for_cann(cann)
    section = Section(t("versions.driver_title", cann=cann), sources=[compat.source_of("hdk_pairs")])
    section.lines.append(t("versions.hdk_paired", cann=cann, hdk=t("versions.list_sep").join(paired)) if paired
                         else t("versions.no_hdk", cann=cann))
    if driver:
        ok = compat.hdk_compatible(cann, driver)
        section.sources.append(compat.source_of("hdk_matrix"))
        if ok is None:
            section.status = "warn"
            section.lines.append(t("versions.driver_unknown", driver=driver))
        elif ok:
            section.status = "ok"
            section.lines.append(t("versions.driver_ok", driver=driver))
        else:
            section.status = "fail"
            section.lines.append(t("versions.driver_bad", driver=driver))
    return section


def torch_section(cann: str) -> Section:
    """The official torch_npu rows for this CANN as install commands."""
    rows = compat.torch_npu_for_cann(cann)
    section = Section(t("versions.torch_title", cann=cann), sources=[compat.source_of("torch_npu")])
    if not rows:
        section.status = "warn"
        section.lines.append(t("versions.no_torch_rows", cann=cann))
        return section
    section.status = "ok"
    for row in rows:
        python = compat.python_for_torch(row["pytorch"])
        section.lines.append(t("versions.torch_row", torch_npu=row["torch_npu"], pytorch=row["pytorch"], status=row["status"])
                             + (t("versions.python", versions=t("versions.list_sep").join(python)) if python else ""))
        section.commands.append(torch_install.pair_text(row["pytorch"], row["torch_npu"]))
    section.sources += [compat.source_of("pytorch_python"), cpu_torch_source()]
    return section


def mindspore_section(cann: str) -> Section:
    """MindSpore releases the MindSpore tables pair with this CANN (exact matches only)."""
    want = compat.try_parse(compat.cann_base(cann))
    found: dict[str, dict] = {}
    versions = sorted({v for name in compat.table_names() for row in compat.table(name)
                       if isinstance(row.get("mindspore"), list) for v in row["mindspore"]}, key=compat.parse_version)
    for version in reversed(versions):
        for pair in compat.cann_for_mindspore(version):
            listed = [pair.get("cann"), pair.get("cann_commercial")]
            if pair["match"] == "exact" and any(compat.try_parse(compat.cann_base(str(v))) == want for v in listed if v):
                found.setdefault(version, pair)
    section = Section(t("versions.mindspore_title", cann=cann))
    if not found:
        section.lines.append(t("versions.no_mindspore", cann=cann))
        return section
    section.status = "ok"
    for version, pair in found.items():
        python = t("versions.python", versions=t("versions.list_sep").join(pair["python"])) if pair.get("python") else ""
        section.lines.append(f"MindSpore {version}{python}" + (t("versions.uncertain") if pair.get("uncertain") else ""))
        section.commands.append(f"pip install mindspore=={version}")
        if pair["source"] not in section.sources:
            section.sources.append(pair["source"])
    return section


def recommended_section() -> Section:
    """The course's recommended combination (the ``recommended`` table)."""
    section = Section(t("versions.recommended_title"), "ok", sources=[compat.source_of("recommended")])
    for row in compat.table("recommended"):
        section.lines.append(t("versions.recommended_row", cann=row["cann"], pytorch=row["pytorch"], torch_npu=row["torch_npu"],
                               python=t("versions.list_sep").join(row["python"])))
        section.commands.append(torch_install.pair_text(row["pytorch"], row["torch_npu"]))
    section.sources.append(cpu_torch_source())
    return section


def chip_section(name: str) -> Section:
    try:
        chip = chip_table.get_chip(name)
    except chip_table.UnknownChip as err:
        raise UsageError(str(err)) from None
    return Section(t("versions.chip_title", chip=chip.key, soc=chip.soc_version), lines=[
        t("versions.chip_series", series=chip.text("series"), role=chip.text("role"),
          bf16=t("versions.bf16_yes") if chip.bf16 else t("versions.bf16_no")),
        t("versions.chip_paths", paths=t("versions.list_sep").join(chip.text("programming"))),
        t("versions.chip_cann")])


def resolve(cann: str | None = None, driver: str | None = None, chip: str | None = None) -> list[Section]:
    """The sections of the answer for the given versions (each optional)."""
    sections = [chip_section(chip)] if chip else []
    if cann:
        cann = _cann_version(cann)
        sections += [driver_section(cann, driver), torch_section(cann), mindspore_section(cann)]
    else:
        if driver:
            sections.append(Section(t("versions.driver_only_title"), "warn", [t("versions.driver_needs_cann", driver=driver)]))
        sections.append(recommended_section())
    return sections


def render(sections: list[Section]) -> str:
    marks = {"ok": "✓", "warn": "!", "fail": "✗", "info": "·"}
    out = []
    for s in sections:
        out.append(f"{marks.get(s.status, '·')} {s.title}")
        out += [f"    {line}" for line in s.lines]
        out += [f"    $ {cmd}" for cmd in s.commands]
        out += ["    " + t("versions.source", source=src) for src in s.sources]
        out.append("")
    return "\n".join(out).rstrip("\n")


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help=t(f"cli.tool.{name}"),
                                   description=__doc__.splitlines()[0])
    parser.add_argument("--cann", default="", help="CANN 版本（例如 8.0.0、9.1.0）；省略时给出课程推荐的组合")
    parser.add_argument("--driver", default="", help="驱动版本（npu-smi info 第一行的 Version，例如 24.1.rc1）")
    parser.add_argument("--chip", default="", help=f"芯片名（{'、'.join(chip_table.chips())}）")
    parser.add_argument("--json", action="store_true", help='输出 JSON：{"sections": [{"title", "status", "lines", "commands", "sources"}]}')
    parser.set_defaults(run=run)


def run(args) -> int:
    sections = resolve(args.cann.strip() or None, args.driver.strip() or None, args.chip.strip() or None)
    if args.json:
        print(json.dumps({"sections": [asdict(s) for s in sections]}, ensure_ascii=False, indent=2))
    else:
        print(render(sections))
    return EXIT_FAIL if any(s.status == "fail" for s in sections) else EXIT_OK
