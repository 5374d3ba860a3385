"""lint-npu, the values a function's own validation code accepts, read from its released source
(:func:`validations`): ``x not in (A, B)`` with constants resolved across modules and classes, ``isinstance``,
``check_str_by_regular``, number tests that raise (npulab.lint.value_tests), helpers such as MindSpore's
``validator.check_positive_int``; a constructor's checks of ``self._x``, also when inherited or handed on by
``super().__init__``; switches tested only for truth; MindSpore's generated primitives' ``type_it`` conversions."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from npulab.core.i18n import language, t
from npulab.lint import value_tests
from npulab.lint.allowed_values import _MISSING, _TYPES, Allowed
from npulab.lint.field_classes import synthesized_init
from npulab.lint.signatures import SourceTree, _class_member, _top_level
from npulab.lint.source_literals import _binding, _local_literal, _module_of, resolve_literal

_WARNS = re.compile(r"warn|warning", re.IGNORECASE)


def _refuses(body: list[ast.stmt], unimplemented: bool = True) -> bool:
    """Whether an ``if`` body raises or warns (and resets the value) — the value is refused; a
    ``NotImplementedError`` counts only when ``unimplemented`` (see value_tests.rejects)."""
    for node in (n for stmt in body for n in ast.walk(stmt)):
        if isinstance(node, ast.Raise) and (unimplemented or not value_tests.not_implemented(node)):
            return True
        if isinstance(node, ast.Call) and _WARNS.search(ast.unparse(node.func)):
            return True
    return False


def _sufficient(test: ast.expr) -> list[ast.expr]:
    """The parts of an ``if`` test each of which alone makes it true: the test, and the alternatives of an ``or``. A
    part of an ``and`` is not one: in ``if isinstance(x, int) and not isinstance(x, bool):`` the ``not isinstance``
    alone says nothing of what the branch refuses."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return [test, *(part for value in test.values for part in _sufficient(value))]
    return [test]


def _changed(func: ast.FunctionDef, name: str) -> bool:
    """Whether ``func`` assigns ``name`` more than once or grows it (append, extend, +=, …)."""
    stores = sum(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(func))
    grows = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name)
                and n.func.value.id == name and n.func.attr in ("append", "extend", "insert", "add", "update")
                for n in ast.walk(func))
    return stores > 1 or grows or any(isinstance(n, ast.AugAssign) and ast.unparse(n.target) == name
                                      for n in ast.walk(func))


def _each_in(test: ast.expr, names: dict[str, str]) -> tuple[str, ast.expr] | None:
    """(parameter, the literal) of ``not all(v in LITERAL for v in self._x)``, ``self._x`` holding the parameter
    (made a list: ``export_type="text"`` becomes ``["text"]``)."""
    call = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else None
    gen = call.args[0] if isinstance(call, ast.Call) and ast.unparse(call.func) == "all" and call.args else None
    if not isinstance(gen, ast.GeneratorExp) or len(gen.generators) != 1:
        return None
    loop, elt = gen.generators[0], gen.elt
    param = names.get(f"each:{ast.unparse(loop.iter)}")
    if param and isinstance(elt, ast.Compare) and len(elt.ops) == 1 and isinstance(elt.ops[0], ast.In) \
            and ast.unparse(elt.left) == ast.unparse(loop.target):
        return param, elt.comparators[0]
    return None


def _handled_before(func: ast.FunctionDef, param: str, names: dict[str, str]) -> bool:
    """Whether ``func`` handles some type of ``param`` in a branch that returns (``if isinstance(p, str): …;
    return``): a later ``if not isinstance(p, tuple): raise`` then does not say which types the call accepts (the
    walk of the function's own code judges such a call instead)."""
    return any(isinstance(node, ast.If) and isinstance(node.test, ast.Call) and ast.unparse(node.test.func) == "isinstance"
               and len(node.test.args) == 2 and names.get(ast.unparse(node.test.args[0])) == param
               and any(isinstance(n, ast.Return) for s in node.body for n in ast.walk(s))
               for node in ast.walk(func))


