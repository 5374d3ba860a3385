"""How a scan shows: the text report of the command line, and in a notebook one HTML table of findings, then the
files that could not be scanned."""

from __future__ import annotations

import os

from npulab.core.display import Table
from npulab.core.i18n import t
from npulab.migrate.effort import describe, summarize
from npulab.migrate.model import ScanData, cell_label, severity_name


def columns() -> tuple[str, ...]:
    return (t("migrate.col_where"), t("migrate.col_severity"), t("migrate.col_rule"), t("migrate.col_finding"),
            t("migrate.col_suggestion"))


def counts_text(counts: dict, sep: str) -> str:
    """``可自动改写 3，需人工判断 1，…`` in the reader's language."""
    return sep.join(t("effort.counts", name=severity_name(s), n=n) for s, n in counts.items())


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
        where = path + cell_label(f.cell) + f":{f.line}:{f.col}"
        rows.append((where, severity_name(f.severity), f.rule, f.message, f.suggestion))
    caption = t("migrate.caption", files=result.files_scanned,
                folder=t("migrate.caption_folder", folder=folder) if folder else "",
                counts=counts_text(result.counts(), t("migrate.comma_sep")))
    if len(result.findings) > max_rows:
        caption += t("migrate.caption_first", rows=max_rows)
    notes = [t("migrate.not_scanned")] + [t("migrate.error_line", path=e.path, message=e.message)
                                            for e in result.errors] if result.errors else []
    return Table(columns(), rows, caption, notes=notes)


def text_report(result: ScanData) -> str:
    """The text report: findings by file, errors, summary, effort, the one-line alternative."""
    lines = []
    current = None
    for f in result.findings:
        if f.path != current:
            current = f.path
            lines.append(f"\n{f.path}")
        where = cell_label(f.cell) + " " if f.cell is not None else ""
        lines.append(t("migrate.finding_line", where=where, line=f.line, col=f.col, severity=severity_name(f.severity),
                       rule=f.rule, message=f.message))
        lines.append(f"      → {f.suggestion}")
    if result.errors:
        lines.append("\n" + t("migrate.not_scanned"))
        lines += ["  " + t("migrate.error_line", path=e.path, message=e.message) for e in result.errors]
    lines.append("\n" + t("migrate.scanned", files=result.files_scanned))
    summary = summarize(result)
    lines.append(describe(summary))
    if summary["scenario"] is not None:
        lines.append(t("migrate.transfer_note"))
    return "\n".join(lines).lstrip("\n")
