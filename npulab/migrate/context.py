"""What a rule sees of one chunk of source, and how it reports a finding with the edits that fix it.

Positions from ``ast`` are UTF-8 byte columns of the parsed source; edits are made in characters of
the text as stored (the file, or the raw notebook cell, where IPython magics were not translated).
An edit whose lines differ between the two (a magic line) is placed by finding its text once in the
stored line; where that fails the finding is reported as ``manual``: a rewrite we cannot place is
not a safe rewrite.
"""

from __future__ import annotations

import ast

from npulab.core.i18n import localized, t
from npulab.migrate import tables
from npulab.migrate.model import AUTO, MANUAL, Edit, Finding
from npulab.migrate.names import Names
from npulab.migrate.sources import Chunk, SourceFile


def _same(raw: str, source: str) -> bool:
    """The stored line and the parsed line are the same text (line endings aside)."""
    return raw.rstrip("\r\n") == source.rstrip("\r\n")


class Context:
    """One chunk being analysed: its tree, names, parents, and the findings made so far."""

    def __init__(self, file: SourceFile, chunk: Chunk, names: Names, shared: dict):
        self.file, self.chunk, self.names, self.shared = file, chunk, names, shared
        self.findings: list[Finding] = []
        self.claimed: set[int] = set()  # nodes (id) a rule has already reported
        self.parents: dict[int, ast.AST] = {}
        self.docstrings: set[int] = set()
        if chunk.tree is not None:
            for parent in ast.walk(chunk.tree):
                for child in ast.iter_child_nodes(parent):
                    self.parents[id(child)] = parent
                if isinstance(parent, ast.Expr) and isinstance(parent.value, (ast.Constant, ast.JoinedStr)):
                    self.docstrings.add(id(parent.value))  # a bare string statement is documentation

    @property
    def tree(self) -> ast.Module | None:
        return self.chunk.tree

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def claim(self, node: ast.AST) -> None:
        self.claimed.add(id(node))

    def is_claimed(self, node: ast.AST) -> bool:
        return id(node) in self.claimed

    # --- positions -------------------------------------------------------------------------------------

    def char_col(self, line: int, byte_col: int) -> int:
        """Character column of a UTF-8 byte column on ``line`` (1-based) of the parsed source."""
        text = self.chunk.source_lines[line - 1] if 0 < line <= len(self.chunk.source_lines) else ""
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def start(self, node: ast.AST) -> tuple[int, int]:
        """(line, character column) where ``node`` starts."""
        return node.lineno, self.char_col(node.lineno, node.col_offset)

    def end(self, node: ast.AST) -> tuple[int, int]:
        return node.end_lineno, self.char_col(node.end_lineno, node.end_col_offset)

    def text(self, line: int, col: int, end_line: int, end_col: int) -> str:
        """Source text between two (line, character column) positions."""
        lines = self.chunk.source_lines[line - 1:end_line]
        if not lines:
            return ""
        if line == end_line:
            return lines[0][col:end_col]
        return lines[0][col:] + "".join(lines[1:-1]) + lines[-1][:end_col]

    def segment(self, node: ast.AST) -> str:
        return self.text(*self.start(node), *self.end(node))

    # --- edits ---------------------------------------------------------------------------------------------

    def edit(self, line: int, col: int, end_line: int, end_col: int, new: str) -> Edit | None:
        """An edit of the parsed source span, moved to the stored text; None when it cannot be placed."""
        old = self.text(line, col, end_line, end_col)
        raw, src = self.chunk.raw_lines, self.chunk.source_lines
        if all(i < len(raw) and i < len(src) and _same(raw[i], src[i]) for i in range(line - 1, end_line)):
            return Edit(line, col, end_line, end_col, old, new)
        if line == end_line and old and line <= len(raw) and raw[line - 1].count(old) == 1:
            at = raw[line - 1].index(old)
            return Edit(line, at, line, at + len(old), old, new)
        return None

    def replace(self, node: ast.AST, new: str) -> Edit | None:
        """Replace the whole source of ``node``."""
        return self.edit(*self.start(node), *self.end(node), new)

    def rename_attr(self, node: ast.Attribute, new: str) -> Edit | None:
        """Rename the attribute token of ``x.attr`` (it ends where the node ends)."""
        line, end = self.end(node)
        col = end - len(node.attr)
        if self.text(line, col, line, end) != node.attr:
            return None
        return self.edit(line, col, line, end, new)

    def attr_position(self, node: ast.Attribute) -> tuple[int, int]:
        """(line, column) of the attribute token of ``x.attr``."""
        line, end = self.end(node)
        return line, max(0, end - len(node.attr))

    def insert(self, line: int, col: int, text: str) -> Edit:
        """Insert ``text`` at a position of the stored text (line numbers are the same in both texts)."""
        return Edit(line, col, line, col, "", text)

    # --- findings ------------------------------------------------------------------------------------------

    def report(self, where: ast.AST | tuple[int, int], rule_id: str, *, severity: str | None = None,
               edits: list[Edit | None] | None = None, fixed_elsewhere: bool = False, detail: str = "",
               **fmt) -> Finding:
        """Record a finding of ``rule_id`` at a node or (line, column); texts come from the rule table.

        An ``auto`` finding needs its edits (or ``fixed_elsewhere``: another finding's edit fixes it);
        when an edit cannot be placed the finding becomes ``manual``.
        """
        spec = tables.rule(rule_id)
        severity = severity or spec["severity"]
        message = localized(spec, "message").format(**fmt)
        suggestion = localized(spec, "suggestion").format(**fmt)
        placed = tuple(e for e in (edits or []) if e is not None)
        if severity == AUTO and not fixed_elsewhere and (not placed or len(placed) != len(edits or [])):
            severity, suggestion, placed = MANUAL, suggestion + t("migrate.unplaceable"), ()
        if severity != AUTO:
            placed = ()
        if isinstance(where, tuple):
            line, col = where
        else:
            line, col = self.start(where)
            self.claim(where)
        raw, src = self.chunk.raw_lines, self.chunk.source_lines
        if line <= len(src) and (line > len(raw) or not _same(raw[line - 1], src[line - 1])):
            col = 0  # a translated magic line: its columns do not exist in the cell as written
        finding = Finding(self.file.display, line, col + 1, rule_id, severity, message, suggestion,
                          self.chunk.cell, placed, detail)
        self.findings.append(finding)
        return finding
