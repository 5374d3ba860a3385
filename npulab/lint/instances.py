"""lint-npu, calls on objects a cell built: ``ds = ds.NumpySlicesDataset(…)`` then ``ds = ds.batch(0)``,
``opt = torch.optim.SGD(…)`` then ``opt.add_param_group(…)``. :func:`built_classes` finds the names a cell binds once,
at its top level, to a constructor of the released sources (later rebound only as ``x = x.method(…)``, the fluent
form of dataset pipelines, whose methods the same base class holds); :func:`method_definition` finds the method in
the class or its bases, so the method's own checks (npulab.lint.relations) are read as for any call.
"""

from __future__ import annotations

import ast

from npulab.lint.api_values import _binding
from npulab.lint.signatures import SourceTree, _class_member, _top_level
from npulab.pytorch.torch_npu_names import dotted_parts

_MAX_BASES = 8


def _fluent(node: ast.stmt, name: str) -> bool:
    """``name = name.method(…)``."""
    return isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
        and node.targets[0].id == name and isinstance(node.value, ast.Call) \
        and isinstance(node.value.func, ast.Attribute) and isinstance(node.value.func.value, ast.Name) \
        and node.value.func.value.id == name


def built_classes(tree: ast.Module, aliases: dict[str, str], skip: set[str], class_of) -> dict[str, str]:
    """name -> the ``module.Class`` a cell's top-level ``name = Class(…)`` builds (``class_of``: the dotted name a
    call writes -> its class's definition, or None), where every other store of the name is ``name = name.m(…)``."""
    stores: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
    out: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id not in out and stmt.targets[0].id not in aliases \
                and isinstance(stmt.value, ast.Call) and (parts := dotted_parts(stmt.value.func)) \
                and parts[0] in aliases and parts[0] not in skip:
            name = stmt.targets[0].id
            fluent = sum(_fluent(s, name) for s in tree.body)
            cls = class_of(".".join([aliases[parts[0]], *parts[1:]]))
            if cls and stores[name] == 1 + fluent:
                out[name] = cls
    return out


def method_definition(source: SourceTree, cls: str, name: str, depth: int = 0) -> str | None:
    """``module.Owner.name`` of the method ``name`` that instances of ``cls`` (``module.Class``) run: the class's
    own, or its bases' (each base followed across imports, the first that defines it, in order)."""
    module, _, class_name = cls.rpartition(".")
    parsed = source.tree(module)
    node = _top_level(parsed, class_name) if parsed is not None else None
    if not isinstance(node, ast.ClassDef) or depth > _MAX_BASES:
        return None
    member = _class_member(node, name)
    if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return f"{module}.{class_name}.{name}"
    if member is not None:
        return None  # an attribute, not a method
    for base in node.bases:
        if isinstance(base, ast.Name):
            where, found = _binding(source, module, base.id, 0)
            if isinstance(found, ast.ClassDef):
                owner = method_definition(source, f"{where}.{found.name}", name, depth + 1)
                if owner is not None:
                    return owner
    return None


def method_calls(tree: ast.Module, built: dict[str, str]):
    """(line, written, the instance's class, method name, call node) of the calls ``x.method(…)`` on built names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id in built and not node.func.attr.startswith("_"):
            yield node.lineno, f"{node.func.value.id}.{node.func.attr}", built[node.func.value.id], node.func.attr, node
