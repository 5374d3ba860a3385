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
import math
import operator
import re
from dataclasses import dataclass, field

from npulab.lint.walked import (  # the values and functions a walk handles (re-exported: own_checks.UNKNOWN …)
    UNKNOWN,
    Base,
    Fields,
    Function,
    Items,
    Keys,
    NotNone,
    Refusal,
    Wrapped,
    _known,
    bind_values,
    binds,
    bound_to,
    wrapping,
)

_WARN = re.compile(r"warn", re.IGNORECASE)
_BUILTINS = {"int": int, "float": float, "bool": bool, "str": str, "list": list, "tuple": tuple, "dict": dict,
             "set": set}
_CONVERT = {"len": len, "list": list, "set": set, "tuple": tuple, "sorted": sorted, "str": str, "int": int,
            "float": float, "bool": bool, "abs": abs}
_STR_METHODS = {"isdigit", "isdecimal", "isnumeric", "isalpha", "isalnum", "isspace", "islower", "isupper", "lower",
                "upper", "strip", "lstrip", "rstrip", "startswith", "endswith", "split", "replace", "find", "rfind",
                "count"}
_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_MAX_CALL_DEPTH = 6
_BUDGET = 6000  # statements one check may walk, nested calls included
_LITERAL_TYPES = (int, float, str, bool, type(None), bytes)


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
    lookup: object = field(default=lambda node: None)  # ast.expr -> the Function a call names, or None
    types: object = field(default=lambda node: None)  # ast.expr -> a standard-library type (numbers.Number)
    setters: dict = field(default_factory=dict)  # property name -> its setter (``self.x = v`` runs it)
    origin: str | None = None  # the reached function walked (None: the called one)
    local: dict = field(default_factory=dict)  # name -> a ``def`` nested in the walked body (a closure)
    budget: list = field(default_factory=lambda: [_BUDGET])  # statements left to walk, shared by nested walks
    level: int = 0  # how many calls deep this walk is

    def into(self, function: Function) -> Walk:
        """The walk of a function a call reaches: its own module and class, what is found shared."""
        return Walk(function.methods, function.resolve, self.found, self.warned, self.stored, [], function.base,
                    function.classes, function.lookup, function.types, function.setters, function.name, {},
                    self.budget, self.level + 1)