def validations(tree: SourceTree, module: str, func: ast.FunctionDef, names: dict[str, str], where: str,
                depth: int = 0, unimplemented: bool = True) -> dict[str, Allowed]:
    """parameter -> what ``func``'s own checks accept: ``if p not in (A, B): raise``/warn, with A, B constants read
    through ``module``; ``if not Validator.check_str_by_regular(p, PATTERN)``; a same-module helper ``_check(p)``
    one level down. ``names`` maps the expressions checked (``x``, ``self._x``) to the parameters they hold;
    ``unimplemented``: whether a ``NotImplementedError`` refuses (not in a method other than the constructor)."""
    out: dict[str, Allowed] = {}
    for node in ast.walk(func):
        numeric = value_tests.numeric_test(node.test, names) if isinstance(node, ast.If) else None
        if numeric and value_tests.rejects(node.body, numeric[1], unimplemented):
            param, held = numeric  # if fraction < 0 or fraction > 1: raise ValueError(...)
            known = out.get(param, Allowed(None, None, {}, t("lint.validation", where=where)))
            out[param] = replace(known, refused_by=(*known.refused_by, (node.test, held)))
        elif isinstance(node, ast.If) and (chain := _equality_chain(node, names)) and chain[0] not in out:
            param, values = chain  # if mode == "sum": … elif mode == "mean": … else: raise ValueError(...)
            resolved = [resolve_literal(tree, module, v) for v in values]
            if _MISSING not in resolved and None not in resolved:
                out[param] = Allowed(tuple(resolved), None, {}, t("lint.validation", where=where))
        elif isinstance(node, ast.If) and _refuses(node.body, unimplemented):
            if (unequal := _unequal_to_all(node.test, names)) and unequal[0] not in out:
                param, values = unequal  # if mode != "bilinear" and mode != "nearest": raise ValueError(...)
                resolved = [resolve_literal(tree, module, v) for v in values]
                if _MISSING not in resolved and None not in resolved:
                    out[param] = Allowed(tuple(resolved), None, {}, t("lint.validation", where=where))
            for test in ast.walk(node.test):
                if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotIn) \
                        and (param := names.get(ast.unparse(test.left))) and param not in out:
                    other = test.comparators[0]
                    if isinstance(other, ast.Name) and _changed(func, other.id):
                        continue  # a list the function extends at run time (VALID_DEVICE_OPTIONS.append(...))
                    local = _local_literal(func, other.id) if isinstance(other, ast.Name) else None
                    values = list(local) if isinstance(local, (list, tuple)) else resolve_literal(tree, module, other)
                    if values is not _MISSING and isinstance(values, list) and values and None not in values:
                        elts = getattr(test.comparators[0], "elts", [])
                        labels = tuple(ast.unparse(e) for e in elts) if any(
                            not isinstance(e, ast.Constant) for e in elts) else None
                        constants = {label.rsplit(".", 1)[-1]: v for label, v in zip(labels, values, strict=True)} \
                            if labels else {}
                        out[param] = Allowed(tuple(values), None, constants, t("lint.validation", where=where), labels=labels)
                elif (each := _each_in(test, names)) and each[0] not in out:  # not all(v in (A, B) for v in self._x)
                    values = resolve_literal(tree, module, each[1])
                    if isinstance(values, list) and values and None not in values:
                        out[each[0]] = Allowed(tuple(values), None, {}, t("lint.validation", where=where))
                elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Call) \
                        and any(test is part for part in _sufficient(node.test)) \
                        and ast.unparse(test.operand.func) == "isinstance" and len(test.operand.args) == 2 \
                        and (param := names.get(ast.unparse(test.operand.args[0]))):
                    kinds = test.operand.args[1].elts if isinstance(test.operand.args[1], ast.Tuple) else [test.operand.args[1]]
                    types = tuple(_TYPES.get(k.id) for k in kinds if isinstance(k, ast.Name))
                    if types and len(types) == len(kinds) and None not in types and not _handled_before(func, param, names):
                        known = out.get(param, Allowed(None, None, {}, t("lint.validation", where=where)))
                        if known.types is None and known.values is None:
                            out[param] = replace(known, types=types)
                elif isinstance(test, ast.Call) and ast.unparse(test.func).endswith("check_str_by_regular") \
                        and len(test.args) >= 2 and (param := names.get(ast.unparse(test.args[0]))):
                    pattern = resolve_literal(tree, module, test.args[1])
                    if isinstance(pattern, str):
                        out.setdefault(param, Allowed(None, None, {}, t("lint.validation", where=where), pattern=pattern))
        elif isinstance(node, ast.Call) and (converted := _converted_types(node, names)):
            param, types = converted  # type_it('Softmax', 'axis', axis, OpDtype.DT_INT, OpDtype.DT_TUPLE_INT)
            known = out.get(param, Allowed(None, None, {}, t("lint.validation", where=where)))
            if known.types is None and known.values is None:
                out[param] = replace(known, types=types)
        elif isinstance(node, ast.Call) and depth == 0 and (handed := _handed(node, names)):
            home, helper = _helper(tree, module, node.func)  # _check(x); validator.check_positive_int(x, "x")
            constructed = isinstance(helper, ast.ClassDef)  # ops.Softmax(axis): the primitive's __init__
            if constructed:
                helper = _class_member(helper, "__init__")
            if not (isinstance(helper, ast.FunctionDef) and helper.args.args):
                continue
            inner_where = t("lint.paren", text=where, inner=ast.unparse(node.func))
            param = names.get(ast.unparse(node.args[0])) if node.args and not constructed else None
            number = value_tests.number_check(helper, param) if param else None
            if number is not None:  # return _check_number(arg_value, 0, GT, int, …)
                test, _kind = number  # the range only: callers often convert an int first (weight_decay=0)
                known = out.get(param, Allowed(None, None, {}, t("lint.validation", where=inner_where)))
                if known.values is None and known.pattern is None:  # with an isinstance test read before it
                    out[param] = replace(known, refused_by=(*known.refused_by, (test, param)))
                continue
            # the helper's parameters the call hands ours to: by position, or by keyword (F.embedding_bag(…, self.mode))
            own = [a.arg for a in helper.args.posonlyargs + helper.args.args][1 if constructed else 0:]
            bound = {own[i]: p for i, p in handed.items() if isinstance(i, int) and i < len(own)}
            bound.update({k: p for k, p in handed.items() if isinstance(k, str)})
            inner = validations(tree, home, helper, bound, inner_where, depth + 1, unimplemented)
            for key, value in inner.items():
                out.setdefault(key, value)
    return out


