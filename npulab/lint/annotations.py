"""lint-npu, argument types a function declares rather than checks in code: the types of a validation decorator
(MindSpore's ``@args_type_check``), the annotations of its ``def`` (torch; ``Literal[...]`` sets everywhere; a
string for a ``bool`` anywhere), and the keywords it keeps only to warn about (PyTorch 1.x profiling's
``use_cuda``). Used by npulab.lint.calls beside the validation code read by npulab.lint.api_values.
"""

from __future__ import annotations

import ast
import re

from npulab.core.i18n import t
from npulab.core.words import either
from npulab.lint.api_values import _TYPES, _WARNS, _sentence, argument
from npulab.lint.signatures import Signature

# --- types a validation decorator declares ------------------------------------------------------------------

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
            shown = repr(value) if isinstance(node, ast.Constant) else ast.unparse(node)[:40]
            out.append((parameter, t("lint.value.args_type_check", parameter=parameter,
                                       wanted=either(k.__name__ for k in accepted), type=type(value).__name__,
                                       value=shown, where=where)))
    return out


# --- types a function's annotations declare (torch) -------------------------------------------------------------

_SCALARS = {"int", "float", "str", "bool", "bytes", "complex"}
_CONTAINERS = {"list": "list", "List": "list", "tuple": "tuple", "Tuple": "tuple", "dict": "dict", "Dict": "dict",
               "set": "set", "Set": "set", "Sequence": "sequence", "Iterable": "sequence", "Callable": "callable"}
_CLASSES = {"timedelta": "timedelta", "datetime.timedelta": "timedelta", "datetime": "datetime",
            "datetime.datetime": "datetime", "_dtype": "dtype", "dtype": "dtype", "torch.dtype": "dtype",
            "_layout": "layout", "layout": "layout", "torch.layout": "layout", "memory_format": "memory_format",
            "torch.memory_format": "memory_format", "Generator": "Generator", "torch.Generator": "Generator"}
# the aliases torch's generated stubs (torch/_C/*.pyi, from torch/types.py) write for what its C++ argument parser
# takes: a SymInt is given as an int; ``_size`` is a list, tuple or torch.Size, never a bare number (a parameter that
# also takes one, ``int[2] kernel_size``, is written ``_int | _size``); Number is int, float or bool
_STUB_ALIASES = {"_int": {"int"}, "SymInt": {"int"}, "IntLikeType": {"int"}, "_float": {"float"},
                 "SymFloat": {"float"}, "FloatLikeType": {"float"}, "_bool": {"bool"}, "SymBool": {"bool"},
                 "BoolLikeType": {"bool"}, "_complex": {"complex"}, "Number": {"int", "float", "bool"},
                 "_size": {"sequence"}, "_symsize": {"sequence"}, "Size": {"sequence"}}
# the literal's type -> the annotated types that accept it (PEP 484: int is acceptable where float is, bool where int
# is; an int flag such as bias=1 works as a bool at run time, so it is not reported)
_ACCEPTS = {"bool": {"bool", "int", "float", "complex"}, "int": {"int", "float", "complex", "bool"}, "float": {"float", "complex"},
            "str": {"str", "sequence"}, "bytes": {"bytes", "sequence"}}


def annotation_types(node: ast.expr | None, stub: bool = False) -> set[str] | None:
    """The types an annotation names, when every part of it is one this check understands; None otherwise.
    ``stub``: a torch stub's aliases (``_int``, ``_size`` …) are understood too."""
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if node.value is None:
            return {"None"}
        if isinstance(node.value, str):
            try:
                return annotation_types(ast.parse(node.value, mode="eval").body, stub)
            except SyntaxError:
                return None
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = annotation_types(node.left, stub), annotation_types(node.right, stub)
        return left | right if left is not None and right is not None else None
    name = ast.unparse(node.value if isinstance(node, ast.Subscript) else node).removeprefix("typing.").removeprefix("builtins.")
    if isinstance(node, ast.Subscript):
        inner = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name in ("Optional", "Union"):
            parts = [annotation_types(i, stub) for i in inner]
            if any(p is None for p in parts):
                return None
            return set().union(*parts) | ({"None"} if name == "Optional" else set())
        return {_CONTAINERS[name]} if name in _CONTAINERS else None
    if name in _SCALARS or name == "None":
        return {name}
    if name in _CONTAINERS:
        return {_CONTAINERS[name]}
    if stub and name in _STUB_ALIASES:
        return _STUB_ALIASES[name]
    return {_CLASSES[name]} if name in _CLASSES else None


