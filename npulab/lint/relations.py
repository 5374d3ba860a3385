"""lint-npu, what a call's arguments make the called function refuse, the arguments taken together:

- :func:`source_problems`: the function's (or constructor's) own checks, read from the released source and run on
  the call's literals by npulab.lint.own_checks (``if num_workers == 0 and prefetch_factor is not None: raise``);
  relations nobody listed are found this way too;
- :func:`setting_problems`: the same for ``owner.name = value`` where the owner's class checks in ``__setattr__``
  (``torch.npu.matmul.allow_hf32 = 1``: ``if not isinstance(value, bool): raise TypeError``);
- :func:`rule_problems`: what is only documented, as data (npulab/data/api_values.yaml ``refused`` rules, each with
  its public source): a Python test over the parameters that names the refused case (``keep_prob <= 0 or
  keep_prob > 1``; ``input_layout == 'TND' and actual_seq_qlen is None``), run by the same evaluator.

A parameter the call does not give takes its default where the definition's default is a literal or a constant
(unknown otherwise); a call with ``*args`` or ``**kwargs`` is not checked.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from npulab.core.i18n import localized, t
from npulab.core.words import joined
from npulab.lint import own_checks
from npulab.lint.api_values import _MISSING, _binding, _module_of, constructor, resolve_literal, rules_for
from npulab.lint.signatures import Signature, SourceTree


@dataclass(frozen=True)
class Bound:
    """A call bound to a definition: the values its parameters hold (given or default) and where each came from."""

    values: dict  # parameter -> value (own_checks' three values)
    given: dict  # parameter -> the expression the call gives
    defaults: dict  # parameter -> its default value


def _resolver(tree: SourceTree, module: str):
    def resolve(node: ast.expr):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _is_enum(tree, module, node.value.id):
            return own_checks.NotNone()  # an enum member is not its value (isinstance(member, TheEnum) holds)
        value = resolve_literal(tree, module, node)
        return own_checks.UNKNOWN if value is _MISSING else value
    return resolve


def _is_enum(tree: SourceTree, module: str, name: str) -> bool:
    """Whether ``name`` binds, in ``module``, a class of the sources with an Enum base (IntEnum, StrEnum, Flag …)."""
    cls = _binding(tree, module, name, 0)[1]
    return isinstance(cls, ast.ClassDef) and any(
        re.search(r"Enum|Flag", ast.unparse(b)) for b in cls.bases)


# bases through which a class may accept instances it does not create (ABC.register, runtime-checkable protocols)
_VIRTUAL_BASES = {"ABC", "Protocol"}


def _classes(tree: SourceTree, module: str):
    """own_checks' ``classes``: whether an expression of ``module`` names a class defined in the released sources
    (followed across imports) that a plain literal cannot be an instance of: an ``int`` literal is exactly ``int``,
    never a subclass the library defines (``isinstance(3, _CubeMathType)`` is False though it is an IntEnum). A
    metaclass or an ABC / Protocol base, which may change ``isinstance``, makes the answer unknown."""
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
    return lambda node: defined(node, module, 0)


def given_value(node: ast.expr, resolve, built: frozenset[str] = frozenset()):
    """What an argument expression of the call stands for: a literal, a constant of the called module written
    through its class (``ProfilerLevel.Level1``), NotNone for a display, a call or a name the cell ``built`` from
    one, UNKNOWN otherwise (another name)."""
    if isinstance(node, ast.Name) and node.id in built:
        return own_checks.NotNone()
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = given_value(node.operand, resolve, built)
        return -inner if type(inner) in (int, float) else own_checks.UNKNOWN
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        items = [given_value(e, resolve, built) for e in (node.values if isinstance(node, ast.Dict) else node.elts)]
        kind = {ast.Tuple: tuple, ast.List: list, ast.Set: set, ast.Dict: dict}[type(node)]
        if kind is dict or any(v is own_checks.UNKNOWN or isinstance(v, own_checks.NotNone) for v in items) \
                or any(isinstance(e, ast.Starred) for e in getattr(node, "elts", [])):
            try:
                return ast.literal_eval(node) if kind is dict else own_checks.UNKNOWN
            except ValueError:
                pass
            return own_checks.NotNone(kind, bool(items) or None)
        return kind(items)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):  # x.ProfilerLevel.Level1
        return resolve(ast.Attribute(ast.Name(node.value.attr, ast.Load()), node.attr, ast.Load()))
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return resolve(node)
    if isinstance(node, (ast.Call, ast.Lambda)):
        return own_checks.NotNone()
    return own_checks.UNKNOWN


def bind(params: list[str], defaults: dict, call: ast.Call, resolve, built: frozenset[str] = frozenset()) -> Bound | None:
    """The values ``params`` hold in ``call`` (None when a splat makes that unknowable); ``defaults`` are the
    definition's expressions, resolved through its module."""
    default_values = {p: (resolve(d) if d is not None else own_checks.UNKNOWN) for p, d in defaults.items()}
    bound = own_checks.bind(params, default_values, call, lambda node: given_value(node, resolve, built))
    return Bound(bound[0], bound[1], default_values) if bound is not None else None


