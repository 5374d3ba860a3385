"""lint-npu, the functions of the released sources a check follows (npulab.lint.own_checks walks them inline):

- the called function or constructor itself (:func:`of_definition`), its class's methods and property setters, and
  the constructor of its one base class, and that one's base (``Conv2d`` -> ``_ConvNd``; ``LSTM`` -> ``RNNBase``);
- what a call inside a walked body names (:func:`lookup`): a module-level function (``_get_activation_fn``,
  MindSpore's ``_check_param_value``), a function of another module reached through an import
  (``validator.check_float_range`` of ``from mindspore import _checkparam as validator``), a class whose
  constructor builds an object (``nn.Transformer`` -> ``TransformerEncoderLayer`` -> ``MultiheadAttention``), and
  ``Base.__init__(self, …)``.

Nothing is imported or called: a function is walked, never run, because importing a library runs its import-time
code (MindSpore's fails outright outside its own setup). The only things evaluated for real are Python's builtins
on literal values and the standard library's ABCs (``numbers.Number``, ``collections.abc.Iterable``) in
``isinstance``.
"""

from __future__ import annotations

import ast
import collections.abc
import numbers
import re

from npulab.lint import decorators, own_checks
from npulab.lint.api_values import _MISSING, _binding, _module_of, constructor, resolve_literal
from npulab.lint.signatures import SourceTree, _flat, _top_level

_STANDARD = {"numbers": numbers, "collections.abc": collections.abc}  # modules whose ABCs isinstance may use
# classes of numpy no Python literal is an instance of (np.float64 subclasses float, never the other way round)
_NUMPY = {"ndarray", "generic", "number", "integer", "floating", "signedinteger", "unsignedinteger", "bool_"}
# bases through which a class may accept instances it does not create (ABC.register, runtime-checkable protocols)
_VIRTUAL_BASES = {"ABC", "Protocol"}
_MAX_BASES = 6
_built: dict = {}  # (id(tree), module, id(node)…) -> (the objects whose ids key it, the Function or None)


def resolver(tree: SourceTree, module: str):
    """own_checks' ``resolve``: the constant a name or attribute of ``module`` stands for, UNKNOWN otherwise."""
    def resolve(node: ast.expr):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _is_enum(tree, module, node.value.id):
            return own_checks.NotNone()  # an enum member is not its value (isinstance(member, TheEnum) holds)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                (where := _module_alias(tree, module, node.value.id)) is not None:  # validator.INC_NEITHER
            value = resolve_literal(tree, where, ast.Name(node.attr, ast.Load()))
        else:
            value = _as_written(node, resolve_literal(tree, module, node))
        if value is _MISSING and isinstance(node, ast.Name):
            return _closed_dict(tree, module, node.id)
        return own_checks.UNKNOWN if value is _MISSING else value
    return resolve


def _as_written(node: ast.expr, value):
    """A resolved literal with the tuples the source wrote kept tuples (resolve_literal gives lists, which value sets
    need): a default ``step_sizes=(1e-6, 50.)`` must pass the function's own ``isinstance(step_sizes, tuple)``."""
    if isinstance(node, ast.Tuple) and isinstance(value, list) and len(value) == len(node.elts):
        return tuple(_as_written(e, v) for e, v in zip(node.elts, value, strict=True))
    if isinstance(node, ast.List) and isinstance(value, list) and len(value) == len(node.elts):
        return [_as_written(e, v) for e, v in zip(node.elts, value, strict=True)]
    return value


_MUTATORS = {"update", "setdefault", "pop", "popitem", "clear", "__setitem__"}


def _closed_dict(tree: SourceTree, module: str, name: str):
    """own_checks.Keys of a module-level dict display whose keys are constants and which nothing in its module
    changes (``_activation = {'relu': ReLU, …}`` for ``if name not in _activation: raise KeyError``); its values
    are not known. UNKNOWN otherwise."""
    where, found = _binding(tree, module, name, 0)
    if not (isinstance(found, ast.Assign) and len(found.targets) == 1 and isinstance(found.value, ast.Dict)
            and all(isinstance(k, ast.Constant) for k in found.value.keys)):
        return own_checks.UNKNOWN
    for node in ast.walk(tree.tree(where)):
        changed = (isinstance(node, (ast.Subscript, ast.Name)) and not isinstance(node.ctx, ast.Load)
                   and (node.value if isinstance(node, ast.Subscript) else node) is not found.targets[0]
                   and getattr(node.value if isinstance(node, ast.Subscript) else node, "id", None) == name) \
            or (isinstance(node, ast.Attribute) and node.attr in _MUTATORS and getattr(node.value, "id", None) == name) \
            or (isinstance(node, ast.Global) and name in node.names)
        if changed:
            return own_checks.UNKNOWN
    return own_checks.Keys(tuple((k.value, own_checks.UNKNOWN) for k in found.value.keys))


