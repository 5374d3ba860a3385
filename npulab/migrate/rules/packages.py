"""Imports (and uses) of packages that only work with NVIDIA GPUs: apex, flash_attn, cupy, numba.cuda, ..."""

from __future__ import annotations

import ast
from dataclasses import replace

from npulab.core.i18n import localized, t
from npulab.migrate import tables
from npulab.migrate.context import Context
from npulab.migrate.model import MANUAL
from npulab.migrate.names import module_of
from npulab.migrate.rules.torch_api import outermost_chains

IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _optional(ctx: Context, node: ast.AST) -> bool:
    """The import sits in a ``try`` whose handlers catch ImportError: the package is optional."""
    child, parent = node, ctx.parent(node)
    while parent is not None:
        if isinstance(parent, ast.Try) and child in parent.body:
            for handler in parent.handlers:
                caught = handler.type
                names = [caught] if not isinstance(caught, ast.Tuple) else list(caught.elts)
                if caught is None or any(isinstance(n, ast.Name) and n.id in IMPORT_ERRORS for n in names):
                    return True
        child, parent = parent, ctx.parent(parent)
    return False


def _report(ctx: Context, where, key: str, spec: dict, optional: bool = False) -> None:
    severity = tables.package_severity(spec)
    finding = ctx.report(where, "cuda-package", severity=MANUAL if optional else severity,
                         package=key, what=localized(spec, "what"), note=localized(spec, "note"), detail=key)
    if optional:
        ctx.findings[-1] = replace(finding, suggestion=finding.suggestion + t("migrate.optional_import"))


def check(ctx: Context) -> None:
    reported: set[tuple[str, int]] = set()
    for node in ast.walk(ctx.tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for module in module_of(node):
                found = tables.package(module)
                if found and (found[0], node.lineno) not in reported:
                    reported.add((found[0], node.lineno))
                    _report(ctx, node, *found, optional=_optional(ctx, node))
    for node, name in outermost_chains(ctx):  # numba.cuda.jit after ``import numba``
        found = tables.package(name)
        root = ctx.names.bindings.get(ctx.names.root(node).id, "")
        if found and not tables.package(root) and (found[0], node.lineno) not in reported:
            reported.add((found[0], node.lineno))
            _report(ctx, node, *found)
