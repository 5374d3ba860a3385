"""lint-npu, argument values: what one parameter accepts (:class:`Allowed`: values, keys, types, a pattern, number
tests that refuse) and the sentences (lint.value.*) for a literal it does not accept (:func:`problems`); enum members
and dtype aliases that npulab/data/api_values.yaml lists from the documentation."""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from functools import cache

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.core.words import code, either, guess_end, joined
from npulab.lint import own_checks, value_tests

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
    labels: tuple | None = None  # how the values are written in the source (ProfilerLevel.Level1), for messages
    pattern: str | None = None  # a regular expression the value must match from its start (re.match)
    types: tuple | None = None  # the types an ``isinstance`` check accepts
    refused_by: tuple = ()  # (test, expression holding the value) …: number tests that refuse (value_tests)
    switch: bool = False  # the function only tests the value for truth: a string is always true (value_tests)
    expressions: bool = False  # the values are expressions such as torch.float16, compared as written (dtype aliases)


def enum_member_problem(dotted: str) -> str | None:
    """Why ``Enum.MEMBER`` names no member of an enum that a C extension defines (api_values.yaml
    ``enum_members``, as documented); None when it does, or the enum is not listed."""
    owner, _, member = dotted.rpartition(".")
    for table in _enum_members():
        if owner in table["names"] and member not in table["members"]:
            close = difflib.get_close_matches(member, table["members"], n=1, cutoff=0.6)
            return t("lint.value.enum_member", enum=owner, member=member, members=joined(table["members"]),
                     source=localized(table, "source")) + guess_end(code(close) if close else None)
    return None


@cache
def _enum_members() -> list[dict]:
    return load_yaml(RULES).get("enum_members", [])


@cache
def _dtype_aliases() -> dict:
    return load_yaml(RULES)["dtype_aliases"]["names"]


def dtype_name(text: str) -> str:
    """``torch.half`` -> ``torch.float16``: the name PyTorch documents a dtype under (api_values.yaml dtype_aliases)."""
    return _dtype_aliases().get(text, text)


def _value(node: ast.expr, allowed: Allowed):
    """The value a literal or named constant stands for; _MISSING when it is computed."""
    if allowed.expressions:
        return dtype_name(ast.unparse(node)) if isinstance(node, ast.Attribute) else _MISSING
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) in (int, float):
        return -node.operand.value  # lr=-0.1
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
    if name in allowed.constants:
        return allowed.constants[name]
    if name and allowed.constants and name.isupper():
        return ("constant", name)  # a constant of the right module that is not one of the allowed names
    return _MISSING


def problems(node: ast.expr, parameter: str, allowed: Allowed) -> list[str]:
    """Sentences (lint.value.*) for each value of ``node`` that the parameter does not accept."""
    out = []
    if allowed.keys is not None:
        if not isinstance(node, ast.Dict):
            return []
        for key, value in zip(node.keys, node.values, strict=True):
            if not isinstance(key, ast.Constant):
                continue
            if key.value not in allowed.keys:
                if not allowed.open_keys:
                    out.append(_sentence(t("lint.keys_of_parameter", parameter=parameter), key.value, tuple(allowed.keys), allowed.source))
                continue
            choices = allowed.keys[key.value]
            given = str(value.value) if allowed.as_text and isinstance(value, ast.Constant) else \
                getattr(value, "value", None)
            if isinstance(choices, ast.Lambda):  # "ACL_AICORE_NUM": (lambda value: value.isdigit() and …)
                if isinstance(value, ast.Constant) and own_checks.accepts(choices, given) is False:
                    out.append(t("lint.value.predicate", what=f"`{parameter}[{key.value!r}]`", value=repr(value.value),
                                 test=ast.unparse(choices), source=allowed.source))
                continue
            if choices is not None and isinstance(value, ast.Constant) and given not in choices:
                out.append(_sentence(f"`{parameter}[{key.value!r}]`", value.value, choices, allowed.source))
        return out
    value = _value(node, allowed)
    if value is _MISSING or value is None:  # None: the parameter's "not given" default in every rule so far
        return []
    if allowed.switch:
        return [t("lint.value.string_switch", parameter=parameter, value=repr(value), where=allowed.source,
                  fix=value.capitalize() if value.lower() in ("true", "false") else "True / False")] \
            if isinstance(value, str) else []
    literal = isinstance(node, ast.Constant) or (isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant))
    if allowed.types is not None and literal and not isinstance(value, allowed.types):
        return [t("lint.value.type", parameter=parameter, wanted=either(k.__name__ for k in allowed.types),
                    type=type(value).__name__, value=repr(value), source=allowed.source)]
    for test, held in allowed.refused_by:
        if value_tests.refuses(test, held, value):
            return [t("lint.value.refused", parameter=parameter, value=repr(value), test=ast.unparse(test),
                      source=allowed.source)]
    if allowed.types is not None or allowed.refused_by:
        return []
    if allowed.pattern is not None:
        if isinstance(value, str) and re.match(allowed.pattern, value, re.ASCII) is None:
            return [t("lint.value.pattern", parameter=parameter, value=repr(value), pattern=allowed.pattern,
                        source=allowed.source)]
        return []
    if isinstance(value, tuple) and value[:1] == ("constant",):
        names = tuple(allowed.constants)
        return [_sentence(f"`{parameter}`", value[1], names, allowed.source, constant=True)]
    if value not in allowed.values:
        if allowed.labels:
            named = [label for label in allowed.labels if label.rsplit(".", 1)[-1] == str(value)]
            listed = joined(t("lint.paren", text=label, inner=repr(v))
                            for label, v in zip(allowed.labels, allowed.values, strict=True))
            return [t("lint.value.not_accepted", what=f"`{parameter}`", value=repr(value), listed=listed,
                        source=allowed.source) + guess_end(code(named[:1]))]
        return [_sentence(f"`{parameter}`", value, allowed.values, allowed.source)]
    return []


def _sentence(what: str, value, choices: tuple, source: str, constant: bool = False) -> str:
    shown = value if constant else repr(value)
    listed = joined(str(c) if constant else repr(c) for c in choices)
    if isinstance(value, str) and value.startswith("torch.") and all(str(c).startswith("torch.") for c in choices):
        listed = joined(f"`{c}`" for c in choices)  # expressions (dtypes), not strings; no spelling guess
        return t("lint.value.not_accepted", what=what, value=f"`{value}`", listed=listed, source=source) + guess_end(None)
    same_case = [c for c in choices if str(c).lower() == str(value).lower()]  # 'ascend' -> 'Ascend'
    guess = [str(c) for c in same_case] or difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.5)
    return (t("lint.value.not_accepted", what=what, value=shown, listed=listed, source=source)
            + guess_end(repr(guess[0]) if guess else None))


_TYPES = {"int": int, "str": str, "bool": bool, "float": float, "dict": dict, "list": list, "tuple": tuple}