def _is_enum(tree: SourceTree, module: str, name: str) -> bool:
    """Whether ``name`` binds, in ``module``, a class of the sources with an Enum base (IntEnum, StrEnum, Flag …)."""
    cls = _binding(tree, module, name, 0)[1]
    return isinstance(cls, ast.ClassDef) and any(
        re.search(r"Enum|Flag", ast.unparse(b)) for b in cls.bases)


def _dotted(tree: SourceTree, module: str, node: ast.expr) -> str | None:
    """``numbers.Number``, ``numpy.ndarray``: what an attribute chain of ``module`` names, its first name followed
    through the module's imports (``import numpy as np``, ``from collections.abc import Iterable``)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.insert(0, node.attr)
        node = node.value
    parsed = tree.tree(module)
    if not isinstance(node, ast.Name) or parsed is None:
        return None
    found = _top_level(parsed, node.id)
    if isinstance(found, ast.Import):
        alias = next(a for a in found.names if (a.asname or a.name.split(".")[0]) == node.id)
        head = alias.name if alias.asname else node.id
    elif isinstance(found, ast.ImportFrom) and not found.level:
        alias = next(a for a in found.names if (a.asname or a.name) == node.id)
        head = f"{found.module}.{alias.name}"
    else:
        return None
    return ".".join([head, *parts])


def standard_types(tree: SourceTree, module: str):
    """own_checks' ``types``: the standard library's class an expression of ``module`` names (``numbers.Real``)."""
    def types(node: ast.expr):
        dotted = _dotted(tree, module, node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        where, _, name = (dotted or "").rpartition(".")
        found = getattr(_STANDARD[where], name, None) if where in _STANDARD else None
        return found if isinstance(found, type) else None
    return types


def classes(tree: SourceTree, module: str):
    """own_checks' ``classes``: whether an expression of ``module`` names a class no plain literal is an instance
    of: one defined in the released sources (followed across imports) — an ``int`` literal is exactly ``int``,
    never a subclass the library defines (``isinstance(3, _CubeMathType)`` is False though it is an IntEnum) — or
    numpy's array and scalar classes. A metaclass or an ABC / Protocol base, which may change ``isinstance``, makes
    the answer unknown."""
    def defined(node: ast.expr, where: str, depth: int) -> bool:
        if not isinstance(node, ast.Name) or depth > 8:
            return False
        found_in, cls = _binding(tree, where, node.id, depth)
        if not isinstance(cls, ast.ClassDef) or cls.keywords:
            return False
        for base in cls.bases:
            name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", None)
            if name in _VIRTUAL_BASES or (isinstance(base, ast.Name) and isinstance(
                    _binding(tree, found_in, base.id, depth + 1)[1], ast.ClassDef) and not defined(base, found_in, depth + 1)):
                return False
        return True

    def foreign(node: ast.expr) -> bool:
        dotted = _dotted(tree, module, node) if isinstance(node, ast.Attribute) else None
        if dotted is not None and dotted.startswith("numpy.") and dotted.count(".") == 1:
            return dotted.partition(".")[2] in _NUMPY
        return defined(node, module, 0)
    return foreign


def parameters(func: ast.FunctionDef, skip_first: bool) -> tuple[list, dict]:
    """(positional then keyword-only parameter names, name -> default expression)."""
    args = func.args.posonlyargs + func.args.args
    positional = [a.arg for a in args][1 if skip_first else 0:]
    defaults = dict(zip([a.arg for a in args][len(args) - len(func.args.defaults):], func.args.defaults, strict=True))
    defaults.update({a.arg: d for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults, strict=True) if d is not None})
    return positional + [a.arg for a in func.args.kwonlyargs], defaults


def _function(tree: SourceTree, module: str, func: ast.FunctionDef, name: str, cls: ast.ClassDef | None = None,
              depth: int = 0) -> own_checks.Function:
    key = (id(tree), module, id(func), id(cls))
    if key in _built:
        return _built[key][-1]
    method = cls is not None or (bool(func.args.args) and func.args.args[0].arg in ("self", "cls"))
    params, defaults = parameters(func, skip_first=method)
    resolve = resolver(tree, module)
    methods, setters = {}, {}
    if cls is not None:
        for node in _flat(cls.body):
            if not isinstance(node, ast.FunctionDef):
                continue
            if any(ast.unparse(d) == f"{node.name}.setter" for d in node.decorator_list):
                setters[node.name] = _function(tree, module, node, f"{name.rpartition('.')[0]}.{node.name}", None,
                                               _MAX_BASES)
            elif node.name not in methods or not any(ast.unparse(d) == "property" for d in node.decorator_list):
                methods[node.name] = node
    function = own_checks.Function(
        name, func.body, params, len(params) - len(func.args.kwonlyargs),
        {p: resolve(d) for p, d in defaults.items()}, resolve,
        func.args.vararg.arg if func.args.vararg else None, func.args.kwarg.arg if func.args.kwarg else None,
        methods, setters, _base(tree, module, cls, depth) if cls is not None and func.name == "__init__" else None,
        lambda node: lookup(tree, module, node), classes(tree, module), standard_types(tree, module),
        constructor=cls is not None and func.name == "__init__")
    function = _decorated(tree, module, func, function)
    _built[key] = (tree, func, cls, function)  # kept alive, so the ids in the key stay theirs
    return function


def _decorated(tree: SourceTree, module: str, func: ast.FunctionDef, function: own_checks.Function
               ) -> own_checks.Function:
    """``function`` as its validating decorator runs it (npulab.lint.decorators): the decorator's wrapper, walked
    with the call's arguments, ``method`` standing for ``function``; ``function`` itself otherwise."""
    for decorator in func.decorator_list:
        where, bound = _binding(tree, module, decorator.id, 0) if isinstance(decorator, ast.Name) else (module, None)
        wrapper = decorators.wrapper_of(bound) if isinstance(bound, ast.FunctionDef) else None
        if wrapper is None:
            continue
        method = bool(wrapper.args.args) and wrapper.args.args[0].arg in ("self", "cls")
        params, defaults = parameters(wrapper, skip_first=method)
        return own_checks.Function(
            function.name, wrapper.body, params, len(params) - len(wrapper.args.kwonlyargs), {}, resolver(tree, where),
            wrapper.args.vararg.arg, wrapper.args.kwarg.arg, function.methods, function.setters, None,
            lambda node, where=where: lookup(tree, where, node), classes(tree, where), standard_types(tree, where),
            constructor=function.constructor, closure={bound.args.args[0].arg: own_checks.Wrapped(function)})
    return function


