"""How a scan shows: the text report of the command line, and in a notebook one HTML table of findings, then the
files that could not be scanned."""

from __future__ import annotations

import os

from npulab.core.display import Table
from npulab.migrate.effort import describe, summarize
from npulab.migrate.model import SEVERITY_NAMES, ScanData

COLUMNS = ("位置", "严重程度", "规则", "发现", "建议")


def _common_folder(paths: list[str]) -> str:
    """The folder all paths share ("" when they share none, or are relative already)."""
    folders = {os.path.dirname(p) for p in paths}
    if not folders or not all(os.path.isabs(f) for f in folders):
        return ""
    return os.path.commonpath(sorted(folders))


def findings_table(result: ScanData, max_rows: int = 300) -> Table:
    """The findings as a course table: where, severity, rule, what, suggestion; unreadable files as notes."""
    folder = _common_folder([f.path for f in result.findings])
    rows = []
    for f in result.findings[:max_rows]:
        path = os.path.relpath(f.path, folder) if folder else f.path
        where = path + (f"[单元 {f.cell}]" if f.cell is not None else "") + f":{f.line}:{f.col}"
        rows.append((where, SEVERITY_NAMES[f.severity], f.rule, f.message, f.suggestion))
    caption = (f"扫描了 {result.files_scanned} 个文件{f'（位于 {folder}）' if folder else ''}："
               + "，".join(f"{SEVERITY_NAMES[s]} {n}" for s, n in result.counts().items()))
    if len(result.findings) > max_rows:
        caption += f"（只列出前 {max_rows} 条）"
    notes = ["未能扫描："] + [f"{e.path}：{e.message}" for e in result.errors] if result.errors else []
    return Table(COLUMNS, rows, caption, notes=notes)


TRANSFER_NOTE = (
    "一行的替代方案：在入口脚本最前面写 import torch、import torch_npu、from torch_npu.contrib import transfer_to_npu"
    "（或在导入 torch 之前设置环境变量 TORCH_TRANSFER_TO_NPU=1）。它在运行时把 torch.cuda.* 换成 torch.npu.*、"
    ".cuda() 换成 .npu()、nccl 换成 hccl，并替换白名单函数里的 \"cuda\" 设备参数；管不到的是自定义 CUDA 内核与扩展、"
    "CUDA 专用的包、CUDA_VISIBLE_DEVICES 等环境变量、nvidia-smi、白名单以外的设备字符串（如 x.device.type == \"cuda\" 的比较），"
    "而且会停用 torch.jit.script。适合先让代码跑起来；长期维护的代码建议按本报告改写。"
)


def text_report(result: ScanData) -> str:
    """The text report: findings by file, errors, summary, effort, the one-line alternative."""
    lines = []
    current = None
    for f in result.findings:
        if f.path != current:
            current = f.path
            lines.append(f"\n{f.path}")
        where = f"[单元 {f.cell}] " if f.cell is not None else ""
        lines.append(f"  {where}{f.line}:{f.col}  {SEVERITY_NAMES[f.severity]}  {f.rule}：{f.message}")
        lines.append(f"      → {f.suggestion}")
    if result.errors:
        lines.append("\n未能扫描：")
        lines += [f"  {e.path}：{e.message}" for e in result.errors]
    lines.append(f"\n扫描了 {result.files_scanned} 个文件。")
    summary = summarize(result)
    lines.append(describe(summary))
    if summary["scenario"] is not None:
        lines.append(TRANSFER_NOTE)
    return "\n".join(lines).lstrip("\n")
