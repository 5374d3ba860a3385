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
from npulab.env import compatibility as compat
from npulab.env import torch_install
from npulab.hw import chips as chip_table

CPU_TORCH_SOURCE = ("torch 从 PyTorch 的 CPU 索引安装（PyPI 的 torch 在 x86_64 与 2.11 起的 aarch64 上是 CUDA 版，"
                    f"torch_npu 不能与它同用）：{torch_install.SOURCE}")


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
        raise UsageError(f"无法识别的 CANN 版本 {text!r}（例如 8.0.0、8.0.RC3、9.1.0）")
    return text


def driver_section(cann: str, driver: str | None) -> Section:
    """The HDK released with this CANN and, when a driver version is given, the matrix's answer."""
    paired = compat.hdk_for_cann(cann)
    section = Section(f"CANN {cann} 与驱动（HDK）", sources=[compat.source_of("hdk_pairs")])
    section.lines.append(f"与 CANN {cann} 一同发布的 HDK：{'、'.join(paired)}" if paired
                         else f"配套表里没有与 CANN {cann} 一同发布的 HDK 记录。")
    if driver:
        ok = compat.hdk_compatible(cann, driver)
        section.sources.append(compat.source_of("hdk_matrix"))
        if ok is None:
            section.status = "warn"
            section.lines.append(f"驱动 {driver}：兼容性矩阵里没有这一行或这一列，无法判断；以昇腾官网的版本配套表为准。")
        elif ok:
            section.status = "ok"
            section.lines.append(f"驱动 {driver}：兼容性矩阵标为兼容（Y）。")
        else:
            section.status = "fail"
            section.lines.append(f"驱动 {driver}：兼容性矩阵标为不兼容（N）：先升级驱动与固件到上面列出的 HDK 版本。")
    return section


def torch_section(cann: str) -> Section:
    """The official torch_npu rows for this CANN as install commands."""
    rows = compat.torch_npu_for_cann(cann)
    section = Section(f"PyTorch + torch_npu（CANN {cann}）", sources=[compat.source_of("torch_npu")])
    if not rows:
        section.status = "warn"
        section.lines.append(f"torch_npu 的官方配套表里没有 CANN {cann} 的行：换用表中有的 CANN 版本，或查 Ascend/pytorch 的发布说明。")
        return section
    section.status = "ok"
    for row in rows:
        python = compat.python_for_torch(row["pytorch"])
        section.lines.append(f"torch_npu {row['torch_npu']} + PyTorch {row['pytorch']}（{row['status']}）"
                             + (f"，Python {'、'.join(python)}" if python else ""))
        section.commands.append(torch_install.pair_text(row["pytorch"], row["torch_npu"]))
    section.sources += [compat.source_of("pytorch_python"), CPU_TORCH_SOURCE]
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
    section = Section(f"MindSpore（CANN {cann}）")
    if not found:
        section.lines.append(f"MindSpore 的配套表里没有与 CANN {cann} 直接配对的版本。")
        return section
    section.status = "ok"
    for version, pair in found.items():
        python = f"，Python {'、'.join(pair['python'])}" if pair.get("python") else ""
        section.lines.append(f"MindSpore {version}{python}" + ("（来源之间不完全一致）" if pair.get("uncertain") else ""))
        section.commands.append(f"pip install mindspore=={version}")
        if pair["source"] not in section.sources:
            section.sources.append(pair["source"])
    return section


def recommended_section() -> Section:
    """The course's recommended combination (the ``recommended`` table)."""
    section = Section("课程推荐的组合（没有给出 CANN 版本时）", "ok", sources=[compat.source_of("recommended")])
    for row in compat.table("recommended"):
        section.lines.append(f"CANN {row['cann']} + PyTorch {row['pytorch']} + torch_npu {row['torch_npu']}，"
                             f"Python {'、'.join(row['python'])}")
        section.commands.append(torch_install.pair_text(row["pytorch"], row["torch_npu"]))
    section.sources.append(CPU_TORCH_SOURCE)
    return section


def chip_section(name: str) -> Section:
    try:
        chip = chip_table.get_chip(name)
    except chip_table.UnknownChip as err:
        raise UsageError(str(err)) from None
    return Section(f"芯片 {chip.key}（{chip.soc_version}）", lines=[
        f"系列：{chip.series}；{chip.role}；BF16：{'支持' if chip.bf16 else '不支持'}",
        f"编程与部署路径：{'、'.join(chip.programming)}",
        "安装 CANN 时选择与这一系列对应的软件包（昇腾官网的 CANN 下载页按产品系列列出）。"])


def resolve(cann: str | None = None, driver: str | None = None, chip: str | None = None) -> list[Section]:
    """The sections of the answer for the given versions (each optional)."""
    sections = [chip_section(chip)] if chip else []
    if cann:
        cann = _cann_version(cann)
        sections += [driver_section(cann, driver), torch_section(cann), mindspore_section(cann)]
    else:
        if driver:
            sections.append(Section("驱动（HDK）", "warn", [f"驱动 {driver}：请同时给出 CANN 版本（--cann），才能查兼容性矩阵。"]))
        sections.append(recommended_section())
    return sections


def render(sections: list[Section]) -> str:
    marks = {"ok": "✓", "warn": "!", "fail": "✗", "info": "·"}
    out = []
    for s in sections:
        out.append(f"{marks.get(s.status, '·')} {s.title}")
        out += [f"    {line}" for line in s.lines]
        out += [f"    $ {cmd}" for cmd in s.commands]
        out += [f"    来源：{src}" for src in s.sources]
        out.append("")
    return "\n".join(out).rstrip("\n")


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help="由芯片、驱动与 CANN 版本查该装的 PyTorch/torch_npu/MindSpore 版本与安装命令",
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