def _constructor(tree: SourceTree, dotted: str, depth: int = 0) -> own_checks.Function | None:
    cls, init = constructor(tree, dotted)
    if init is None:
        return None
    module = dotted.rpartition(".")[0]
    return _function(tree, module, init, f"{module}.{cls.name}.__init__", cls, depth)


def _base(tree: SourceTree, module: str, cls: ast.ClassDef, depth: int) -> own_checks.Function | None:
    """The constructor of a class's one base, found across imports (``AdamW(Adam)``), its own base followed."""
    if depth >= _MAX_BASES or len(cls.bases) != 1 or not isinstance(cls.bases[0], ast.Name):
        return None
    where, base = _binding(tree, module, cls.bases[0].id, 0)
    return _constructor(tree, f"{where}.{base.name}", depth + 1) if isinstance(base, ast.ClassDef) else None


def of_definition(tree: SourceTree, definition: str) -> own_checks.Function | None:
    """The Function of a called ``module.function``, ``module.Class.method`` or ``module.Class`` (its constructor)."""
    func = tree.function(definition)
    if func is not None:
        return _function(tree, _module_of(tree, definition), func, definition)
    return _constructor(tree, definition)


def _module_alias(tree: SourceTree, module: str, name: str) -> str | None:
    """The module ``name`` binds in ``module`` (``from mindspore import _checkparam as validator``)."""
    parsed = tree.tree(module)
    found = _top_level(parsed, name) if parsed is not None else None
    if isinstance(found, ast.ImportFrom):
        alias = next(a for a in found.names if (a.asname or a.name) == name)
        dotted = f"{tree._absolute(module, found)}.{alias.name}"
    elif isinstance(found, ast.Import):
        alias = next(a for a in found.names if (a.asname or a.name.split(".")[0]) == name)
        dotted = alias.name if alias.asname else name
    else:
        return None
    return dotted if dotted in tree.sources else None


def lookup(tree: SourceTree, module: str, node: ast.expr) -> own_checks.Function | None:
    """The Function a call of ``module`` names: a function or class bound in the module, one of a module it
    imports (``validator.check_int_range``), or ``Base.__init__``; None otherwise."""
    key = (id(tree), module, id(node))  # the trees are kept, so a node's id stays its own
    if key in _built:
        return _built[key][-1]
    found = None
    if isinstance(node, ast.Name):
        found = _named(tree, module, node.id)
    elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        where = _module_alias(tree, module, node.value.id)
        if where is not None:
            found = _named(tree, where, node.attr)
        elif node.attr == "__init__":
            home, cls = _binding(tree, module, node.value.id, 0)
            found = _constructor(tree, f"{home}.{cls.name}") if isinstance(cls, ast.ClassDef) else None
    _built[key] = (tree, node, found)
    return found


def _named(tree: SourceTree, module: str, name: str) -> own_checks.Function | None:
    where, bound = _binding(tree, module, name, 0)
    if isinstance(bound, ast.FunctionDef) and not bound.decorator_list:
        return _function(tree, where, bound, f"{where}.{name}")
    if isinstance(bound, ast.ClassDef):
        return _constructor(tree, f"{where}.{bound.name}")
    return None
