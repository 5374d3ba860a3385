"""lint-npu, option objects: ``config = torchair.CompilerConfig()`` then ``config.mode = "reduce_overhead"`` or
``config.experimental_config.frozen_parameter = "True"`` — torchair's config classes (``NpuBaseConfig``) hold each
option as an ``OptionValue(default, [allowed …])`` / ``IntRangeValue(default, min, max)`` built in ``__init__``,
and their ``__setattr__`` refuses unknown options and values outside the list. Those lists are read from the
pinned wheel's sources; literal values set on such an object are checked against them."""

from __future__ import annotations

import ast
import difflib

from npulab.core.i18n import t
from npulab.core.words import code, guess_end, joined
from npulab.lint.api_values import _MISSING, _binding, resolve_literal
from npulab.lint.calls import canonical
from npulab.lint.signatures import SourceTree, _class_member
from npulab.pytorch.torch_npu_names import TOP_LEVEL, dotted_parts

BASE = "NpuBaseConfig"  # torchair/configs/_option_base.py: __setattr__ raises for an option __init__ did not create


def _module(tree: SourceTree, module: str) -> str:
    """torchair's own absolute imports (``from torchair.configs…``) name modules the wheel ships under torch_npu."""
    if tree.tree(module) is None:
        for name, path in TOP_LEVEL.items():
            if module == name or module.startswith(name + "."):
                return path + module[len(name):]
    return module


def _class(tree: SourceTree, module: str, name: str) -> tuple[str, ast.ClassDef] | None:
    where, node = _binding(tree, _module(tree, module), name, 0)
    if node is None and tree.tree(_module(tree, module)) is not None:  # `from x import y` in a torchair-named module
        found = next((n for n in ast.walk(tree.tree(_module(tree, module))) if isinstance(n, ast.ImportFrom)
                      and any((a.asname or a.name) == name for a in n.names)), None)
        if found is not None and found.module:
            return _class(tree, found.module, next(a.name for a in found.names if (a.asname or a.name) == name))
    return (where, node) if isinstance(node, ast.ClassDef) else None


def _options(tree: SourceTree, module: str, cls: ast.ClassDef) -> dict[str, tuple[str, ast.Call]]:
    """option -> (module, the call that builds it) from ``self.x = Something(...)`` in ``__init__``."""
    init = _class_member(cls, "__init__")
    out = {}
    for node in ast.walk(init) if isinstance(init, ast.FunctionDef) else []:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == "self" \
                and isinstance(node.value, ast.Call):
            out.setdefault(node.targets[0].attr, (module, node.value))
    return out


def _is_config(cls: ast.ClassDef) -> bool:
    return any(ast.unparse(b).rsplit(".", 1)[-1] == BASE for b in cls.bases)


def findings(tree: ast.Module, aliases: dict[str, str], source: SourceTree) -> list[tuple[int, str, str, str]]:
    """(line, written, kind, sentence) for each literal set on a torchair config object that it refuses."""
    objects: dict[str, tuple[str, ast.ClassDef]] = {}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and (parts := dotted_parts(node.value.func)) \
                and parts[0] in aliases:
            full = canonical(".".join([aliases[parts[0]], *parts[1:]]))
            where = source.definition(_module(source, full))
            found = _class(source, *where.rsplit(".", 1)) if where else None
            if found and _is_config(found[1]):
                objects[node.targets[0].id] = found
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)):
            continue
        parts = dotted_parts(node.targets[0])
        if not parts or parts[0] not in objects:
            continue
        module, cls = objects[parts[0]]
        written = ".".join(parts)
        for i, attr in enumerate(parts[1:], start=1):
            options = _options(source, module, cls)
            if attr not in options:
                if _is_config(cls):
                    guess = difflib.get_close_matches(attr, sorted(options), n=2, cutoff=0.6)
                    out.append((node.lineno, written, "unknown-name", (
                        t("lint.option.unknown", line=node.lineno, written=written, cls=cls.name, name=attr,
                          package=source.package, version=source.version, module=module, options=joined(sorted(options)))
                        + guess_end(code(guess)))))
                break
            where, call = options[attr]
            maker = ast.unparse(call.func).rsplit(".", 1)[-1]
            if i < len(parts) - 1:  # a nested config object
                found = _class(source, where, maker)
                if not found:
                    break
                module, cls = found
                continue
            out += _value_problem(node, written, maker, call, where, source, f"{module}.{cls.name}")
    return out


def _value_problem(node: ast.Assign, written: str, maker: str, call: ast.Call, module: str, source: SourceTree,
                   owner: str) -> list[tuple[int, str, str, str]]:
    value = node.value.value if isinstance(node.value, ast.Constant) else _MISSING
    if value is _MISSING:
        return []
    where = t("lint.of", where=f"{source.package} {source.version}", what=f"{owner}.__init__")
    if maker == "OptionValue" and len(call.args) > 1:
        allowed = resolve_literal(source, module, call.args[1])
        if isinstance(allowed, list) and value not in allowed:
            shown = joined(repr(a) for a in allowed)
            guess = difflib.get_close_matches(str(value), [str(a) for a in allowed], n=1, cutoff=0.5)
            return [(node.lineno, written, "argument-value", (
                t("lint.option.value", line=node.lineno, written=written, value=repr(value), allowed=shown, where=where)
                + guess_end(repr(guess[0]) if guess else None)))]
    if maker == "IntRangeValue" and len(call.args) > 2:
        low, high = (resolve_literal(source, module, a) for a in call.args[1:3])
        if not isinstance(value, int) or isinstance(value, bool) or \
                (isinstance(low, int) and value < low) or (isinstance(high, int) and value > high):
            return [(node.lineno, written, "argument-value", (
                t("lint.option.range", line=node.lineno, written=written, value=repr(value), low=low, high=high,
                  where=where)))]
    return []