def truth(value):
    if value is UNKNOWN:
        return UNKNOWN
    if isinstance(value, NotNone):
        return UNKNOWN if value.truth is None else value.truth
    if isinstance(value, (Items, Keys)):
        return bool(value.values)
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
        if key.startswith("self."):
            return UNKNOWN
        value = walk.resolve(node)
        return _BUILTINS[key] if value is UNKNOWN and key in _BUILTINS else value  # check_number_range(…, float)
    if isinstance(node, ast.Attribute):
        owner = state.get(node.value.id) if isinstance(node.value, ast.Name) else None
        return owner.get(node.attr) if isinstance(owner, Fields) else walk.resolve(node)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        items = [evaluate(e, state, walk) for e in node.elts]
        kind = {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)]
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return NotNone(kind, bool(node.elts) or None)
        if any(not _known(v) for v in items):
            return Items(tuple(items), kind) if kind is not set else NotNone(kind, bool(items))
        try:
            return kind(items)
        except TypeError:
            return NotNone(kind, bool(items))
    if isinstance(node, ast.Dict):
        try:
            return ast.literal_eval(node)
        except ValueError:
            pass
        if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
            return Keys(tuple((k.value, evaluate(v, state, walk)) for k, v in zip(node.keys, node.values, strict=True)))
        return NotNone(dict, bool(node.keys) or None)
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.JoinedStr)):
        return NotNone({ast.ListComp: list, ast.DictComp: dict, ast.SetComp: set, ast.JoinedStr: str}.get(type(node)))
    if isinstance(node, ast.Subscript):
        base, index = evaluate(node.value, state, walk), evaluate(node.slice, state, walk)
        if isinstance(base, (Items, Keys)) and _known(index):
            try:
                return base.values[index] if isinstance(base, Items) else base.get(index)
            except (LookupError, TypeError):
                return UNKNOWN
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
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(b, Keys) and _known(a):
            results.append((a in dict(b.values)) == isinstance(op, ast.In))  # "proj_size" in kwargs
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
        return _isinstance(evaluate(node.args[0], state, walk), _kinds(node.args[1], state, walk))
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "pop") and not node.keywords \
            and (key := _key(node.func.value)) is not None and isinstance(state.get(key), (dict, Keys)):
        return _dict_read(key, node, state, walk)
    if ast.unparse(node.func) in _MATH and len(node.args) == 1:
        value = evaluate(node.args[0], state, walk)
        return _MATH[ast.unparse(node.func)](value) if type(value) in (int, float) else UNKNOWN
    if isinstance(node.func, ast.Attribute) and node.func.attr in _STR_METHODS and not node.keywords:
        text, args = evaluate(node.func.value, state, walk), [evaluate(a, state, walk) for a in node.args]
        if isinstance(text, str) and all(_known(a) for a in args):  # value.isdigit()
            try:
                return getattr(text, node.func.attr)(*args)
            except (TypeError, ValueError):
                return UNKNOWN
        return UNKNOWN
    if name == "callable" and len(node.args) == 1:
        return _callable(evaluate(node.args[0], state, walk))
    if name in ("any", "all") and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp):
        return _quantified(name == "any", node.args[0], state, walk)
    if isinstance(walk, Walk) and walk.level < _MAX_CALL_DEPTH and (reached := _reached(node, state, walk, walk.level)):
        # a call inside a test (``if not _check_inc_rel(value, low, high, rel):``): only its value; under an unknown
        # test nothing it meets counts as a refusal
        return _enter_call(node, *reached, state, walk, [None], walk.level)[1]
    if name in _CONVERT and len(node.args) == 1 and not node.keywords:
        value = evaluate(node.args[0], state, walk)
        if isinstance(value, (Items, Keys)) and name in ("len", "tuple", "list"):
            return len(value.values) if name == "len" else Items(value.values, _CONVERT[name]) \
                if isinstance(value, Items) else UNKNOWN
        if _known(value):
            try:
                return _CONVERT[name](value)
            except (TypeError, ValueError):
                return UNKNOWN
    return UNKNOWN


def _callable(value):
    """``callable(value)``: False for a literal or a display, UNKNOWN for anything else."""
    if isinstance(value, (Items, Keys)) or (isinstance(value, NotNone) and value.kind in (list, tuple, dict, set, str)):
        return False
    return callable(value) if _known(value) and isinstance(value, _LITERAL_TYPES + (list, tuple, dict, set)) else UNKNOWN


_MATH = {"math.isinf": math.isinf, "math.isnan": math.isnan, "math.isfinite": math.isfinite}
_FOREIGN = object()  # a class no plain literal is an instance of


def _kinds(node: ast.expr, state: dict, walk) -> list:
    """The classes an ``isinstance`` test names: a type (builtins, the standard library's ABCs, a value that is a
    type), _FOREIGN for a class of the sources no literal belongs to, None for one not known here (Tensor)."""
    out = []
    for kind in node.elts if isinstance(node, ast.Tuple) else [node]:
        if isinstance(kind, ast.Name) and kind.id in _BUILTINS and kind.id not in state:
            out.append(_BUILTINS[kind.id])
        elif (std := walk.types(kind)) is not None:
            out.append(std)
        elif walk.classes(kind):
            out.append(_FOREIGN)
        else:
            value = evaluate(kind, state, walk)
            values = value if isinstance(value, tuple) and not isinstance(kind, ast.Tuple) else (value,)
            out.extend(v if isinstance(v, type) else None for v in values)  # isinstance(x, tuple(valid_types))
    return out