def literal_choices(node: ast.expr | None) -> tuple | None:
    """The values of a ``Literal[...]`` annotation (also inside ``Optional[...]`` or ``X | None``); None otherwise."""
    if node is None:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        sides = [n for n in (node.left, node.right) if not (isinstance(n, ast.Constant) and n.value is None)]
        return literal_choices(sides[0]) if len(sides) == 1 else None
    if not isinstance(node, ast.Subscript):
        return None
    name = ast.unparse(node.value).removeprefix("typing.")
    if name == "Optional":
        return literal_choices(node.slice)
    if name != "Literal":
        return None
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    values = tuple(i.value for i in items if isinstance(i, ast.Constant))
    return values if len(values) == len(items) else None


def annotation_problems(call: ast.Call, sig: Signature | None, func: ast.FunctionDef, where: str,
                        only_bool: bool = False, stub: bool = False) -> list[tuple[str, str]]:
    """(parameter, sentence) of literal arguments (numbers, strings, booleans) whose type the parameter's annotation
    rules out: ``init_process_group(timeout=1800)`` where ``timeout: Optional[timedelta]``. ``only_bool``: only a
    string given for a ``bool`` parameter (``with_stack='False'`` is true), for packages whose other annotations
    are not kept up. ``stub``: the annotations of a generated stub of C++ bindings (torch/_C/*.pyi), which say what
    the C++ argument parser takes: its aliases are read, and a sequence type is a sequence (``torch.full(512, …)``)."""
    out = []
    for arg in func.args.posonlyargs + func.args.args + func.args.kwonlyargs:
        choices = literal_choices(arg.annotation)
        if choices is not None:  # mode: Literal["min", "max"]: an enumerated set, whatever the package
            node = argument(call, sig, arg.arg)
            if isinstance(node, ast.Constant) and node.value is not None and node.value not in choices:
                out.append((arg.arg, _sentence(f"`{arg.arg}`", node.value, choices, t("lint.literal_of", where=where))))
            continue
        accepted = annotation_types(arg.annotation, stub)
        if only_bool and not (accepted and accepted <= {"bool", "None"}):
            continue
        if accepted and accepted & set(_CONTAINERS.values()) and not stub:
            continue  # TorchScript-era annotations: interpolate(scale_factor: list[float] | None) takes 2 as well
        node = argument(call, sig, arg.arg) if accepted else None
        if not isinstance(node, ast.Constant) or node.value is None or type(node.value).__name__ not in _ACCEPTS:
            continue
        given = type(node.value).__name__
        if not _ACCEPTS[given] & accepted:
            out.append((arg.arg, t("lint.value.annotation", parameter=arg.arg, annotation=ast.unparse(arg.annotation),
                                     type=given, value=repr(node.value), where=where)))
    return out


# --- keywords a function only warns about (PyTorch 1.x profiling's use_cuda) -------------------------------------


def warned_keywords(func: ast.FunctionDef) -> dict[str, str]:
    """parameter -> the warning ``func`` gives as soon as the parameter is passed (``if use_cuda is not None:
    warn("`use_cuda` is deprecated …")``, at the top of its body): keywords kept only to tell the caller not to use
    them. The warning must name the parameter and say it is deprecated, invalid, ignored or removed."""
    params = {a.arg for a in func.args.args + func.args.kwonlyargs}
    out = {}
    for node in func.body:  # only checks made whatever else is passed, not inside another branch
        if not isinstance(node, ast.If):
            continue
        test = node.test.left if isinstance(node.test, ast.Compare) and len(node.test.ops) == 1 and \
            isinstance(node.test.ops[0], ast.IsNot) and _is_none(node.test.comparators[0]) else node.test
        name = ast.unparse(test).removeprefix("self.")
        if name not in params:
            continue
        for stmt in node.body:
            call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
            if call is None or not _WARNS.search(ast.unparse(call.func)):
                continue
            text = next((ast.unparse(a) if isinstance(a, ast.JoinedStr) else a.value for a in call.args
                         if isinstance(a, ast.JoinedStr) or (isinstance(a, ast.Constant) and isinstance(a.value, str))), "")
            if name in text and _RETIRED.search(text):
                out.setdefault(name, text)
    return out


_RETIRED = re.compile(r"deprecat|invalid|ignor|no longer|not supported|removed", re.IGNORECASE)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