# MindSpore's generated primitives convert an argument with type_it(op, name, value, SRC, DST)
# (mindspore/ops/_utils/arg_dtype_cast.py): a value that is neither of a SRC type nor of DST raises TypeError.
# What is_instance_of there tests each OpDtype for; any other OpDtype leaves the argument unread.
_OP_DTYPES = {"DT_INT": (int,), "DT_FLOAT": (float,), "DT_BOOL": (bool,), "DT_NUMBER": (int, float, bool),
              "DT_TENSOR": ()}


def _op_dtype_types(node: ast.expr) -> tuple | None:
    name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""
    if name.startswith("DT_TUPLE_"):
        return (tuple,)
    if name.startswith("DT_LIST_"):
        return (list,)
    return _OP_DTYPES.get(name)


def _converted_types(call: ast.Call, names: dict[str, str]) -> tuple[str, tuple] | None:
    """(parameter, the Python types accepted) of ``type_it(op, name, param, SRC, DST)``."""
    if ast.unparse(call.func).rsplit(".", 1)[-1] != "type_it" or len(call.args) != 5:
        return None
    param = names.get(ast.unparse(call.args[2]))
    sources = call.args[3].elts if isinstance(call.args[3], ast.Tuple) else [call.args[3]]
    found = [_op_dtype_types(n) for n in [*sources, call.args[4]]]
    if param is None or any(f is None for f in found):
        return None
    types = tuple(dict.fromkeys(k for f in found for k in f))
    return (param, types) if types else None