def _isinstance(value, kinds: list):
    if value is UNKNOWN or (isinstance(value, NotNone) and value.kind is None):
        return UNKNOWN
    kind = value.kind if isinstance(value, (NotNone, Items)) else dict if isinstance(value, Keys) else type(value)
    if any(isinstance(t, type) and issubclass(kind, t) for t in kinds):
        return True
    if None in kinds or (_FOREIGN in kinds and kind not in _LITERAL_TYPES):
        return UNKNOWN  # a type not known here (Tensor) may still match
    return False


def _dict_read(key: str, node: ast.Call, state: dict, walk):
    """``kwargs.get(name, default)`` / ``kwargs.pop(name, default)``: the value, and for ``pop`` the dict without it."""
    args = [evaluate(a, state, walk) for a in node.args]
    if not args or not _known(args[0]) or len(args) > 2:
        return UNKNOWN
    held = state[key] if isinstance(state[key], Keys) else Keys(tuple(state[key].items()))
    default = args[1] if len(args) == 2 else UNKNOWN
    if node.func.attr == "pop":
        state[key] = held.without(args[0])
    return held.get(args[0], default)


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
    if isinstance(a, (Items, Keys)) and a == b:
        return a
    if isinstance(a, NotNone) and isinstance(b, NotNone):
        return NotNone(a.kind if a.kind is b.kind else None, a.truth if a.truth == b.truth else None)
    return UNKNOWN


_RETURNED, _MAYBE = "#returned", "#maybe"  # the path returned; some paths returned (what follows may not run)
_DECIDED = "#decided"  # the last test the path passed whose truth the call decided (an ``if``, negated if false)


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
        walk.budget[0] -= 1
        here = [*stack, None] if state.get(_MAYBE) else stack  # after a return in an unknown branch
        after = _statement(stmt, dict(state), walk, here, depth)
        if after is None and state.get(_MAYBE):  # the paths that returned before live on
            return {**state, _RETURNED: True}
        state = after
    return state


def _statement(stmt: ast.stmt, state: dict, walk: Walk, stack: list, depth: int) -> dict | None:
    if isinstance(stmt, ast.If):
        test = truth(evaluate(stmt.test, state, walk))
        if test is UNKNOWN:
            return _merge(run(stmt.body, state, walk, [*stack, None], depth),
                          run(stmt.orelse, state, walk, [*stack, None], depth))
        if test:
            return run(stmt.body, {**state, _DECIDED: stmt}, walk, [*stack, stmt], depth)
        return run(stmt.orelse, {**state, _DECIDED: _negated(stmt)}, walk,
                   [*stack, _negated(stmt)] if stmt.orelse else stack, depth)
    if isinstance(stmt, ast.Assert):
        held = truth(evaluate(stmt.test, state, walk))
        if held is False and all(entry is not None for entry in stack):
            walk.found.append(Refusal(ast.UnaryOp(ast.Not(), stmt.test), stmt.lineno, "AssertionError",
                                      origin=walk.origin))
            return None
        return state
    if isinstance(stmt, ast.Raise):
        # under true tests, or after tests the call decided (``if name == "relu": return …`` then ``raise``)
        decided = stack[-1] if stack else state.get(_DECIDED)
        if isinstance(decided, ast.If) and all(entry is not None for entry in stack):
            error = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
            walk.found.append(Refusal(decided.test, decided.lineno, ast.unparse(error) if error else "Exception",
                                      origin=walk.origin))
        return None
    if isinstance(stmt, ast.Return):
        state, value = _value(stmt.value, state, walk, stack, depth) if stmt.value is not None else (state, None)
        if state is None:
            return None
        if walk.returned:
            walk.returned[-1].append(value)
        return {**state, _RETURNED: True}
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and (stmt.value is not None):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        state, value = _value(stmt.value, state, walk, stack, depth)  # self._x = self._as_list(x)
        if state is None:
            return None
        for target in targets:
            key = _key(target)
            if key is not None and key.startswith("self.") and key[5:] in walk.setters and len(targets) == 1:
                state = _enter(walk.setters[key[5:]], [value], {}, state, walk, stack, depth, on_self=True)[0]
                if state is None:  # the property's setter refused the value
                    return None
            if key is not None:
                _stored(key, walk, stack)
                state[key] = value if len(targets) == 1 else UNKNOWN
            for k in _stores([ast.Expr(target)]) - {key}:
                state[k] = UNKNOWN
            if len(targets) == 1:  # min_nodes, max_nodes = parse_min_max_nnodes(args.nnodes)
                _unpack(target, value, state)
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
        if after is not None and any(isinstance(n, ast.Return) for h in stmt.handlers for n in ast.walk(h)):
            after = {**after, _MAYBE: True}  # a handler returns (``except StopIteration: return``): what follows may not run
        return run(stmt.finalbody, after, walk, stack, depth) if after is not None else None
    if isinstance(stmt, ast.For) and (items := _loop_items(stmt, state, walk)) is not None:
        for item in items:  # a loop over a short known sequence, walked item by item
            _unpack(ast.Tuple([stmt.target], ast.Store()), (item,), state)
            state = run(stmt.body, state, walk, stack, depth)
            if state is None or state.get(_RETURNED):
                return state
        return state
    if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
        return _forget(state, [*stmt.body, *stmt.orelse, stmt])
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        state[stmt.name] = UNKNOWN
        if isinstance(stmt, ast.FunctionDef):
            walk.local[stmt.name] = stmt  # called below as a closure (MindSpore's ``def _check_param(): …``)
        return state
    return _forget(state, [stmt])


