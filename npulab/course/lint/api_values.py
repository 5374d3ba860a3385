"""lint-npu, argument values: the values of enumerated arguments (a device target, a mode, a jit level, a layout)
against npulab/data/api_values.yaml, whose rules read the allowed values from the released sources where they are
machine-readable (the list a function's validation code tests against, module constants, the docstring's list) and
from the named documentation otherwise. Only literals and named constants are checked; computed values are not.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from functools import cache

from npulab.core.paths import DATA_DIR, load_yaml
from npulab.course.lint.signatures import Signature, SourceTree

RULES = DATA_DIR / "api_values.yaml"
_MISSING = object()


@dataclass(frozen=True)
class Allowed:
    """What one parameter accepts: values, or for a dict argument its keys (each with values, or None: any)."""

    values: tuple | None
    keys: dict | None
    constants: dict  # name -> value, for arguments written as ``ms.GRAPH_MODE``
    source: str


@cache
def rules() -> list[dict]:
    """The rules of the data file."""
    return load_yaml(RULES)["rules"]


def allowed(tree: SourceTree, rule: dict) -> Allowed | None:
    """The allowed values of one rule, read from ``tree`` where the rule says so; None when the source has changed
    so that they cannot be read (lint-npu then does not guess)."""
    where = f"{tree.package} {tree.version}"
    if "from_source" in rule:
        spec = rule["from_source"]
        func = tree.function(spec["function"])
        value = _local_literal(func, spec["variable"]) if func is not None else None
        if value is None:
            return None
        source = f"{where} 的 {spec['function']}（{spec['variable']}）"
        if isinstance(value, dict):
            return Allowed(None, {k: tuple(v) if isinstance(v, list) else None for k, v in value.items()}, {}, source)
        return Allowed(tuple(value), None, {}, source)
    if "constants" in rule:
        spec = rule["constants"]
        consts = {name: tree.constant(spec["module"], name) for name in spec["names"]}
        if any(v is None for v in consts.values()):
            return None
        return Allowed(tuple(consts.values()), None, consts, rule["source"])
    if "from_docstring" in rule:
        func = tree.function(rule["from_docstring"]["function"])
        values = _docstring_list(func, rule["parameter"]) if func is not None else None
        if values is None:
            return None
        return Allowed(tuple(values), None, {}, f"{where} 的 {rule['from_docstring']['function']} 文档字符串")
    return Allowed(tuple(rule["values"]), None, {}, rule["source"])


def _local_literal(func: ast.FunctionDef, name: str):
    """The literal assigned to ``name`` inside ``func`` (lists of strings, dicts of such; other values as None)."""
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return _literal(node.value)
    return None


def _literal(node: ast.expr):
    if isinstance(node, ast.Dict):
        return {k.value: _literal(v) for k, v in zip(node.keys, node.values, strict=True) if isinstance(k, ast.Constant)}
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return None  # e.g. (int,): a type, not a list of values
    return value if isinstance(value, (list, tuple)) else None


def _docstring_list(func: ast.FunctionDef, parameter: str) -> list | None:
    """The first ``[...]`` literal on a docstring line that names ``parameter``."""
    doc = ast.get_docstring(func) or ""
    for line in doc.splitlines():
        if re.search(rf"(^|[\s`'\"]){re.escape(parameter)}([\s`'\"(:]|$)", line):
            match = re.search(r"\[[^\[\]]+\]", line)
            if match:
                try:
                    value = ast.literal_eval(match.group(0))
                except (ValueError, SyntaxError):
                    continue
                if isinstance(value, list) and value:
                    return value
    return None


def rules_for(definition: str) -> list[dict]:
    return [r for r in rules() if r["function"] == definition]


def argument(call: ast.Call, sig: Signature | None, parameter: str) -> ast.expr | None:
    """The expression a call passes for ``parameter`` (by keyword, or by position in ``sig``)."""
    for kw in call.keywords:
        if kw.arg == parameter:
            return kw.value
    if sig is not None and parameter in sig.positional:
        index = sig.positional.index(parameter)
        before_star = [a for a in call.args[:index + 1] if not isinstance(a, ast.Starred)]
        if len(before_star) == index + 1 and index < len(call.args):
            return call.args[index]
    return None


def _value(node: ast.expr, allowed: Allowed):
    """The value a literal or named constant stands for; _MISSING when it is computed."""
    if isinstance(node, ast.Constant):
        return node.value
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if name in allowed.constants:
        return allowed.constants[name]
    if name and allowed.constants and name.isupper():
        return ("constant", name)  # a constant of the right module that is not one of the allowed names
    return _MISSING


def problems(node: ast.expr, parameter: str, allowed: Allowed) -> list[str]:
    """Chinese sentences for each value of ``node`` that the parameter does not accept."""
    out = []
    if allowed.keys is not None:
        if not isinstance(node, ast.Dict):
            return []
        for key, value in zip(node.keys, node.values, strict=True):
            if not isinstance(key, ast.Constant):
                continue
            if key.value not in allowed.keys:
                out.append(_sentence(f"`{parameter}` 的键", key.value, tuple(allowed.keys), allowed.source))
                continue
            choices = allowed.keys[key.value]
            if choices is not None and isinstance(value, ast.Constant) and value.value not in choices:
                out.append(_sentence(f"`{parameter}[{key.value!r}]`", value.value, choices, allowed.source))
        return out
    value = _value(node, allowed)
    if value is _MISSING:
        return []
    if isinstance(value, tuple) and value[:1] == ("constant",):
        names = tuple(allowed.constants)
        return [_sentence(f"`{parameter}`", value[1], names, allowed.source, constant=True)]
    if value not in allowed.values:
        return [_sentence(f"`{parameter}`", value, allowed.values, allowed.source)]
    return []


def _sentence(what: str, value, choices: tuple, source: str, constant: bool = False) -> str:
    shown = value if constant else repr(value)
    listed = "、".join(str(c) if constant else repr(c) for c in choices)
    same_case = [c for c in choices if str(c).lower() == str(value).lower()]  # 'ascend' -> 'Ascend'
    guess = [str(c) for c in same_case] or difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.5)
    return (f"{what} 不接受 {shown}：可取 {listed}（{source}）" + (f"；是不是 {guess[0]!r}？" if guess else "。"))
