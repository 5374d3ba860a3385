"""lint-npu, the tests a function's validation code makes on a number or a switch, read from the released source:

- :func:`numeric_test`: the parameter an ``if`` that raises or warns and resets (:func:`rejects`) compares with
  numbers only (``if fraction < 0 or fraction > 1: raise ValueError``, ``if not 0 <= x <= 1``), and
  :func:`refuses`, which evaluates that test on a literal (torch_npu's ``set_per_process_memory_fraction(1.5)``);
- :func:`number_check`: MindSpore's checking helpers that return ``_check_number(arg_value, 0, GT, int, …)``;
- :func:`truth_tested`: parameters with a ``True``/``False`` default that the function only ever tests for truth
  (``'enable' if jit_compile else 'disable'``): a string given there is always true, ``"False"`` included.

Only comparisons between the parameter and number literals and ``isinstance`` tests of it against number types,
joined by ``and``/``or``/``not``, are evaluated; any other test is left alone.
"""

from __future__ import annotations

import ast
import operator
import re

_TYPES = {"int": int, "float": float, "bool": bool}
_OPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
        ast.Eq: operator.eq, ast.NotEq: operator.ne}


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _evaluate(test: ast.expr, held: str, value: float) -> bool | None:
    """The test's truth with ``held`` (the expression holding the parameter) replaced by ``value``; None when the
    test is not made of number comparisons of that expression alone."""
    if isinstance(test, ast.BoolOp):
        parts = [_evaluate(v, held, value) for v in test.values]
        if None in parts:
            return None
        return any(parts) if isinstance(test.op, ast.Or) else all(parts)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _evaluate(test.operand, held, value)
        return None if inner is None else not inner
    if isinstance(test, ast.Call) and ast.unparse(test.func) == "isinstance" and len(test.args) == 2 \
            and ast.unparse(test.args[0]) == held:  # not isinstance(warmup, int) or warmup < 0
        kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        types = [_TYPES.get(getattr(k, "id", None)) for k in kinds]
        return None if None in types else isinstance(value, tuple(types))
    if isinstance(test, ast.Compare) and all(type(op) in _OPS for op in test.ops):
        operands = [test.left, *test.comparators]
        numbers = [value if ast.unparse(o) == held else _number(o) for o in operands]
        if None in numbers or not any(ast.unparse(o) == held for o in operands):
            return None
        return all(_OPS[type(op)](a, b) for op, a, b in zip(test.ops, numbers[:-1], numbers[1:], strict=True))
    return None


def numeric_test(test: ast.expr, names: dict[str, str]) -> tuple[str, str] | None:
    """(parameter, the expression holding it) when ``test`` compares one parameter with numbers only."""
    held = {ast.unparse(n) for n in ast.walk(test) if isinstance(n, (ast.Name, ast.Attribute))} & set(names)
    if len(held) != 1:
        return None
    expression = held.pop()
    if not any(isinstance(n, ast.Compare) for n in ast.walk(test)):
        return None  # isinstance alone: a type check (api_values reads those as types)
    return (names[expression], expression) if _evaluate(test, expression, 0) is not None else None


def rejects(body: list[ast.stmt], held: str, unimplemented: bool = True) -> bool:
    """Whether an ``if`` body rejects the value: it raises (``NotImplementedError`` only when ``unimplemented``: in
    a method other than the constructor it says that method is not implemented for the value, as in
    ``Independent.enumerate_support``, not that the value is refused), or it warns and resets the expression holding it
    (``print_warn_msg("Invalid parameter active, reset it to 1"); self.active = 1``). A warning alone (``if warmup
    == 0: warn("… can skew results")``) is advice, and a silent reassignment (``if timeout < 0: timeout = None``)
    may be how a documented sentinel is read: neither is a refusal. What a further ``if`` inside decides is not
    counted (``if padding_idx > 0: if padding_idx >= num_embeddings: raise`` refuses no positive number alone)."""
    nodes = [n for stmt in body for n in _unconditional(stmt)]
    if any(isinstance(n, ast.Raise) and (unimplemented or not not_implemented(n)) for n in nodes):
        return True
    warns = any(isinstance(n, ast.Call) and re.search(r"warn", ast.unparse(n.func), re.IGNORECASE) for n in nodes)
    return warns and any(isinstance(n, ast.Assign) and any(ast.unparse(t) == held for t in n.targets) for n in nodes)


def not_implemented(node: ast.Raise) -> bool:
    """Whether ``node`` raises ``NotImplementedError`` (the class or an instance of it)."""
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def _unconditional(stmt: ast.stmt):
    """The nodes of a statement that run whenever it runs: not those under a further ``if``, loop or handler."""
    yield stmt
    if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try)):
        return
    for child in ast.iter_child_nodes(stmt):
        yield from (_unconditional(child) if isinstance(child, ast.stmt) else ast.walk(child))


def refuses(test: ast.expr, held: str, value) -> bool:
    """Whether the test (true: the value is refused) is true for a number literal."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return bool(_evaluate(test, held, value))


# MindSpore's _checkparam relations (``GT = 5  # >``): the comparison a value must pass
_RELATIONS = {"EQ": "==", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">="}


def number_check(helper: ast.FunctionDef, param: str) -> tuple[ast.expr, str] | None:
    """(the refusing test on ``param``, the type) of a checking function that returns
    ``_check_number(arg_value, 0, GT, int, …)`` (MindSpore's ``check_positive_int`` and its kin)."""
    first = helper.args.args[0].arg
    for node in ast.walk(helper):
        call = node.value if isinstance(node, ast.Return) and isinstance(node.value, ast.Call) else None
        if call is None or ast.unparse(call.func).rsplit(".", 1)[-1] != "_check_number" or len(call.args) < 4:
            continue
        value, rel, kind = call.args[1:4]
        if ast.unparse(call.args[0]) == first and _number(value) is not None and ast.unparse(rel) in _RELATIONS \
                and ast.unparse(kind) in _TYPES:
            test = ast.parse(f"not {param} {_RELATIONS[ast.unparse(rel)]} {ast.unparse(value)}", mode="eval").body
            return test, ast.unparse(kind)
    return None


_TRUTH_CONTEXTS = (ast.If, ast.IfExp, ast.While, ast.Assert)


def truth_tested(func: ast.FunctionDef) -> set[str]:
    """Parameters whose default is ``True``/``False`` and whose every use in ``func`` is a truth test (``if p``,
    ``a if p else b``, ``not p``, ``p and …``, ``bool(p)``)."""
    args = func.args.posonlyargs + func.args.args
    defaults = dict(zip([a.arg for a in args][len(args) - len(func.args.defaults):], func.args.defaults, strict=True))
    defaults.update({a.arg: d for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults, strict=True) if d is not None})
    switches = {name for name, d in defaults.items() if isinstance(d, ast.Constant) and isinstance(d.value, bool)}
    tested: set[int] = set()
    for node in ast.walk(func):
        if isinstance(node, _TRUTH_CONTEXTS):
            tested.add(id(node.test))
        elif isinstance(node, ast.BoolOp):
            tested.update(id(v) for v in node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            tested.add(id(node.operand))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "bool" and node.args:
            tested.add(id(node.args[0]))
    uses: dict[str, list[bool]] = {}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id in switches:
            uses.setdefault(node.id, []).append(isinstance(node.ctx, ast.Load) and id(node) in tested)
    return {name for name, used in uses.items() if used and all(used)}
