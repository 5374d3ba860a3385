"""lint-npu, torch limits read from torch's own docstrings: the text ``add_docstr(torch.quantile, r"...")`` gives a
C-parsed function in the wheel's ``torch/_torch_docs.py``, the text ``x = _add_docstr(torch._C._nn.x, r"...")`` gives
one in its own module (``torch.nn.functional``, ``torch.fft``, ``torch.linalg``), and the docstring of a ``def`` or a
class (``torch.nn.HuberLoss``: "delta (float, optional): … The value must be positive."). Many of torch's checks are
C++ that lint-npu cannot read, but the ``Args:`` paragraph of each parameter says what it takes; the phrases of
npulab.lint.op_doc_phrases (ranges such as ``in the range [0, 1]`` and ``:math:`\\in[0, \\infty]```, bounds such
as ``must be positive``) are read there by npulab.lint.op_docs's paragraph reader, only where a phrase says one
thing, stands under no condition and the documented default satisfies it. Each limit becomes a ``refused`` rule run by
npulab.lint.relations.rule_problems, citing the wheel, the module and the function.
"""

from __future__ import annotations

import ast
from functools import cache

from npulab.lint import op_docs, own_checks
from npulab.lint.signatures import Signature, SourceTree, _top_level
from npulab.lint.source_validations import constructor

DOCS_MODULE = "torch._torch_docs"  # add_docstr(torch.<name>, text) for the functions of the torch namespace
_INDEX: dict = {}  # id(tree) -> (tree, {"torch.<name>": text})


def _text(node: ast.expr) -> str | None:
    """A docstring argument: a string, or a string's ``.format(**common_args)`` (its placeholders left as written)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        node = node.func.value
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _added(node: ast.stmt) -> tuple[str, str] | None:
    """(documented target, text) of an ``add_docstr(target, text)`` statement or ``x = _add_docstr(target, text)``."""
    call = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
    if not isinstance(call, ast.Call) or len(call.args) != 2:
        return None
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    text = _text(call.args[1])
    return (ast.unparse(call.args[0]), text) if name.endswith("add_docstr") and text is not None else None


def _index(tree: SourceTree) -> dict[str, str]:
    if id(tree) not in _INDEX:
        parsed = tree.tree(DOCS_MODULE)
        found = {}
        for node in parsed.body if parsed is not None else []:
            if (added := _added(node)) is not None:
                found[added[0]] = added[1]
        _INDEX[id(tree)] = (tree, found)
    return _INDEX[id(tree)][1]


def _literal_defaults(func: ast.FunctionDef) -> dict:
    """parameter -> its default where that is a literal (own_checks.UNKNOWN otherwise: none, or computed), for
    every parameter of a ``def`` but ``self``."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    out = {a.arg: own_checks.UNKNOWN for a in [*positional, *args.kwonlyargs] if a.arg not in ("self", "cls")}
    for arg, default in pairs:
        try:
            out[arg.arg] = ast.literal_eval(default)
        except ValueError:
            out[arg.arg] = own_checks.UNKNOWN
    return out


def documented(tree: SourceTree, full: str, definition: str) -> tuple[str, str, dict] | None:
    """(text, module it is read from, the ``def``'s parameters with their literal defaults) documenting a torch
    callable; None when there is none."""
    module, _, name = (definition or full).rpartition(".")
    parsed = tree.tree(module) if module else None
    node = _top_level(parsed, name) if parsed is not None else None
    if isinstance(node, ast.ClassDef):  # a class documents its constructor's parameters (its own or inherited)
        init = constructor(tree, f"{module}.{name}")[1]
        text = ast.get_docstring(node)
        defaults = _literal_defaults(init) if isinstance(init, ast.FunctionDef) else {}
        return (text, module, defaults) if text else None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        text = ast.get_docstring(node)  # the stubs of torch._C carry the docstrings too
        if text:
            return text, module, _literal_defaults(node)
    if isinstance(node, ast.Assign) and (added := _added(node)) is not None:
        return added[1], module, {}
    text = _index(tree).get(full)
    return (text, DOCS_MODULE, {}) if text is not None else None


@cache
def _limits(tree_key: int, full: str, definition: str, names: tuple[str, ...]) -> tuple[dict, ...]:
    tree = _INDEX[tree_key][0]
    found = documented(tree, full, definition)
    if found is None:
        return ()
    text, module, defaults = found
    names = tuple(dict.fromkeys([*names, *defaults]))
    return op_docs.limits_of_text(text, full.rpartition(".")[2], names, tree.version, defaults,
                                  "source_torch", module)


def limits(tree: SourceTree, full: str, definition: str, sig: Signature | None) -> list[dict]:
    """The limits torch's docstring of ``full`` states, as ``refused`` rules (api_values.yaml's shape)."""
    if tree.package != "torch" or not full.startswith("torch."):
        return []
    _index(tree)
    names = tuple(sig.positional + sig.keyword_only) if sig is not None else ()
    return list(_limits(id(tree), full, definition, names))


def problems(tree: SourceTree, full: str, definition: str, call: ast.Call, sig: Signature | None, done: set[str],
             built: frozenset[str] = frozenset()) -> list[tuple[list[str], str]]:
    """(parameters, sentence) for the documented limits a call's literal arguments break, one a parameter, none for a
    parameter already reported (``done``)."""
    from npulab.lint.relations import rule_problems  # relations runs these rules; it does not need this module

    out: list = []
    for rule in limits(tree, full, definition, sig):
        out += rule_problems(tree, definition or full, call, sig, done | {p for read, _ in out for p in read}, built, [rule],
                             op_docs.dtype_resolver)[:1]
    return out
