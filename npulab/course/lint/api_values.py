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
    open_keys: bool = False  # a dict argument may carry keys the rule does not list (they are not checked)
    as_text: bool = False  # the code compares str(value) (torch_npu.npu.set_option)


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
        value, what = _source_literal(tree, spec, spec.get("argument", rule["parameter"]))
        if "key" in spec and isinstance(value, dict):
            value, what = value.get(spec["key"]), f"{what}[{spec['key']!r}]"
        if not value:
            return None
        source = f"{where} 的 {what}"
        flags = {"open_keys": bool(rule.get("open_keys")), "as_text": bool(rule.get("compare_as_text"))}
        if isinstance(value, dict):
            keys = {k: tuple(v) if isinstance(v, (list, tuple)) else None for k, v in value.items()}
            return Allowed(None, keys, {}, source, **flags)
        return Allowed(tuple(value), None, {}, source, **flags)
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


def _source_literal(tree: SourceTree, spec: dict, argument: str) -> tuple:
    """(the literal, where it was read) that a from_source spec points at: a variable of a function or module, or
    the list a function's validation tests ``argument`` against (``x not in [...]``, ``check_string(x, [...])``)."""
    if "function" not in spec:
        value = tree.assigned(spec["module"], spec["variable"])
        return (_literal(value) if value is not None else None), f"{spec['module']}.{spec['variable']}"
    func = tree.function(spec["function"])
    if func is None:
        return None, ""
    if "variable" in spec:
        return _local_literal(func, spec["variable"]), f"{spec['function']}（{spec['variable']}）"
    return _tested_literal(func, argument), f"{spec['function']} 对 {argument} 的校验"


def _tested_literal(func: ast.FunctionDef, argument: str):
    """The list of constants that ``func`` checks ``argument`` against."""
    for node in ast.walk(func):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == argument \
                and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            other = node.comparators[0]
            value = _local_literal(func, other.id) if isinstance(other, ast.Name) else _literal(other)
            if value:
                return value
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Name) and a.id == argument for a in node.args):
            for arg in node.args:
                if isinstance(arg, (ast.List, ast.Tuple)) and (value := _literal(arg)) and \
                        all(isinstance(v, str) for v in value):
                    return value
    return None


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
    return [r for r in rules() if definition in ([r["function"]] if isinstance(r["function"], str) else r["function"])]


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
                if not allowed.open_keys:
                    out.append(_sentence(f"`{parameter}` 的键", key.value, tuple(allowed.keys), allowed.source))
                continue
            choices = allowed.keys[key.value]
            given = str(value.value) if allowed.as_text and isinstance(value, ast.Constant) else \
                getattr(value, "value", None)
            if choices is not None and isinstance(value, ast.Constant) and given not in choices:
                out.append(_sentence(f"`{parameter}[{key.value!r}]`", value.value, choices, allowed.source))
        return out
    value = _value(node, allowed)
    if value is _MISSING or value is None:  # None: the parameter's "not given" default in every rule so far
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


# --- types a validation decorator declares ------------------------------------------------------------------

_TYPES = {"int": int, "str": str, "bool": bool, "float": float, "dict": dict, "list": list, "tuple": tuple}
_DISPLAYS = {ast.Dict: dict, ast.List: list, ast.Tuple: tuple, ast.Set: set}
TYPE_DECORATORS = {"args_type_check"}  # mindspore/_checkparam.py: raises TypeError unless isinstance(value, types)


def declared_types(func: ast.FunctionDef) -> dict[str, tuple[type, ...]]:
    """Parameter -> types of a ``@args_type_check(device_id=int, save_graphs=(bool, int))`` decorator."""
    for deco in func.decorator_list:
        name = deco.func.attr if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute) else \
            deco.func.id if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name) else ""
        if name not in TYPE_DECORATORS:
            continue
        out = {}
        for kw in deco.keywords:
            items = kw.value.elts if isinstance(kw.value, ast.Tuple) else [kw.value]
            types = tuple(_TYPES[i.id] for i in items if isinstance(i, ast.Name) and i.id in _TYPES)
            if kw.arg and types and len(types) == len(items):
                out[kw.arg] = types
        return out
    return {}


def type_problems(call: ast.Call, sig: Signature | None, types: dict[str, tuple[type, ...]],
                  where: str) -> list[tuple[str, str]]:
    """(parameter, sentence) of literal arguments whose type the decorator refuses (None passes, as it does there)."""
    out = []
    for parameter, accepted in types.items():
        node = argument(call, sig, parameter)
        if isinstance(node, ast.Constant) and node.value is not None:
            value = node.value
        elif type(node) in _DISPLAYS:
            value = _DISPLAYS[type(node)]()
        else:
            continue
        if not isinstance(value, accepted):
            wanted = " 或 ".join(t.__name__ for t in accepted)
            shown = repr(value) if isinstance(node, ast.Constant) else ast.unparse(node)[:40]
            out.append((parameter, f"`{parameter}` 应为 {wanted}，这里是 {type(value).__name__} {shown}（{where} 的 @args_type_check，"
                       f"运行时抛 TypeError）。"))
    return out