def _handed(call: ast.Call, names: dict[str, str]) -> dict[int | str, str]:
    """position or keyword -> parameter, of the arguments of ``call`` that are expressions holding our parameters
    (positions only before any ``*x``)."""
    out: dict[int | str, str] = {}
    for i, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if param := names.get(ast.unparse(arg)):
            out[i] = param
    out.update({kw.arg: names[ast.unparse(kw.value)] for kw in call.keywords
                if kw.arg and ast.unparse(kw.value) in names})
    return out


def _unequal_to_all(test: ast.expr, names: dict[str, str]) -> tuple[str, list[ast.expr]] | None:
    """(parameter, the values) of ``p != A and p != B …`` (at least two, all of one parameter): p must be one of them."""
    if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) and len(test.values) >= 2):
        return None
    params, values = set(), []
    for part in test.values:
        if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.NotEq)):
            return None
        params.add(names.get(ast.unparse(part.left)))
        values.append(part.comparators[0])
    return (params.pop(), values) if len(params) == 1 and None not in params else None


def _equality_chain(node: ast.If, names: dict[str, str]) -> tuple[str, list[ast.expr]] | None:
    """(parameter, the values) of ``if p == A: … elif p == B: … else: raise``: an ``if``/``elif`` chain that tests
    one parameter for equality only (two values at least) and whose final ``else`` raises."""
    params, values = set(), []
    while True:
        test = node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return None
        params.add(names.get(ast.unparse(test.left)))
        values.append(test.comparators[0])
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        break
    if len(values) < 2 or len(params) != 1 or None in params or not node.orelse:
        return None
    if not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.Raise)):
        return None
    return params.pop(), values


def _helper(tree: SourceTree, module: str, func: ast.expr) -> tuple[str, ast.stmt | None]:
    """(its module, the def or class) of a checking function a validation calls: a function of the same module, or
    one of a module the code imports under a name (``from mindspore import _checkparam as validator``), followed to
    where that module takes it from."""
    if isinstance(func, ast.Name):
        return module, _top_level(tree.tree(module), func.id)
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)) or tree.tree(module) is None:
        return module, None
    bound = _top_level(tree.tree(module), func.value.id)
    alias = next((a for a in getattr(bound, "names", []) if (a.asname or a.name) == func.value.id), None)
    if alias is None:
        return module, None
    home = f"{tree._absolute(module, bound)}.{alias.name}" if isinstance(bound, ast.ImportFrom) else alias.name
    if tree.tree(home) is None:
        return home, None
    return _binding(tree, home, func.attr, 0)  # re-exported: mindspore.ops.Softmax from a star import


def checked_by_definition(tree: SourceTree, definition: str) -> dict[str, Allowed]:
    """What a function (or a class's constructor and the methods it reads its attributes in) accepts, by its own
    validation code; cached per definition (and language: the sources named in its sentences are words too)."""
    key = (id(tree), definition, language())
    if key not in _CHECKED:
        _CHECKED[key] = _checked(tree, definition)
    return _CHECKED[key]


_CHECKED: dict = {}


