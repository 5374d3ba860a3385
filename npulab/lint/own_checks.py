"""lint-npu, the checks a called function makes on its arguments TOGETHER, read from its released source and run on
a call's literals: ``if num_workers == 0 and prefetch_factor is not None: raise ValueError`` (DataLoader),
``if rank >= num_replicas or rank < 0: raise`` (DistributedSampler), ``if mode is not None and options is not
None: raise`` (torch.compile), ``if not 0.0 <= betas[1] < 1.0: raise`` (Adam), and a constructor's
``_check_params()`` that warns and resets one of the values it tests (torch_npu's profiler ``_ExperimentalConfig``).

:func:`refusals` walks the function's statements in order (a constructor's, and the ``self.method()`` calls it
makes, inline) over three-valued values: a literal, :data:`UNKNOWN`, or :class:`NotNone` for what a call gives
that is not a literal but is surely not ``None`` (a list display, a constructor call). A branch whose test is
unknown is walked both ways and the two results merged; a loop forgets what it may change. An ``if`` (or
``assert``) is a *refusal* when its test is true for the call, every enclosing test is true too, and its body
raises, or warns and then resets one of the values the test reads (a warning alone is advice). A refusal that the
defaults alone produce (the call's own arguments unknown) is the library's business, not the call's: it is not
reported.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, field

_WARN = re.compile(r"warn", re.IGNORECASE)
_BUILTINS = {"int": int, "float": float, "bool": bool, "str": str, "list": list, "tuple": tuple, "dict": dict,
             "set": set}
_CONVERT = {"len": len, "list": list, "set": set, "tuple": tuple, "sorted": sorted, "str": str, "int": int,
            "float": float, "bool": bool, "abs": abs}
_STR_METHODS = {"isdigit", "isdecimal", "isnumeric", "isalpha", "isalnum", "isspace", "islower", "isupper", "lower",
                "upper", "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "replace"}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_MAX_CALL_DEPTH = 3
_LITERAL_TYPES = (int, float, str, bool, type(None), bytes)


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
class Refusal:
    test: ast.expr  # the test that holds (for an ``assert``, its negation)
    line: int
    raises: str | None  # the exception raised (``ValueError``), or None for a warning and a reset
    reset: str | None = None  # what is reset after the warning


@dataclass(frozen=True)
class Base:
    """The constructor a ``super().__init__(…)`` call runs: its body, parameters, their default values, its class's
    methods, and how names of its module resolve."""

    body: list
    params: list
    defaults: dict
    methods: dict
    resolve: object


def bind(params: list[str], defaults: dict, call: ast.Call, value_of) -> tuple[dict, dict] | None:
    """(parameter -> value, parameter -> the expression given) of a call: its arguments by position and keyword
    (``value_of`` turns each into a value), the others their ``defaults`` (UNKNOWN where there is none); None when
    a ``*args`` or ``**kwargs`` splat makes that unknowable."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    given = dict(zip(params, call.args, strict=False))
    given.update({k.arg: k.value for k in call.keywords if k.arg in params})
    return {p: value_of(given[p]) if p in given else defaults.get(p, UNKNOWN) for p in params}, given


@dataclass
class Walk:
    """One walk of a function: its class's methods (for ``self.m()``), how names outside the walk resolve
    (module constants), and what it found."""

    methods: dict
    resolve: object  # callable(ast.expr) -> value or UNKNOWN
    found: list = field(default_factory=list)
    warned: list = field(default_factory=list)  # (if node, keys it reads, the stack it stood in)
    stored: dict = field(default_factory=dict)  # id(if node) -> keys stored while it was true and enclosing
    returned: list = field(default_factory=list)  # per method call walked inline: the values it returns
    base: Base | None = None  # what ``super().__init__(…)`` runs
    # callable(ast.expr) -> True when the expression names a class of the released sources that no plain literal
    # (int, float, str, bool, None) is an instance of (torch_npu's IntEnum _CubeMathType), else False
    classes: object = field(default=lambda node: False)


def truth(value):
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, NotNone):
        return UNKNOWN if value.truth is None else value.truth
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - a value whose truth raises is not known
        return UNKNOWN


