"""lint-npu, the constructor a *field class* gets from its library rather than from its own ``def __init__``: a
class that declares annotated fields with their defaults and checks them in ``__post_init__`` (a ``dataclass``, a
``msgspec.Struct`` such as vLLM's ``SamplingParams``, a pydantic dataclass). :func:`synthesized_init` writes that
constructor as the class machinery runs it — each field stored on ``self``, then ``self.__post_init__()`` — so the
signature checks and the walk of a constructor's own checks (npulab.lint.own_checks) read such a class as any other."""

from __future__ import annotations

import ast

_MADE: dict[int, tuple[ast.ClassDef, ast.FunctionDef]] = {}  # id(class) -> (class kept alive, its constructor)


def _default(value: ast.expr | None) -> ast.expr | None:
    """A field's default: the value, ``field(default=X)``'s X, ``field(default_factory=F)`` as ``F()``; None when
    the field has none (required)."""
    if isinstance(value, ast.Call) and ast.unparse(value.func).rpartition(".")[2] == "field":
        keywords = {k.arg: k.value for k in value.keywords}
        if "default" in keywords:
            return keywords["default"]
        if "default_factory" in keywords:
            return ast.Call(keywords["default_factory"], [], [])
        return None
    return value


def _in_init(node: ast.stmt) -> bool:
    """Whether an annotated name is a constructor parameter (not a ``ClassVar``, not ``field(init=False)``)."""
    if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
        return False
    off = isinstance(node.value, ast.Call) and any(k.arg == "init" and isinstance(k.value, ast.Constant)
                                                   and k.value.value is False for k in node.value.keywords)
    return not off and "ClassVar" not in ast.unparse(node.annotation)


def _fields(cls: ast.ClassDef) -> list[tuple[str, ast.expr | None]]:
    return [(node.target.id, _default(node.value)) for node in cls.body if _in_init(node)]


def synthesized_init(cls: ast.ClassDef) -> ast.FunctionDef | None:
    """``def __init__(self, <fields>): self.<field> = <field> …; self.__post_init__()`` for a class with annotated
    fields, a ``__post_init__`` and no ``__init__`` of its own; None for any other class. Fields keep their order
    and are positional, unless a required one follows one with a default (then all are keyword-only)."""
    if id(cls) in _MADE:
        return _MADE[id(cls)][1]
    methods = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    fields = _fields(cls)
    if "__init__" in methods or "__post_init__" not in methods or not fields:
        return None
    defaults = [d for _, d in fields]
    ordered = all(d is not None for d in defaults[next((i for i, d in enumerate(defaults) if d is not None),
                                                       len(defaults)):])
    params = [ast.arg(name) for name, _ in fields]
    args = ast.arguments(posonlyargs=[], args=[ast.arg("self"), *params] if ordered else [ast.arg("self")],
                         vararg=None, kwonlyargs=[] if ordered else params,
                         kw_defaults=[] if ordered else defaults,
                         kwarg=None, defaults=[d for d in defaults if d is not None] if ordered else [])
    body: list[ast.stmt] = [ast.Assign([ast.Attribute(ast.Name("self", ast.Load()), name, ast.Store())],
                                       ast.Name(name, ast.Load())) for name, _ in fields]
    body.append(ast.Expr(ast.Call(ast.Attribute(ast.Name("self", ast.Load()), "__post_init__", ast.Load()), [], [])))
    init = ast.FunctionDef("__init__", args, body, [], None)
    ast.copy_location(init, cls)
    ast.fix_missing_locations(init)
    _MADE[id(cls)] = (cls, init)
    return init
