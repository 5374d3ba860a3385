"""lint-npu, argument values: the rules of npulab/data/api_values.yaml for enumerated arguments (a device target, a
mode, a jit level, a layout), whose allowed values are read from the released sources where they are machine-readable
(the list a function's validation code tests against, module constants, the docstring's list, the lists a function
returns — autocast's dtypes) and from the named documentation otherwise. Without a rule, the called function's own
validation code is read (npulab.lint.source_validations); what a parameter accepts and the sentences for a refused
value live in npulab.lint.allowed_values, constants read from source in npulab.lint.source_literals (all re-exported
here). Only literals (negative numbers included) and named constants are checked; computed values are not.
"""

from __future__ import annotations

import ast
import re
from functools import cache

from npulab.core.i18n import localized, t
from npulab.core.paths import load_yaml
from npulab.lint.allowed_values import (  # re-exported: api_values.problems …
    _MISSING,
    _TYPES,
    RULES,
    Allowed,
    _sentence,
    dtype_name,
    enum_member_problem,
    problems,
)
from npulab.lint.signatures import Signature, SourceTree
from npulab.lint.source_literals import _binding, _literal, _local_literal, _module_of, resolve_literal
from npulab.lint.source_validations import (  # re-exported: api_values.validations …
    _WARNS,
    checked_by_definition,
    constructor,
    dispatched,
    validations,
)

__all__ = ["RULES", "_MISSING", "_TYPES", "_WARNS", "Allowed", "_binding", "_module_of", "_sentence", "allowed",
           "argument", "checked_by_definition", "constructor", "dispatched", "dtype_name", "enum_member_problem",
           "problems", "resolve_literal", "rules", "rules_for", "validations"]


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
        if isinstance(value, Allowed):
            return value
        if not value:
            return None
        source = t("lint.of", where=where, what=what)
        if spec.get("returns"):
            return Allowed(tuple(dtype_name(v) for v in value), None, {}, source, expressions=True)
        if rule.get("keys_are_values") and isinstance(value, dict):
            return Allowed(tuple(value), None, {}, t("lint.source_keys", source=source))
        flags = {"open_keys": bool(rule.get("open_keys")), "as_text": bool(rule.get("compare_as_text"))}
        if isinstance(value, dict):
            keys = {k: tuple(v) if isinstance(v, (list, tuple)) else v if isinstance(v, ast.Lambda) else None
                    for k, v in value.items()}
            return Allowed(None, keys, {}, source, **flags)
        return Allowed(tuple(value), None, {}, source, **flags)
    if "constants" in rule:
        spec = rule["constants"]
        consts = {name: tree.constant(spec["module"], name) for name in spec["names"]}
        if any(v is None for v in consts.values()):
            return None
        return Allowed(tuple(consts.values()), None, consts, localized(rule, "source"))
    if "from_docstring" in rule:
        func = tree.function(rule["from_docstring"]["function"])
        values = _docstring_list(func, rule["parameter"]) if func is not None else None
        if values is None:
            return None
        return Allowed(tuple(values), None, {}, t("lint.docstring", where=where, function=rule["from_docstring"]["function"]))
    return Allowed(tuple(rule["values"]), None, {}, localized(rule, "source"))


def _source_literal(tree: SourceTree, spec: dict, argument: str) -> tuple:
    """(the literal, where it was read) that a from_source spec points at: a variable of a function or module, or
    the list a function's validation tests ``argument`` against (``x not in [...]``, ``check_string(x, [...])``)."""
    if "function" not in spec:
        value = tree.assigned(spec["module"], spec["variable"])
        return (_literal(value) if value is not None else None), f"{spec['module']}.{spec['variable']}"
    func = tree.function(spec["function"])
    if func is None:
        return None, ""
    if spec.get("returns"):  # every list the function returns: get_amp_supported_dtype -> [torch.float16, …]
        returned = [ast.unparse(e) for n in ast.walk(func) if isinstance(n, ast.Return) and isinstance(n.value, (ast.List, ast.Tuple))
                    for e in n.value.elts]
        return list(dict.fromkeys(returned)), t("lint.returns_of", function=spec["function"])
    if "variable" in spec:
        return _local_literal(func, spec["variable"]), t("lint.paren", text=spec["function"], inner=spec["variable"])
    checked = validations(tree, _module_of(tree, spec["function"]), func, {argument: argument},
                          t("lint.of", where=f"{tree.package} {tree.version}", what=spec["function"]))
    if argument in checked:
        return checked[argument], ""
    return _tested_literal(func, argument), t("lint.check_of", function=spec["function"], argument=argument)


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

def _docstring_list(func: ast.FunctionDef, parameter: str) -> list | None:
    """The first ``[...]`` literal on a docstring line that names ``parameter``, or the quoted values of a line that
    names them as a choice (``mode: ``'constant'``, ``'reflect'`` or ``'circular'``.``)."""
    doc = ast.get_docstring(func) or ""
    for line in doc.splitlines():
        if re.search(rf"(^|[\s`'\"]){re.escape(parameter)}([\s`'\"(:]|$)", line):
            quoted = re.findall(r"``'([^'`]+)'``", line)
            if len(quoted) >= 2 and re.search(r"``\s*or\s*``", line):
                return quoted
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
