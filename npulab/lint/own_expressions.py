"""lint-npu, own checks: the value of an expression while a function's statements are walked (:func:`evaluate`)
over three-valued values — a literal, UNKNOWN, or NotNone (npulab.lint.walked) — and the :class:`Walk` that carries
what one walk found. A call inside an expression that reaches a function of the released sources is walked by
npulab.lint.own_statements, which builds on this module and registers its call walker here when it is imported
(:func:`register_call_walker`), so that the two recurse into each other without importing each other."""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass, field

from npulab.lint.walked import (  # the values and functions a walk handles
    UNKNOWN,
    Base,
    Fields,
    Function,
    Items,
    Keys,
    NotNone,
    SourceClass,
    _known,
)

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
# the statement walker's functions for a call met inside an expression: "reached" (the function a call reaches, or
# None) and "enter" (walk it); empty until npulab.lint.own_statements registers them
_CALL_WALKER: dict = {}


def register_call_walker(reached, enter) -> None:
    """Set how a call inside an expression is walked (npulab.lint.own_statements, when it is imported)."""
    _CALL_WALKER.update(reached=reached, enter=enter)
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
        if value is UNKNOWN and key in _BUILTINS:
            return _BUILTINS[key]  # check_number_range(…, float)
        return SourceClass() if value is UNKNOWN and walk.classes(node) else value
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
    if isinstance(walk, Walk) and walk.level < _MAX_CALL_DEPTH and _CALL_WALKER \
            and (reached := _CALL_WALKER["reached"](node, state, walk, walk.level)):
        # a call inside a test (``if not _check_inc_rel(value, low, high, rel):``): only its value; under an unknown
        # test nothing it meets counts as a refusal
        return _CALL_WALKER["enter"](node, *reached, state, walk, [None], walk.level)[1]
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
            values = value.values if isinstance(value, Items) else \
                value if isinstance(value, tuple) and not isinstance(kind, ast.Tuple) else (value,)
            # isinstance(x, tuple(valid_types)); a class handed in as a value (type_check(x, (Border,), …))
            out.extend(v if isinstance(v, type) else _FOREIGN if isinstance(v, SourceClass) else None for v in values)
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