def _base(tree: SourceTree, module: str, cls: ast.ClassDef) -> own_checks.Base | None:
    """The constructor of a class's one base, found across imports (``AdamW(Adam)``)."""
    if len(cls.bases) != 1 or not isinstance(cls.bases[0], ast.Name):
        return None
    where, base = _binding(tree, module, cls.bases[0].id, 0)
    _, init = constructor(tree, f"{where}.{base.name}") if isinstance(base, ast.ClassDef) else (None, None)
    if init is None:
        return None
    resolve = _resolver(tree, where)
    params, defaults = _parameters(init, skip_first=True)
    return own_checks.Base(init.body, params, {p: resolve(d) for p, d in defaults.items() if d is not None},
                           {n.name: n for n in base.body if isinstance(n, ast.FunctionDef)}, resolve)


def _parameters(func: ast.FunctionDef, skip_first: bool) -> tuple[list[str], dict]:
    args = func.args.posonlyargs + func.args.args
    positional = [a.arg for a in args][1 if skip_first else 0:]
    defaults = dict(zip([a.arg for a in args][len(args) - len(func.args.defaults):], func.args.defaults, strict=True))
    defaults.update({a.arg: d for a, d in zip(func.args.kwonlyargs, func.args.kw_defaults, strict=True)})
    return positional + [a.arg for a in func.args.kwonlyargs], defaults


def shown(parameters: list[str], bound: Bound) -> str:
    """``num_workers=0`` (default), ``prefetch_factor=4``: the values a refused test reads, as the call has them."""
    parts = []
    for p in parameters:
        if p in bound.given:
            parts.append(f"`{p}={ast.unparse(bound.given[p])}`")
        elif bound.defaults.get(p, own_checks.UNKNOWN) is not own_checks.UNKNOWN:
            parts.append(t("lint.relation.default", parameter=p, value=repr(bound.defaults[p])))
    return joined(parts)


def _read(test: ast.expr, params: list[str]) -> list[str]:
    """The parameters a test reads, directly or through the attribute that holds them (``self._mstx``)."""
    names = {key.removeprefix("self.").lstrip("_") for key in own_checks.keys_read(test)}
    return [p for p in params if p in names]


