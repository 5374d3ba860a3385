"""lint-npu, ``torch.compile(backend="…")``: a backend given by name must be one that the released sources register —
torch's ``torch._dynamo.backends.*`` (``@register_backend`` definitions and ``register_backend(name=…)`` calls) and
the torch_npu wheel's ``torch_npu.dynamo`` (``npu``, ``npugraph_ex``: the names its registering helper is called
with, or that helper's default). A backend object (``torchair.get_npu_backend(...)``) is not checked.
"""

from __future__ import annotations

import ast
import difflib
from functools import cache

from npulab.core.i18n import t
from npulab.core.words import guess_end, joined
from npulab.lint.api_values import _MISSING, argument, resolve_literal
from npulab.lint.calls import source_tree, torch_calls
from npulab.lint.signatures import SourceTree

_TORCH = "torch._dynamo.backends"
_NPU = "torch_npu.dynamo"
_REGISTERS = {"register_backend", "register_debug_backend", "_register_backend"}


def _registers(func: ast.expr) -> bool:
    return ast.unparse(func).rsplit(".", 1)[-1] in _REGISTERS


def _named(call: ast.Call, tree: SourceTree, module: str) -> str | None:
    node = next((kw.value for kw in call.keywords if kw.arg == "name"), call.args[1] if len(call.args) > 1 else None)
    value = resolve_literal(tree, module, node) if node is not None else _MISSING
    return value if isinstance(value, str) else None


def _registered(tree: SourceTree, module: str) -> set[str]:
    """Names one module registers: decorated defs, ``register_backend(name=…)`` calls, and calls of a local helper
    that hands its ``name`` parameter on to ``register_backend`` (torch_npu's ``_register_npu_backend``)."""
    parsed = tree.tree(module)
    out: set[str] = set()
    helpers: dict[str, tuple[int, ast.expr | None]] = {}  # helper -> (position of its name parameter, its default)
    for node in ast.walk(parsed) if parsed is not None else ():
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                if _registers(deco.func if isinstance(deco, ast.Call) else deco):
                    out.add((_named(deco, tree, module) if isinstance(deco, ast.Call) else None) or node.name)
            params = [a.arg for a in node.args.args]
            for call in (n for n in ast.walk(node) if isinstance(n, ast.Call) and _registers(n.func)):
                passed = [ast.unparse(a) for a in call.args[1:2]] + [ast.unparse(k.value) for k in call.keywords if k.arg == "name"]
                if passed and passed[0] in params:
                    index = params.index(passed[0])
                    defaults = [None] * (len(params) - len(node.args.defaults)) + list(node.args.defaults)
                    helpers[node.name] = (index, defaults[index])
        elif isinstance(node, ast.Call) and _registers(node.func) and (name := _named(node, tree, module)):
            out.add(name)
    for call in (n for n in ast.walk(parsed) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)) if parsed else ():
        if call.func.id in helpers:
            index, default = helpers[call.func.id]
            node = call.args[index] if len(call.args) > index else default
            value = resolve_literal(tree, module, node) if node is not None else _MISSING
            if isinstance(value, str):
                out.add(value)
    return out


@cache
def backends(torch: SourceTree, npu: SourceTree | None) -> tuple[frozenset[str], str]:
    """(the backend names the releases register, where they were read)."""
    names = set()
    for module in (m for m in torch.sources if m == _TORCH or m.startswith(_TORCH + ".")):
        names |= _registered(torch, module)
    where = f"torch {torch.version} {_TORCH}.*"
    if npu is not None:
        names |= _registered(npu, _NPU)
        where += f"; torch_npu {npu.version} {_NPU}"
    return frozenset(names), where


def compile_calls(tree: ast.Module, aliases: dict[str, str], sources):
    """(torch's source tree, line, written call, call node) of each ``torch.compile(…)`` of a cell."""
    for torch, line, written, full, call in torch_calls(tree, aliases, sources):
        if torch.definition(full) == "torch.compile":
            yield torch, line, written, call


def findings(tree: ast.Module, aliases: dict[str, str], sources) -> list[tuple[int, str, str]]:
    """(line, written call, sentence) for ``torch.compile(backend="name")`` with a name no release registers."""
    out = []
    for torch, line, written, call in compile_calls(tree, aliases, sources):
        node = argument(call, None, "backend")
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        # torch_npu only here: a cell without a literal backend needs no torch_npu wheel
        known, where = backends(torch, source_tree(sources, "torch_npu"))
        if known and node.value not in known:
            guess = difflib.get_close_matches(node.value, sorted(known), n=1, cutoff=0.5)
            why = t("lint.compile.backend", value=repr(node.value), known=joined(sorted(known)), source=where)
            out.append((line, written, t("lint.line_call", line=line, written=written, problem=why)
                        + guess_end(f"`{guess[0]}`" if guess else None)))
    return out
