"""``.cuda()`` and ``.is_cuda`` on tensors and modules."""

from __future__ import annotations

import ast

from npulab.migrate.context import Context


def check(ctx: Context) -> None:
    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "cuda":
            if ctx.names.qualify(node.func.value) is None:  # not a module attribute such as numba.cuda
                ctx.report(ctx.attr_position(node.func), "cuda-method", edits=[ctx.rename_attr(node.func, "npu")])
                ctx.claim(node.func)
        elif isinstance(node, ast.Attribute) and node.attr == "is_cuda" and isinstance(node.ctx, ast.Load):
            if ctx.names.qualify(node.value) is None:
                ctx.report(ctx.attr_position(node), "is-cuda", edits=[ctx.rename_attr(node, "is_npu")])
                ctx.claim(node)
