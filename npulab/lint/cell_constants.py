"""lint-npu, numbers a cell computes from literals: ``hidden = 512 / 2`` at the top of a cell, the name bound nowhere
else, stands for 256.0 where the cell passes it on (``nn.Dense(hidden, 10)``). :func:`constants` finds them (literal
numbers, strings and booleans, arithmetic on them and on names found before); :func:`substituted` gives a copy of a
call with those names replaced by their values, so the checks of a call's literals read them."""

from __future__ import annotations

import ast
import copy
import operator

_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_KINDS = (int, float, str, bool)


def _value(node: ast.expr, known: dict):
    if isinstance(node, ast.Constant) and type(node.value) in _KINDS:
        return node.value
    if isinstance(node, ast.Name) and node.id in known:
        return known[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _value(node.operand, known)
        return -inner if type(inner) in (int, float) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        left, right = _value(node.left, known), _value(node.right, known)
        if type(left) in (int, float) and type(right) in (int, float):
            try:
                return _ARITHMETIC[type(node.op)](left, right)
            except ArithmeticError:
                return None
    return None


def constants(tree: ast.Module) -> dict[str, object]:
    """name -> value of the names a cell binds once, at its top level, to a literal or to arithmetic on literals."""
    stores: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.arg):  # a parameter of that name shadows it inside its function
            stores[node.arg] = stores.get(node.arg, 0) + 2
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                stores[name] = stores.get(name, 0) + 2
    known: dict[str, object] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stores.get(stmt.targets[0].id) == 1 and (value := _value(stmt.value, known)) is not None:
            known[stmt.targets[0].id] = value
    return known


def substituted(call: ast.Call, known: dict) -> ast.Call:
    """``call`` itself, or a copy whose plain-name arguments that stand for a known value are those values."""
    if not known or not any(isinstance(a, ast.Name) and a.id in known
                            for a in [*call.args, *(k.value for k in call.keywords)]):
        return call
    copied = copy.copy(call)
    copied.args = [ast.copy_location(ast.Constant(known[a.id]), a) if isinstance(a, ast.Name) and a.id in known else a
                   for a in call.args]
    copied.keywords = [ast.copy_location(ast.keyword(k.arg, ast.copy_location(ast.Constant(known[k.value.id]), k.value)), k)
                       if isinstance(k.value, ast.Name) and k.value.id in known else k for k in call.keywords]
    return copied
