"""lint-npu, what npulab.lint.own_checks walks over: the three-valued values (a literal, :data:`UNKNOWN`,
:class:`NotNone`, and the containers known by length or keys: :class:`Items`, :class:`Keys`, :class:`Fields`), a
:class:`Refusal` found, a :class:`Function` of the released sources with its parameters bound to a call's values
(:func:`bind_values`), and what a validating decorator's wrapper sees (:class:`Wrapped`, :func:`bound_to`;
npulab.lint.decorators)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class NotNone:
    """A value that is surely not None: its type where the expression shows it (a list display), its truth where
    known (a non-empty display is true)."""

    kind: type | None = None
    truth: bool | None = None


@dataclass(frozen=True)
class SourceClass(NotNone):
    """A class of the released sources that no plain literal (int, float, str, bool, None) is an instance of, held as
    a value: ``type_check(padding_mode, (Border,), "padding_mode")`` hands it to the helper whose ``isinstance`` tests
    it (MindSpore's dataset validators)."""

    kind: type | None = type
    truth: bool | None = True


@dataclass(frozen=True)
class Refusal:
    test: ast.expr  # the test that holds (for an ``assert``, its negation)
    line: int
    raises: str | None  # the exception raised (``ValueError``), or None for a warning and a reset
    reset: str | None = None  # what is reset after the warning
    origin: str | None = None  # the function reached from the call whose test it is (None: the called one)


@dataclass(frozen=True)
class Items:
    """A tuple or list of known length whose items may not all be known (what ``*args`` packs)."""

    values: tuple
    kind: type = tuple


@dataclass(frozen=True)
class Keys:
    """A dict whose keys are known and whose values may not be (what ``**kwargs`` packs, ``{"device": device}``)."""

    values: tuple  # ((key, value), ...)

    def get(self, key, default=UNKNOWN):
        return next((v for k, v in self.values if k == key), default)

    def without(self, key) -> Keys:
        return Keys(tuple((k, v) for k, v in self.values if k != key))


@dataclass(frozen=True)
class Fields:
    """An object whose attributes are known (the namespace a launcher's parser returns: ``args.max_restarts``)."""

    values: tuple  # ((attribute, value), ...)

    def get(self, name: str):
        return next((v for k, v in self.values if k == name), UNKNOWN)


@dataclass(frozen=True)
class Function:
    """A function of the released sources walked inline where a call reaches it (npulab.lint.callees builds it):
    its body and parameters (``self`` left out), the default values, its class's methods and property setters,
    how names of its module resolve, the constructor ``super().__init__(…)`` runs, and how a call inside it finds
    the function or class it names (``lookup``: ast.expr -> Function or None)."""

    name: str  # module.qualname: where a refusal inside it sits
    body: list
    params: list  # positional, then keyword-only
    positional: int
    defaults: dict
    resolve: object
    vararg: str | None = None
    kwarg: str | None = None
    methods: dict = field(default_factory=dict)
    setters: dict = field(default_factory=dict)
    base: Function | None = None
    lookup: object = field(default=lambda node: None)
    classes: object = field(default=lambda node: False)
    types: object = field(default=lambda node: None)  # ast.expr -> a type of the standard library (numbers.Number)
    constructor: bool = False  # a class's __init__: the call's value is the new object
    closure: dict = field(default_factory=dict)  # names its body sees from outside (a decorator's ``method``)


@dataclass(frozen=True)
class Wrapped:
    """The function a validating decorator wraps, as its wrapper sees it (``method``; npulab.lint.decorators)."""

    function: Function


def bound_to(wrapped: Function, positional: list, keywords: dict):
    """What binding the call's arguments to the wrapped function's signature gives (MindSpore's
    ``parse_user_args(method, *args, **kwargs)``: its parameters' values in order, defaults applied, and the
    mapping of names to them): Items((Items(values), Keys(…))), or UNKNOWN where the call does not fit."""
    values = bind_values(wrapped, positional, keywords)
    if values is None:
        return UNKNOWN
    order = wrapped.params[:wrapped.positional] + [wrapped.vararg] * bool(wrapped.vararg) \
        + wrapped.params[wrapped.positional:] + [wrapped.kwarg] * bool(wrapped.kwarg)  # the signature's order
    return Items((Items(tuple(values[p] for p in order), list), Keys(tuple((p, values[p]) for p in order))))


def wrapping(function: Function) -> int:
    """1 for a validating decorator's wrapper (what it wraps is walked as deep as an undecorated call), else 0."""
    return int(any(isinstance(v, Wrapped) for v in function.closure.values()))


def binds(function: Function) -> bool:
    """Whether a function binds arguments to another's signature (``inspect.signature(method).bind(…)``)."""
    names = {n.attr for stmt in function.body for n in ast.walk(stmt) if isinstance(n, ast.Attribute)}
    return {"signature", "bind"} <= names


Base = Function  # what ``super().__init__(…)`` runs


def _known(value) -> bool:
    return value is not UNKNOWN and not isinstance(value, NotNone)


def bind_values(function: Function, positional: list, keywords: dict) -> dict | None:
    """Parameter -> value of a call of ``function`` (``*args`` packed as Items, ``**kwargs`` as Keys, the others
    their defaults or UNKNOWN); None where the call itself does not fit (the signature check reports that)."""
    named = function.params[:function.positional]
    values = dict(zip(named, positional, strict=False))
    extra = positional[len(named):]
    if extra and function.vararg is None:
        return None
    if function.vararg is not None:
        values[function.vararg] = tuple(extra) if all(_known(v) for v in extra) else Items(tuple(extra))
    rest = {}
    for name, value in keywords.items():
        if name in values:
            return None
        if name in function.params:
            values[name] = value
        else:
            rest[name] = value
    if rest and function.kwarg is None:
        return None
    if function.kwarg is not None:
        values[function.kwarg] = Keys(tuple(rest.items()))
    return {**{p: function.defaults.get(p, UNKNOWN) for p in function.params}, **values}
