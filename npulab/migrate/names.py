"""What the names of a file stand for: import bindings, so ``tc.synchronize`` is known as ``torch.cuda.synchronize``."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from npulab.pytorch.torch_npu_names import dotted_parts

# names a script may use without importing them in the part we see (a notebook cell, a snippet)
IMPLICIT = {"torch": "torch"}


class Names:
    """Import bindings of one file (all its chunks): local name → dotted path of what was imported."""

    def __init__(self, trees: Iterable[ast.AST]):
        self.bindings: dict[str, str] = {}
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    for name, target in imported(node):
                        self.bindings.setdefault(name, target)  # the first binding in source order wins

    def qualify(self, node: ast.AST) -> str | None:
        """The dotted path an expression names (``tc.synchronize`` → ``torch.cuda.synchronize``), or None."""
        parts = dotted_parts(node)
        if parts is None:
            return None
        root = self.bindings.get(parts[0]) or IMPLICIT.get(parts[0])
        return ".".join([root, *parts[1:]]) if root else None

    def root(self, node: ast.AST) -> ast.Name | None:
        """The Name at the start of an attribute chain."""
        while isinstance(node, ast.Attribute):
            node = node.value
        return node if isinstance(node, ast.Name) else None


def imported(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    """(bound name, dotted path) pairs of an import statement; relative and star imports bind nothing we track."""
    if isinstance(node, ast.Import):
        return [(a.asname, a.name) if a.asname else (a.name.split(".")[0], a.name.split(".")[0]) for a in node.names]
    if node.level or not node.module:
        return []
    return [(a.asname or a.name, f"{node.module}.{a.name}") for a in node.names if a.name != "*"]


def module_of(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement loads (``from a.b import c`` → ``a.b`` and ``a.b.c``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level or not node.module:
        return []
    return [node.module] + [f"{node.module}.{a.name}" for a in node.names if a.name != "*"]