def _unpack(target: ast.expr, value, state: dict) -> None:
    """``a, b = value`` and ``[a], _ = value`` where the value's items are known by position."""
    items = value.values if isinstance(value, Items) else value if isinstance(value, (tuple, list)) else None
    if isinstance(target, (ast.Tuple, ast.List)) and items is not None and len(items) == len(target.elts):
        for element, item in zip(target.elts, items, strict=True):
            if (k := _key(element)) is not None:
                state[k] = item
            else:
                _unpack(element, item, state)


_MAX_UNROLLED = 32


def _loop_items(stmt: ast.For, state: dict, walk: Walk) -> list | None:
    """The items a ``for`` loop runs over where they are known and few (``enumerate(milestone)`` of a literal list),
    and its body neither jumps (break, continue) nor has an ``else``; None otherwise."""
    if stmt.orelse or any(isinstance(n, (ast.Break, ast.Continue)) for b in stmt.body for n in ast.walk(b)):
        return None
    node, numbered = stmt.iter, False
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "enumerate" \
            and len(node.args) == 1 and not node.keywords and "enumerate" not in state:
        node, numbered = node.args[0], True
    view = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args \
        and node.func.attr in ("items", "keys", "values") else None  # for key, value in config.items()
    value = evaluate(node.func.value if view else node, state, walk)
    if view and isinstance(value, (dict, Keys)):
        pairs = list(value.values) if isinstance(value, Keys) else list(value.items())
        value = {"items": pairs, "keys": [k for k, _ in pairs], "values": [v for _, v in pairs]}[view]
    elif view:
        return None
    items = list(value.values) if isinstance(value, Items) else list(value) if isinstance(value, (list, tuple)) else None
    if items is None or len(items) > _MAX_UNROLLED:
        return None
    return list(enumerate(items)) if numbered else items


def _negated(stmt: ast.If) -> ast.If:
    """The test an ``else`` branch stands in: the ``if``'s, negated (``else: raise`` after ``if mode == "tanh"``)."""
    return ast.If(ast.UnaryOp(ast.Not(), stmt.test), [], [], lineno=stmt.lineno)


def _forget(state: dict, stmts: list) -> dict:
    """``state`` without what ``stmts`` may change (their stores, and what they grow: ``x.append(...)``)."""
    grown = {k for s in stmts for n in ast.walk(s) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and (k := _key(n.func.value)) is not None}
    return {**state, **dict.fromkeys(_stores(stmts) | grown, UNKNOWN)}


