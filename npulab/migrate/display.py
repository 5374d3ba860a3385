"""How a scan shows in a notebook: one HTML table of findings, then the files that could not be scanned."""

from __future__ import annotations

import html
import os

from npulab.migrate.model import SEVERITY_NAMES, ScanResult

COLUMNS = ("位置", "严重程度", "规则", "发现", "建议")


def _common_folder(paths: list[str]) -> str:
    """The folder all paths share ("" when they share none, or are relative already)."""
    folders = {os.path.dirname(p) for p in paths}
    if not folders or not all(os.path.isabs(f) for f in folders):
        return ""
    return os.path.commonpath(sorted(folders))


def html_table(result: ScanResult, max_rows: int = 300) -> str:
    """The findings as an HTML table (the same table class as the course's figure tables)."""
    def cell(text: object) -> str:
        return f"<td>{html.escape(str(text))}</td>"

    folder = _common_folder([f.path for f in result.findings])
    rows = []
    for f in result.findings[:max_rows]:
        path = os.path.relpath(f.path, folder) if folder else f.path
        where = path + (f"[单元 {f.cell}]" if f.cell is not None else "") + f":{f.line}:{f.col}"
        rows.append("<tr>" + cell(where) + cell(SEVERITY_NAMES[f.severity]) + cell(f.rule) + cell(f.message)
                    + cell(f.suggestion) + "</tr>")
    counts = result.counts()
    caption = (f"扫描了 {result.files_scanned} 个文件{f'（位于 {folder}）' if folder else ''}：" +
               "，".join(f"{SEVERITY_NAMES[s]} {n}" for s, n in counts.items()))
    if len(result.findings) > max_rows:
        caption += f"（只列出前 {max_rows} 条）"
    head = "".join(f"<th>{c}</th>" for c in COLUMNS)
    out = (f'<table class="npulab-figures"><caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead>'
           f"<tbody>{''.join(rows)}</tbody></table>")
    if result.errors:
        items = "".join(f"<li>{html.escape(e.path)}：{html.escape(e.message)}</li>" for e in result.errors)
        out += f"<p>未能扫描：</p><ul>{items}</ul>"
    return out
