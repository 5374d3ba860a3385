"""Apply the auto rewrites: plan the new text of each file, show it as a unified diff, write it.

A rewritten file (or notebook cell) must still parse; if it would not, it is left unchanged and the
change reports why. Files are written in their own encoding and line endings; notebooks keep their
cell structure (only the ``source`` of changed code cells is replaced).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.i18n import t
from npulab.migrate.model import AUTO, Edit, ScanData, ScanError, cell_label
from npulab.migrate.sources import _Unreadable, cell_chunk, parse, split_lines


@dataclass
class FileChange:
    """The new text of one file (``cells``: the changed code cells of a notebook)."""

    display: str
    path: Path
    kind: str  # "python" | "notebook" | "shell"
    old: str = ""
    new: str = ""
    encoding: str = "utf-8"
    cells: list[tuple[int, int, str, str]] = field(default_factory=list)  # (cell number, list index, old, new)
    problem: str = ""  # why the change cannot be written (it would not parse)
    notebook: dict | None = None


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` applied (identical edits once; an edit overlapping an earlier one is dropped)."""
    lines = split_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        return starts[min(line, len(lines) + 1) - 1] + col if lines else col

    def overlaps(begin: int, end: int, b: int, e: int) -> bool:
        if begin == end or b == e:  # an insertion clashes only with a replacement it falls strictly inside
            return (b < begin < e) or (begin < b < end) or (begin == end == b == e)
        return begin < e and b < end

    spans, taken = [], []
    for edit in dict.fromkeys(edits):
        begin, end = offset(edit.line, edit.col), offset(edit.end_line, edit.end_col)
        if text[begin:end] != edit.old or any(overlaps(begin, end, b, e) for b, e in taken):
            continue
        taken.append((begin, end))
        spans.append((begin, end, edit.new))
    for begin, end, new in sorted(spans, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


def _edits(result: ScanData) -> dict[str, dict[int | None, list[Edit]]]:
    grouped: dict[str, dict[int | None, list[Edit]]] = {}
    for finding in result.findings:
        if finding.severity == AUTO and finding.edits:
            grouped.setdefault(finding.path, {}).setdefault(finding.cell, []).extend(finding.edits)
    return grouped


def plan(result: ScanData) -> list[FileChange]:
    """The change each file with auto rewrites would get."""
    changes = []
    for display, by_cell in _edits(result).items():
        file = result.files.get(display)
        if file is None:
            continue
        change = FileChange(display, file.path, file.kind, encoding=file.encoding)
        if file.kind in ("python", "shell"):
            change.old = file.chunks[0].raw
            change.new = apply_edits(change.old, by_cell.get(None, []))
            try:
                if file.kind == "python":
                    parse(change.new)
            except _Unreadable as err:
                change.problem = t("migrate.rewrite_unparsable", error=err)
        else:
            change.notebook = file.notebook
            for chunk in file.chunks:
                if chunk.cell not in by_cell:
                    continue
                new = apply_edits(chunk.raw, by_cell[chunk.cell])
                if new == chunk.raw:
                    continue
                change.cells.append((chunk.cell, chunk.index, chunk.raw, new))
                rewritten = cell_chunk(new)
                try:
                    if rewritten is not None and rewritten.kind == "python":
                        parse(rewritten.source)
                except _Unreadable as err:
                    change.problem = t("migrate.cell_rewrite_unparsable", cell=chunk.cell, error=err)
        if change.new != change.old or change.cells:
            changes.append(change)
    return changes


def _lines_for_diff(text: str) -> list[str]:
    return [line if line.endswith(("\n", "\r")) else line + "\n" for line in split_lines(text)]


def unified_diff(changes: list[FileChange]) -> str:
    """One unified diff for all changes (notebooks: one hunk group per changed cell)."""
    out = []
    for change in changes:
        if change.kind != "notebook":
            out += difflib.unified_diff(_lines_for_diff(change.old), _lines_for_diff(change.new),
                                        f"a/{change.display.lstrip('/')}", f"b/{change.display.lstrip('/')}")
        for number, _, old, new in change.cells:
            out += difflib.unified_diff(_lines_for_diff(old), _lines_for_diff(new),
                                        f"a/{change.display.lstrip('/')}{cell_label(number)}",
                                        f"b/{change.display.lstrip('/')}{cell_label(number)}")
    return "".join(out)


def _json_indent(path: Path) -> int:
    try:
        with path.open(encoding="utf-8") as f:
            f.readline()
            second = f.readline()
    except (OSError, UnicodeDecodeError):
        return 1
    match = re.match(r"^( +)\S", second)
    return len(match.group(1)) if match else 1


def _replace_atomically(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    try:
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write(changes: list[FileChange]) -> tuple[list[str], list[ScanError]]:
    """Write the changes that parse; (written display paths, errors)."""
    written, errors = [], []
    for change in changes:
        if change.problem:
            errors.append(ScanError(change.display, change.problem))
            continue
        try:
            if change.kind != "notebook":
                data = change.new.encode(change.encoding)
            else:
                indent = _json_indent(change.path)
                nb = change.notebook
                for _, index, _, new in change.cells:
                    cell = nb["cells"][index]
                    cell["source"] = split_lines(new) if isinstance(cell.get("source"), list) else new
                data = (json.dumps(nb, indent=indent, ensure_ascii=False) + "\n").encode("utf-8")
            _replace_atomically(change.path, data)
            written.append(change.display)
        except (OSError, UnicodeEncodeError) as err:
            errors.append(ScanError(change.display, t("migrate.write_failed", error=getattr(err, "strerror", None) or err)))
    return written, errors