def _refused_by_reset(node: ast.If, key: str, walk: Walk) -> None:
    walk.found.append(Refusal(node.test, node.lineno, None, key, walk.origin))
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


def _value(node: ast.expr, state: dict, walk: Walk, stack: list, depth: int) -> tuple[dict | None, object]:
    """(the state after evaluating ``node``, its value): a call of the class's own method or of a function the
    sources define is walked inline (None: it surely refuses), any other expression evaluated."""
    if isinstance(node, ast.IfExp) and (test := truth(evaluate(node.test, state, walk))) is not UNKNOWN:
        return _value(node.body if test else node.orelse, state, walk, stack, depth)  # x = f(v) if known else v
    if _own_method(node, walk, depth):
        return _invoke(node, state, walk, stack, depth)
    reached = _reached(node, state, walk, depth) if isinstance(node, ast.Call) else None
    if reached is not None:
        return _enter_call(node, *reached, state, walk, stack, depth)
    return state, evaluate(node, state, walk)


def _names_of(func: ast.expr) -> str:
    """``warnings.warn``: the names of a called expression, cheaper than unparsing it."""
    parts = []
    while isinstance(func, (ast.Attribute, ast.Call, ast.Subscript)):
        parts.append(func.attr if isinstance(func, ast.Attribute) else "")
        func = func.func if isinstance(func, ast.Call) else func.value
    return ".".join([getattr(func, "id", ""), *reversed(parts)])


def _super_init(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call) \
        and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"


def _reached(call: ast.Call, state: dict, walk: Walk, depth: int) -> tuple[Function, bool, dict | None] | None:
    """(the function a call reaches, whether it runs on ``self`` (a base class's constructor), the state it closes
    over (a nested ``def``)), or None: not one of the sources', or the depth or the budget spent."""
    if depth >= _MAX_CALL_DEPTH or walk.budget[0] <= 0:
        return None
    func = call.func
    if _super_init(func):
        return (walk.base, True, None) if walk.base is not None else None
    if isinstance(func, ast.Name) and func.id in walk.local:
        node = walk.local[func.id]
        params = [a.arg for a in node.args.args]
        defaults = dict(zip(params[len(params) - len(node.args.defaults):], node.args.defaults, strict=True))
        return Function(walk.origin or "", node.body, params, len(params),
                        {p: evaluate(d, state, walk) for p, d in defaults.items()}, walk.resolve,
                        methods=walk.methods, lookup=walk.lookup, classes=walk.classes, types=walk.types), False, state
    if isinstance(func, ast.Name) and isinstance(state.get(func.id), Wrapped):  # method(self, *args, **kwargs)
        on_self = bool(call.args) and isinstance(call.args[0], ast.Name) and call.args[0].id == "self"
        return state[func.id].function, on_self, None
    if isinstance(func, ast.Name) and func.id in state:
        return None  # a local value, not a module's function
    function = walk.lookup(func)
    if function is None:
        return None
    explicit = isinstance(func, ast.Attribute) and func.attr == "__init__"  # Base.__init__(self, …)
    if explicit and not (call.args and isinstance(call.args[0], ast.Name) and call.args[0].id == "self"):
        return None
    return function, explicit, None


