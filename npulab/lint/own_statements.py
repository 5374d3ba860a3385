"""lint-npu, own checks: a function's statements walked in order (:func:`run`) — branches whose test is unknown
walked both ways and merged, loops unrolled or forgotten, the ``self.method()`` and released functions a call
reaches entered inline — recording each refusal (an ``if`` or ``assert`` that raises, or warns and resets a value it
tests, when every enclosing test is true for the call)."""

from __future__ import annotations

import ast
import re

from npulab.lint.own_expressions import (
    _MAX_CALL_DEPTH,
    Walk,
    _key,
    _merge_value,
    evaluate,
    keys_read,
    register_call_walker,
    truth,
)
from npulab.lint.walked import (  # the values and functions a walk handles (re-exported: own_checks.UNKNOWN …)
    UNKNOWN,
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
    return set().union(*(_written(s)[0] for s in stmts))


def _written(stmt: ast.stmt) -> tuple[frozenset[str], frozenset[str]]:
    """The keys a statement stores and the keys whose methods it calls (``x.append(...)``), read once per node: a
    branch's statements are asked again at each enclosing test."""
    cached = getattr(stmt, "_npulab_written", None)
    if cached is None:
        nodes = list(ast.walk(stmt))
        stored = frozenset(k for n in nodes if isinstance(n, (ast.Name, ast.Attribute))
                           and isinstance(n.ctx, ast.Store) and (k := _key(n)) is not None)
        grown = frozenset(k for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                          and (k := _key(n.func.value)) is not None)
        cached = stmt._npulab_written = (stored, grown)
    return cached


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
    grown = set().union(*(_written(s)[1] for s in stmts))
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


register_call_walker(_reached, _enter_call)  # a call inside an expression is walked as a call statement is