def _key(node: ast.expr) -> str | None:
    """The key a value is held under: ``x`` or ``self.x``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return None


def keys_read(test: ast.expr) -> set[str]:
    return {k for n in ast.walk(test) if (k := _key(n)) is not None}


def evaluate(node: ast.expr, state: dict, walk: Walk):
    """The value of an expression, UNKNOWN where it cannot be known statically."""
    if isinstance(node, ast.Constant):
        return node.value
    key = _key(node)
    if key is not None:
        if key in state:
            return state[key]
        return walk.resolve(node) if not key.startswith("self.") else UNKNOWN
    if isinstance(node, ast.Attribute):
        return walk.resolve(node)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [evaluate(e, state, walk) for e in node.elts]
        kind = {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)]
        if any(v is UNKNOWN or isinstance(v, NotNone) for v in items) or any(isinstance(e, ast.Starred) for e in node.elts):
            return NotNone(kind, bool(node.elts) or None)
        try:
            return kind(items)
        except TypeError:
            return NotNone(kind, bool(items))
    if isinstance(node, ast.Dict):
        try:
            return ast.literal_eval(node)
        except ValueError:
            return NotNone(dict, bool(node.keys) or None)
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.JoinedStr)):
        return NotNone({ast.ListComp: list, ast.DictComp: dict, ast.SetComp: set, ast.JoinedStr: str}.get(type(node)))
    if isinstance(node, ast.Subscript):
        base, index = evaluate(node.value, state, walk), evaluate(node.slice, state, walk)
        if _known(base) and _known(index):
            try:
                return base[index]
            except (LookupError, TypeError):
                return UNKNOWN
        return UNKNOWN
    if isinstance(node, ast.UnaryOp):
        inner = evaluate(node.operand, state, walk)
        if isinstance(node.op, ast.Not):
            value = truth(inner)
            return UNKNOWN if value is UNKNOWN else not value
        if isinstance(node.op, ast.USub) and _known(inner) and type(inner) in (int, float):
            return -inner
        return UNKNOWN
    if isinstance(node, ast.BoolOp):
        return _bool_op(node, state, walk)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:  # head_dim = embed_dim // num_heads
        left, right = evaluate(node.left, state, walk), evaluate(node.right, state, walk)
        if type(left) in (int, float) and type(right) in (int, float) and \
                not (isinstance(node.op, ast.Pow) and abs(right) > 64):
            try:
                return _ARITHMETIC[type(node.op)](left, right)
            except (ArithmeticError, ValueError):
                return UNKNOWN
        return UNKNOWN
    if isinstance(node, ast.IfExp):
        test = truth(evaluate(node.test, state, walk))
        if test is UNKNOWN:
            body, orelse = evaluate(node.body, state, walk), evaluate(node.orelse, state, walk)
            return _merge_value(body, orelse)
        return evaluate(node.body if test else node.orelse, state, walk)
    if isinstance(node, ast.Compare):
        return _compare(node, state, walk)
    if isinstance(node, ast.Call):
        return _call(node, state, walk)
    return UNKNOWN


def _known(value) -> bool:
    return value is not UNKNOWN and not isinstance(value, NotNone)


def _bool_op(node: ast.BoolOp, state: dict, walk: Walk):
    values = [evaluate(v, state, walk) for v in node.values]
    if all(_known(v) for v in values):  # Python's own result (a value, not only a truth)
        result = values[0]
        for v in values[1:]:
            if bool(result) != isinstance(node.op, ast.And):
                break
            result = v
        return result
    decisive = not isinstance(node.op, ast.And)  # False decides an ``and``, True an ``or``
    truths = [truth(v) for v in values]
    if decisive in truths:
        return decisive
    return UNKNOWN if UNKNOWN in truths else not decisive


def _compare(node: ast.Compare, state: dict, walk: Walk):
    operands = [evaluate(o, state, walk) for o in [node.left, *node.comparators]]
    results = []
    for op, a, b in zip(node.ops, operands, operands[1:], strict=False):
        if isinstance(op, (ast.Is, ast.IsNot)) and (a is None or b is None):
            other = b if a is None else a
            same = UNKNOWN if other is UNKNOWN else other is None
            results.append(same if same is UNKNOWN or isinstance(op, ast.Is) else not same)
            continue
        if not (_known(a) and _known(b)):
            results.append(UNKNOWN)
            continue
        try:
            results.append(_apply(op, a, b))
        except TypeError:
            results.append(UNKNOWN)
    if False in results:
        return False
    return UNKNOWN if UNKNOWN in results else True


def _apply(op: ast.cmpop, a, b) -> bool:
    if isinstance(op, ast.In):
        return a in b
    if isinstance(op, ast.NotIn):
        return a not in b
    if isinstance(op, ast.Is):
        return a is b
    if isinstance(op, ast.IsNot):
        return a is not b
    return {ast.Eq: lambda: a == b, ast.NotEq: lambda: a != b, ast.Lt: lambda: a < b, ast.LtE: lambda: a <= b,
            ast.Gt: lambda: a > b, ast.GtE: lambda: a >= b}[type(op)]()


def _call(node: ast.Call, state: dict, walk: Walk):
    name = node.func.id if isinstance(node.func, ast.Name) else None
    if name == "isinstance" and len(node.args) == 2:
        value = evaluate(node.args[0], state, walk)
        kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
        types = [_BUILTINS.get(getattr(k, "id", None)) for k in kinds]
        if value is UNKNOWN or (isinstance(value, NotNone) and value.kind is None):
            return UNKNOWN
        kind = value.kind if isinstance(value, NotNone) else type(value)
        if any(issubclass(kind, t) for t in types if t is not None):
            return True
        if None in types and not (kind in _LITERAL_TYPES and all(
                walk.classes(k) for k, t in zip(kinds, types, strict=True) if t is None)):
            return UNKNOWN  # a type not known here (Tensor) may still match
        return False
    if isinstance(node.func, ast.Attribute) and node.func.attr in _STR_METHODS and not node.keywords:
        text, args = evaluate(node.func.value, state, walk), [evaluate(a, state, walk) for a in node.args]
        if isinstance(text, str) and all(_known(a) for a in args):  # value.isdigit()
            try:
                return getattr(text, node.func.attr)(*args)
            except (TypeError, ValueError):
                return UNKNOWN
        return UNKNOWN
    if name in ("any", "all") and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp):
        return _quantified(name == "any", node.args[0], state, walk)
    if name in _CONVERT and len(node.args) == 1 and not node.keywords:
        value = evaluate(node.args[0], state, walk)
        if _known(value):
            try:
                return _CONVERT[name](value)
            except (TypeError, ValueError):
                return UNKNOWN
    return UNKNOWN


def _quantified(some: bool, gen: ast.GeneratorExp, state: dict, walk: Walk):
    """``any(…)`` (some) or ``all(…)`` over a generator whose iterable is known, item by item."""
    loop = gen.generators[0]
    if len(gen.generators) != 1 or loop.ifs or not isinstance(loop.target, ast.Name):
        return UNKNOWN
    items = evaluate(loop.iter, state, walk)
    if not _known(items) or not isinstance(items, (list, tuple, set, dict, str)):
        return UNKNOWN
    truths = [truth(evaluate(gen.elt, {**state, loop.target.id: item}, walk)) for item in items]
    if some in truths:
        return some
    return UNKNOWN if UNKNOWN in truths else not some


def _merge_value(a, b):
    if a is b or (_known(a) and _known(b) and type(a) is type(b) and a == b):
        return a
    if isinstance(a, NotNone) and isinstance(b, NotNone):
        return NotNone(a.kind if a.kind is b.kind else None, a.truth if a.truth == b.truth else None)
    return UNKNOWN


_RETURNED, _MAYBE = "#returned", "#maybe"  # the path returned; some paths returned (what follows may not run)


def _merge(a: dict | None, b: dict | None) -> dict | None:
    """Two paths joined (None: a path that raised)."""
    if a is None or b is None:
        return b if a is None else a
    flags = {_RETURNED: bool(a.get(_RETURNED) and b.get(_RETURNED)),
             _MAYBE: bool(a.get(_MAYBE) or b.get(_MAYBE) or bool(a.get(_RETURNED)) != bool(b.get(_RETURNED)))}
    values = {k: _merge_value(a.get(k, UNKNOWN), b.get(k, UNKNOWN)) for k in a.keys() | b.keys() if k not in flags}
    return {**values, **flags}


def _certain(stack: list) -> bool:
    return bool(stack) and all(entry is not None for entry in stack)


def _stores(stmts: list[ast.stmt]) -> set[str]:
    return {k for s in stmts for n in ast.walk(s) if isinstance(n, (ast.Name, ast.Attribute))
            and isinstance(n.ctx, ast.Store) and (k := _key(n)) is not None}


def run(stmts: list[ast.stmt], state: dict | None, walk: Walk, stack: list, depth: int = 0) -> dict | None:
    """The state after ``stmts`` (None: every path raised or returned). ``stack``: the enclosing tests, each an
    ``ast.If`` known to be true, or None for one whose truth is not known."""
    for stmt in stmts:
        if state is None or state.get(_RETURNED):
            return state
        here = [*stack, None] if state.get(_MAYBE) else stack  # after a return in an unknown branch
        state = _statement(stmt, dict(state), walk, here, depth)
    return state


def _statement(stmt: ast.stmt, state: dict, walk: Walk, stack: list, depth: int) -> dict | None:
    if isinstance(stmt, ast.If):
        test = truth(evaluate(stmt.test, state, walk))
        if test is UNKNOWN:
            return _merge(run(stmt.body, state, walk, [*stack, None], depth),
                          run(stmt.orelse, state, walk, [*stack, None], depth))
        return run(stmt.body, state, walk, [*stack, stmt], depth) if test else \
            run(stmt.orelse, state, walk, stack, depth)
    if isinstance(stmt, ast.Assert):
        held = truth(evaluate(stmt.test, state, walk))
        if held is False and all(entry is not None for entry in stack):
            walk.found.append(Refusal(ast.UnaryOp(ast.Not(), stmt.test), stmt.lineno, "AssertionError"))
            return None
        return state
    if isinstance(stmt, ast.Raise):
        if _certain(stack):
            error = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            walk.found.append(Refusal(stack[-1].test, stack[-1].lineno, ast.unparse(error) if error else "Exception"))
        return None
    if isinstance(stmt, ast.Return):
        if walk.returned:
            walk.returned[-1].append(evaluate(stmt.value, state, walk) if stmt.value is not None else None)
        return {**state, _RETURNED: True}
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and (stmt.value is not None):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if _own_method(stmt.value, walk, depth):  # self._x = self._as_list(x)
            after, value = _invoke(stmt.value, state, walk, stack, depth)
            if after is None:
                return None
            state = after
        else:
            value = evaluate(stmt.value, state, walk)
        for target in targets:
            key = _key(target)
            if key is not None:
                _stored(key, walk, stack)
                state[key] = value if len(targets) == 1 else UNKNOWN
            for k in _stores([ast.Expr(target)]) - {key}:
                state[k] = UNKNOWN
        return state
    if isinstance(stmt, ast.AugAssign):
        for k in _stores([stmt]):
            state[k] = UNKNOWN
        return state
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return _expression_call(stmt.value, state, walk, stack, depth)
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return run(stmt.body, state, walk, stack, depth)
    if isinstance(stmt, ast.Try):  # a raise inside may be caught: nothing in it is certain
        inner = run(stmt.body, state, walk, [*stack, None], depth)
        after = _merge(inner, _forget(state, [s for h in stmt.handlers for s in h.body]))
        return run(stmt.finalbody, after, walk, stack, depth) if after is not None else None
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
        return _forget(state, [*stmt.body, *stmt.orelse, stmt])
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        state[stmt.name] = UNKNOWN
        return state
    return _forget(state, [stmt])


def _forget(state: dict, stmts: list) -> dict:
    """``state`` without what ``stmts`` may change (their stores, and what they grow: ``x.append(...)``)."""
    grown = {k for s in stmts for n in ast.walk(s) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and (k := _key(n.func.value)) is not None}
    return {**state, **dict.fromkeys(_stores(stmts) | grown, UNKNOWN)}


def _refused_by_reset(node: ast.If, key: str, walk: Walk) -> None:
    walk.found.append(Refusal(node.test, node.lineno, None, key))
    walk.warned[:] = [w for w in walk.warned if w[0] is not node]


def _stored(key: str, walk: Walk, stack: list) -> None:
    """A store of ``key``: after a warning in a true test that reads it, in the same branch, a refusal; inside
    true tests, remembered for a warning that follows (``self._mstx = True; warn(...)``)."""
    for node, reads, where in list(walk.warned):
        if key in reads and stack[:len(where)] == where and _certain([*where, node]):
            _refused_by_reset(node, key, walk)
            return
    for entry in stack:
        if entry is not None:
            walk.stored.setdefault(id(entry), set()).add(key)


def _warning(walk: Walk, stack: list) -> None:
    for i, entry in enumerate(stack):  # every true test around the warning may be the one it is about
        if entry is None or not _certain(stack[:i + 1]):
            continue
        reads = keys_read(entry.test)
        reset = sorted(walk.stored.get(id(entry), set()) & reads)
        if reset:
            _refused_by_reset(entry, reset[0], walk)
            return
        walk.warned.append((entry, reads, stack[:i]))


def _own_method(call: ast.expr, walk: Walk, depth: int) -> bool:
    func = call.func if isinstance(call, ast.Call) else None
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
        and func.attr in walk.methods and depth < _MAX_CALL_DEPTH


def _invoke(call: ast.Call, state: dict, walk: Walk, stack: list, depth: int) -> tuple[dict | None, object]:
    """(the caller's state after ``self.m(...)``, walked inline; what it returns)."""
    method = walk.methods[call.func.attr]
    inner = {k: v for k, v in state.items() if k.startswith("self.")}
    params = [a.arg for a in method.args.args[1:]]
    inner.update(dict.fromkeys(params, UNKNOWN))
    inner.update({p: evaluate(a, state, walk) for p, a in zip(params, call.args, strict=False)})
    walk.returned.append([])
    after = run(method.body, inner, walk, stack, depth + 1)
    values = walk.returned.pop()
    if after is None:  # every path raised
        return None, UNKNOWN
    if not after.get(_RETURNED):
        values.append(None)  # some path falls off the end
    value = values[0]
    for other in values[1:]:
        value = _merge_value(value, other)
    return {**state, **{k: v for k, v in after.items() if k.startswith("self.")}}, value


def _base_init(call: ast.Call, state: dict, walk: Walk, stack: list, depth: int) -> dict | None:
    """The state after the base class's constructor, walked inline with the arguments handed to it
    (``AdamW(Adam)``: Adam checks the ``betas`` AdamW passes on)."""
    base = walk.base
    bound = bind(base.params, base.defaults, call, lambda node: evaluate(node, state, walk))
    if bound is None:
        return state
    inner = Walk({**base.methods, **walk.methods}, base.resolve, walk.found, walk.warned, walk.stored, walk.returned,
                 classes=walk.classes)
    after = run(base.body, {**{k: v for k, v in state.items() if k.startswith("self.")}, **bound[0]}, inner, stack,
                depth + 1)
    if after is None:
        return None
    return {**state, **{k: v for k, v in after.items() if k.startswith("self.")}}


def _expression_call(call: ast.Call, state: dict, walk: Walk, stack: list, depth: int) -> dict | None:
    func = call.func
    if re.search(_WARN, ast.unparse(func)):
        if stack and stack[-1] is not None:
            _warning(walk, stack)
        return state
    if _own_method(call, walk, depth):
        return _invoke(call, state, walk, stack, depth)[0]
    if ast.unparse(func) == "super().__init__" and walk.base is not None and depth < _MAX_CALL_DEPTH:
        return _base_init(call, state, walk, stack, depth)
    if isinstance(func, ast.Attribute) and (key := _key(func.value)) is not None:
        state[key] = UNKNOWN if not isinstance(state.get(key), NotNone) else state[key]  # x.append(...)
    return state


def accepts(predicate: ast.Lambda, value, resolve=lambda node: UNKNOWN):
    """Whether a one-parameter ``lambda`` accepts a value: True, False, or UNKNOWN."""
    if len(predicate.args.args) != 1:
        return UNKNOWN
    return truth(evaluate(predicate.body, {predicate.args.args[0].arg: value}, Walk({}, resolve)))


def refusals(body: list[ast.stmt], state: dict, methods: dict, resolve, base: Base | None = None,
             classes=lambda node: False) -> list[Refusal]:
    """The refusals of a function body run with ``state`` (parameter -> value)."""
    walk = Walk(methods, resolve, base=base, classes=classes)
    run(body, dict(state), walk, [])
    return walk.found