def arguments(call: ast.Call, value_of) -> tuple[list, dict] | None:
    """(positional values, keyword -> value) of a call, ``*x`` and ``**x`` spread where ``x`` is known by length or
    keys (``**factory_kwargs``); None where a splat is not."""
    positional: list = []
    for arg in call.args:
        value = value_of(arg.value if isinstance(arg, ast.Starred) else arg)
        if not isinstance(arg, ast.Starred):
            positional.append(value)
        elif isinstance(value, (Items, tuple, list)):
            positional += value.values if isinstance(value, Items) else value
        else:
            return None
    keywords: dict = {}
    for keyword in call.keywords:
        value = value_of(keyword.value)
        if keyword.arg is not None:
            keywords[keyword.arg] = value
        elif isinstance(value, Keys) or (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
            keywords.update(value.values if isinstance(value, Keys) else value)
        else:
            return None
    return positional, keywords


def _informative(value) -> bool:
    return _known(value) or (isinstance(value, (Items, Keys)) and any(_informative(v) for v in
                                                                      (value.values if isinstance(value, Items) else dict(value.values).values())))


def _enter_call(call: ast.Call, function: Function, on_self: bool, outer: dict | None, state: dict, walk: Walk,
                stack: list, depth: int) -> tuple[dict | None, object]:
    args = arguments(call, lambda node: evaluate(node, state, walk))
    if args is None:
        return state, NotNone() if function.constructor else UNKNOWN
    positional, keywords = args
    if positional and isinstance(positional[0], Wrapped) and binds(function):  # parse_user_args(method, …)
        return state, bound_to(positional[0].function, positional[1:], keywords)
    if on_self and not _super_init(call.func):
        positional = positional[1:]  # Base.__init__(self, …)
    written = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
    if not (on_self or outer is not None) and (not any(_informative(v) for v in [*positional, *keywords.values()])
                                               or all(isinstance(a, ast.Constant) for a in written)):
        # nothing of the call's is known in it, or nothing but constants: what those make it refuse, the
        # defaults alone make it refuse too
        return state, NotNone() if function.constructor else UNKNOWN
    return _enter(function, positional, keywords, state, walk, stack, depth, on_self, outer)


def _enter(function: Function, positional: list, keywords: dict, state: dict, walk: Walk, stack: list, depth: int,
           on_self: bool = False, outer: dict | None = None) -> tuple[dict | None, object]:
    """(the caller's state after a call of ``function``, walked inline with the call's values; the call's value).
    A base constructor (``on_self``) shares ``self``'s attributes and the subclass's overriding methods; a closure
    sees the state it was defined in (``outer``)."""
    values = bind_values(function, positional, keywords)
    if values is None:
        return state, UNKNOWN
    inner = walk.into(function)
    if on_self:
        inner.methods = {**function.methods, **walk.methods}
    if outer is not None:
        inner.origin, inner.local = walk.origin, walk.local
    own = {k: v for k, v in state.items() if k.startswith("self.")} if on_self else {}
    inner.returned.append([])
    inner.level -= wrapping(function)  # a decorator's wrapper is not a call deeper
    after = run(function.body, {**(outer or {}), **function.closure, **own, **values}, inner, stack,
                depth + 1 - wrapping(function))
    returned = inner.returned.pop()
    if after is None:  # every path raised
        return None, UNKNOWN
    if on_self:
        state = {**state, **{k: v for k, v in after.items() if k.startswith("self.")}}
    if function.constructor:
        return state, NotNone()
    if not after.get(_RETURNED):
        returned.append(None)
    value = returned[0]
    for other in returned[1:]:
        value = _merge_value(value, other)
    return state, value


def _expression_call(call: ast.Call, state: dict, walk: Walk, stack: list, depth: int) -> dict | None:
    func = call.func
    if re.search(_WARN, _names_of(func)):
        if stack and stack[-1] is not None:
            _warning(walk, stack)
        return state
    if _own_method(call, walk, depth) or _reached(call, state, walk, depth) is not None:
        return _value(call, state, walk, stack, depth)[0]
    if isinstance(func, ast.Attribute) and (key := _key(func.value)) is not None:
        evaluate(call, state, walk)  # kwargs.pop(name)
        if not isinstance(state.get(key), (NotNone, Keys)):
            state[key] = UNKNOWN  # x.append(...)
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


def refusals_of(function: Function, values: dict) -> list[Refusal]:
    """The refusals of ``function`` run with ``values`` (parameter -> value), following the functions and
    constructors it calls (their refusals carry ``origin``)."""
    walk = Walk({}, function.resolve).into(function)
    walk.origin = None
    walk.level -= wrapping(function)
    run(function.body, {**function.closure, **values}, walk, [], -wrapping(function))
    return walk.found