def source_problems(tree: SourceTree, definition: str, call: ast.Call, done: set[str],
                    built: frozenset[str] = frozenset()) -> list[tuple[list[str], str]]:
    """(parameters, sentence) for the first check of the called function's own code that the call's arguments make
    refuse, the defaults alone not; none where a parameter it reads is already reported (``done``)."""
    func = tree.function(definition)
    methods: dict = {}
    base = None
    if func is None:
        cls, func = constructor(tree, definition)
        if func is None:
            return []
        module = definition.rpartition(".")[0]
        methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
        params, defaults = _parameters(func, skip_first=True)
        base = _base(tree, module, cls)
    else:
        module = _module_of(tree, definition)
        params, defaults = _parameters(func, skip_first=bool(func.args.args) and func.args.args[0].arg in ("self", "cls"))
    resolve = _resolver(tree, module)
    bound = bind(params, defaults, call, resolve, built)
    if bound is None or not bound.given:
        return []

    def lines(values: dict) -> list:
        return own_checks.refusals(func.body, values, methods, resolve, base, _classes(tree, module))

    refused = lines(bound.values)
    if not refused:
        return []
    by_defaults = {r.line for r in lines({**bound.values, **dict.fromkeys(bound.given, own_checks.UNKNOWN)})}
    # what a call without arguments meets too: the library's own defaults do, so only a combination the call
    # writes out in full is the call's (aic_metrics left at its default with a level that drops it is not)
    plain = {r.line for r in lines({**bound.values, **bound.defaults})}
    where = t("lint.of", where=f"{tree.package} {tree.version}", what=definition)
    for refusal in refused:
        read = _read(refusal.test, params)
        if refusal.line in by_defaults or not set(read) & set(bound.given) or set(read) & done \
                or (refusal.line in plain and not set(read) <= set(bound.given)):
            continue
        fields = {"given": shown(read, bound), "test": ast.unparse(refusal.test),
                  "source": where}
        if refusal.raises:
            return [(read, t("lint.relation.raises", error=refusal.raises, **fields))]
        return [(read, t("lint.relation.resets", reset=refusal.reset, **fields))]
    return []


def rule_problems(tree: SourceTree, definition: str, call: ast.Call, sig: Signature | None,
                  done: set[str], built: frozenset[str] = frozenset()) -> list[tuple[list[str], str]]:
    """(parameters, sentence) for each documented ``refused`` rule of api_values.yaml the call's arguments meet.
    Parameters and defaults come from the definition; for an operator without one (``npu_fusion_attention``), from
    its signature and the rule's documented ``defaults``."""
    rules = [r for r in rules_for(definition) if "refused" in r]
    if not rules:
        return []
    func = tree.function(definition) or constructor(tree, definition)[1]
    resolve = _resolver(tree, _module_of(tree, definition))
    if func is not None:
        params, defaults = _parameters(func, skip_first=bool(func.args.args) and func.args.args[0].arg in ("self", "cls"))
    elif sig is not None:
        params, defaults = sig.positional + sig.keyword_only, {}
    else:
        return []
    out = []
    for rule in rules:
        documented = {p: ast.Constant(v) for p, v in rule.get("defaults", {}).items()}
        bound = bind(params, {**documented, **defaults}, call, resolve, built)
        if bound is None:
            return []
        test = ast.parse(rule["refused"], mode="eval").body
        read = [p for p in params if p in own_checks.keys_read(test)]
        if not set(read) & set(bound.given) or set(read) & done:
            continue
        walk = own_checks.Walk({}, resolve)
        if own_checks.truth(own_checks.evaluate(test, bound.values, walk)) is True:
            out.append((read, t("lint.relation.documented", given=shown(read, bound), rule=localized(rule, "rule"),
                                source=localized(rule, "source"))))
    return out


def setting_problems(tree: SourceTree, owner: str, name: str, node: ast.expr, built: frozenset[str] = frozenset()
                     ) -> list[str]:
    """Sentences for ``owner.name = node`` that the owner's ``__setattr__`` refuses (it raises, or warns and resets)."""
    found = tree.setter(owner)
    if found is None:
        return []
    module, cls_name, setter = found
    resolve = _resolver(tree, module)
    value = given_value(node, resolve, built)
    if value is own_checks.UNKNOWN:
        return []
    params = [a.arg for a in setter.args.args]
    refused = own_checks.refusals(setter.body, {params[1]: name, params[2]: value}, {}, resolve,
                                  classes=_classes(tree, module))
    where = t("lint.of", where=f"{tree.package} {tree.version}", what=f"{module}.{cls_name}.__setattr__")
    fields = {"given": f"`{name} = {ast.unparse(node)}`", "source": where}
    return [t("lint.relation.setting_raises", error=r.raises, test=ast.unparse(r.test), **fields) if r.raises else
            t("lint.relation.resets", reset=r.reset, test=ast.unparse(r.test), **fields) for r in refused[:1]]
