"""lint-npu, constants read from released source: the literal a name or class attribute stands for across modules
and imports (:func:`resolve_literal`), and the literal a function assigns to a local name."""

from __future__ import annotations

import ast

from npulab.lint.allowed_values import _MISSING
from npulab.lint.signatures import SourceTree, _top_level


def _local_literal(func: ast.FunctionDef, name: str):
    """The literal assigned to ``name`` inside ``func`` (lists of strings, dicts of such; other values as None)."""
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return _literal(node.value)
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name and node.value:
            return _literal(node.value)
    return None


def _literal(node: ast.expr):
    if isinstance(node, ast.Dict):  # a lambda value is the test the key's values must pass (kept to be run)
        return {k.value: v if isinstance(v, ast.Lambda) else _literal(v)
                for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None  # e.g. (int,): a type, not a list of values
    return value if isinstance(value, (list, tuple)) else None


def _module_of(tree: SourceTree, dotted: str) -> str:
    """The module of ``module.function`` or ``module.Class.method``."""
    parts = dotted.split(".")
    return ".".join(parts[:-1]) if tree.tree(".".join(parts[:-1])) is not None else ".".join(parts[:-2])


def _binding(tree: SourceTree, module: str, name: str, depth: int):
    """(module, node) that binds ``name`` at the top level of ``module``, following ``from x import name``."""
    parsed = tree.tree(module) if depth < 8 else None
    found = _top_level(parsed, name) if parsed is not None else None
    if isinstance(found, ast.ImportFrom):
        alias = next(a for a in found.names if (a.asname or a.name) == name)
        return _binding(tree, tree._absolute(module, found), alias.name, depth + 1)
    if found is None and parsed is not None and not name.startswith("_"):  # from .operations import *
        for node in parsed.body:
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                where, bound = _binding(tree, tree._absolute(module, node), name, depth + 1)
                if bound is not None:
                    return where, bound
    return module, found


def resolve_literal(tree: SourceTree, module: str, node: ast.expr, depth: int = 0):
    """The constant an expression of ``module`` stands for: literals, module constants and class attributes
    (``ProfilerLevel.Level1`` -> ``Constant.LEVEL1`` -> 'Level1'), across imports; _MISSING when not constant."""
    if depth > 8:
        return _MISSING
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        values = [resolve_literal(tree, module, e, depth + 1) for e in node.elts]
        return _MISSING if any(v is _MISSING for v in values) else values
    if isinstance(node, ast.Name):
        where, found = _binding(tree, module, node.id, depth)
        if isinstance(found, ast.Assign) and len(found.targets) == 1:
            return resolve_literal(tree, where, found.value, depth + 1)
        return _MISSING
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        where, cls = _binding(tree, module, node.value.id, depth)
        if isinstance(cls, ast.ClassDef):
            for stmt in cls.body:
                if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.attr for t in stmt.targets):
                    return resolve_literal(tree, where, stmt.value, depth + 1)
    return _MISSING