def _checked(tree: SourceTree, definition: str) -> dict[str, Allowed]:
    where = t("lint.of", where=f"{tree.package} {tree.version}", what=definition)
    func = tree.function(definition)
    if func is not None:
        defaults = {id(n) for stmt in ast.walk(func) if isinstance(stmt, ast.If)  # if device_id is None: device_id = 0
                    and ast.unparse(stmt.test).endswith(" is None") for s in stmt.body for n in ast.walk(s)
                    if isinstance(n, ast.Name) and ast.unparse(stmt.test) == f"{n.id} is None"}
        checked = {id(n.targets[0]) for n in ast.walk(func) if isinstance(n, ast.Assign) and len(n.targets) == 1
                   and isinstance(n.value, ast.Call) and n.value.args  # x = Validator.check_positive_int(x, "x")
                   and ast.unparse(n.value.args[0]) == ast.unparse(n.targets[0])}
        rebound = {n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                   and id(n) not in defaults | checked}
        names = {a.arg: a.arg for a in func.args.args + func.args.kwonlyargs if a.arg not in rebound}
        out = validations(tree, _module_of(tree, definition), func, names, where)
        for key, value in _keyword_checks(tree, _module_of(tree, definition), func, where).items():
            out.setdefault(key, value)
        for param in value_tests.truth_tested(func) - set(out):  # 'enable' if jit_compile else 'disable'
            out[param] = Allowed(None, None, {}, where, switch=True)
        return out
    module, _, name = definition.rpartition(".")
    cls, init = constructor(tree, definition)
    if init is None:
        return {}
    params = {a.arg for a in init.args.args[1:] + init.args.kwonlyargs}
    names = {p: p for p in params}
    for node in ast.walk(init):  # self._x = x; self._x = self._as_list(x) (checked item by item)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in params:
                names[ast.unparse(node.targets[0])] = node.value.id
            elif isinstance(node.value, ast.Call) and len(node.value.args) == 1 and \
                    isinstance(node.value.args[0], ast.Name) and node.value.args[0].id in params:
                names[f"each:{ast.unparse(node.targets[0])}"] = node.value.args[0].id
    for prop in (n for n in cls.body if isinstance(n, ast.FunctionDef) and "property" in map(ast.unparse, n.decorator_list)):
        returned = {ast.unparse(r.value) for r in ast.walk(prop) if isinstance(r, ast.Return) and r.value is not None}
        held = {names[r] for r in returned if r in names}  # return self._num_samples (when it was given)
        if len(held) == 1:
            names.setdefault(f"self.{prop.name}", held.pop())
    out: dict[str, Allowed] = {}
    for method in (n for n in cls.body if isinstance(n, ast.FunctionDef)):  # a method's NotImplementedError: not a refusal
        for key, value in validations(tree, module, method, names, where, unimplemented=method is init).items():
            out.setdefault(key, value)
    for key, value in _passed_to_base(tree, module, cls, init, params).items():
        out.setdefault(key, value)
    return out


def _keyword_checks(tree: SourceTree, module: str, func: ast.FunctionDef, where: str) -> dict[str, Allowed]:
    """keyword -> what a ``**kwargs`` function checks of it in a loop over its keywords: ``for key, value in
    kwargs.items(): if key == 'save_graphs': … if value > 3: raise`` (MindSpore's set_context), each ``if`` that
    tests the key for one name read as a validation of that keyword's value."""
    if func.args.kwarg is None:
        return {}
    out: dict[str, Allowed] = {}
    for loop in (n for n in ast.walk(func) if isinstance(n, ast.For)):
        if not (isinstance(loop.target, ast.Tuple) and len(loop.target.elts) == 2
                and all(isinstance(e, ast.Name) for e in loop.target.elts)
                and ast.unparse(loop.iter) == f"{func.args.kwarg.arg}.items()"):
            continue
        key, value = (e.id for e in loop.target.elts)
        for node in (n for n in ast.walk(loop) if isinstance(n, ast.If)):
            tests = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else [node.test]
            named = [c.comparators[0].value for c in tests if isinstance(c, ast.Compare) and len(c.ops) == 1
                     and isinstance(c.ops[0], ast.Eq) and ast.unparse(c.left) == key
                     and isinstance(c.comparators[0], ast.Constant) and isinstance(c.comparators[0].value, str)]
            if len(named) == 1 and named[0] not in out:
                checked = validations(tree, module, ast.Module(body=[node], type_ignores=[]), {value: named[0]}, where)
                if named[0] in checked:
                    out[named[0]] = checked[named[0]]
    return out


def constructor(tree: SourceTree, definition: str) -> tuple[ast.ClassDef | None, ast.FunctionDef | None]:
    """(the class, the ``__init__`` that builds it) of ``module.Class``, the constructor inherited from a class of
    the same module where the class has none (``Dropout(_DropoutNd)``); (None, None) when not found."""
    module, _, name = definition.rpartition(".")
    cls = _top_level(tree.tree(module), name) if tree.tree(module) is not None else None
    init = (_class_member(cls, "__init__") or synthesized_init(cls)) if isinstance(cls, ast.ClassDef) else None
    for _ in range(4):
        if init is not None or not isinstance(cls, ast.ClassDef) or len(cls.bases) != 1 \
                or not isinstance(cls.bases[0], ast.Name):
            break
        cls = _top_level(tree.tree(module), cls.bases[0].id)
        init = _class_member(cls, "__init__") if isinstance(cls, ast.ClassDef) else None
    return (cls, init) if isinstance(init, ast.FunctionDef) else (None, None)


def _passed_to_base(tree: SourceTree, module: str, cls: ast.ClassDef, init: ast.FunctionDef,
                    params: set[str]) -> dict[str, Allowed]:
    """What the base class checks of the parameters a constructor hands unchanged to ``super().__init__(…)``
    (``AdamW(Adam)`` passes ``lr=lr``: Adam's ``if not 0.0 <= lr: raise``), the base found across imports."""
    call = next((n for n in ast.walk(init) if isinstance(n, ast.Call) and ast.unparse(n.func) == "super().__init__"), None)
    if call is None or len(cls.bases) != 1 or not isinstance(cls.bases[0], ast.Name):
        return {}
    where, base = _binding(tree, module, cls.bases[0].id, 0)
    base_init = _class_member(base, "__init__") if isinstance(base, ast.ClassDef) else None
    if base_init is None:
        return {}
    checked = checked_by_definition(tree, f"{where}.{base.name}")
    passed = {kw.arg: kw.value.id for kw in call.keywords if kw.arg and isinstance(kw.value, ast.Name)}
    passed.update({a.arg: v.id for a, v in zip(base_init.args.args[1:], call.args, strict=False) if isinstance(v, ast.Name)})
    # a parameter the constructor assigns before handing it on is not handed unchanged (ReflectionPad2d turns an int
    # padding into a tuple, then its base accepts only tuples)
    rebound = {n.id for n in ast.walk(init) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return {mine: checked[theirs] for theirs, mine in passed.items()
            if mine in params and mine not in rebound and theirs in checked}


def dispatched(tree: SourceTree, spec: dict) -> dict[str, tuple[str, dict[str, Allowed]]]:
    """keyword -> (setter, what its validation accepts) for a ``**kwargs`` function that hands each keyword to a
    setter through a table (``_Context.setters = {'mode': set_mode, …}``): the setters' own checks, read once."""
    key = (id(tree), spec["table"], language())
    if key in _CHECKED:
        return _CHECKED[key]
    parts = spec["table"].split(".")
    table = tree.assigned(".".join(parts[:-1]), parts[-1]) if tree.tree(".".join(parts[:-1])) is not None else None
    if table is None:  # a class attribute: module.Class.table
        cls = _top_level(tree.tree(".".join(parts[:-2])), parts[-2]) if tree.tree(".".join(parts[:-2])) else None
        found = [n.value for n in (cls.body if isinstance(cls, ast.ClassDef) else [])
                 if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == parts[-1] for t in n.targets)]
        table = found[0] if found else None
    out = {}
    for k, v in zip(getattr(table, "keys", []), getattr(table, "values", []), strict=True):
        method = v.attr if isinstance(v, ast.Attribute) else v.id if isinstance(v, ast.Name) else None
        func = tree.function(f"{spec['class']}.{method}") if isinstance(k, ast.Constant) and method else None
        if func is not None and len(func.args.args) > 1:
            param = func.args.args[1].arg
            where = t("lint.of", where=f"{tree.package} {tree.version}", what=f"{spec['class']}.{method}")
            checked = validations(tree, spec["class"].rsplit(".", 1)[0], func, {param: param}, where)
            if param in checked:
                out[k.value] = (method, checked[param])
    _CHECKED[key] = out
    return out
