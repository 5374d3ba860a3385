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
from dataclasses import dataclass

from npulab.core.i18n import localized, t
from npulab.core.words import joined
from npulab.lint import callees, own_checks
from npulab.lint.api_values import _module_of, constructor, rules_for
from npulab.lint.signatures import Signature, SourceTree


@dataclass(frozen=True)
class Bound:
    """A call bound to a definition: the values its parameters hold (given or default) and where each came from."""

    values: dict  # parameter -> value (own_checks' three values)
    given: dict  # parameter -> the expression the call gives
    defaults: dict  # parameter -> its default value


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
            if kind in (tuple, list) and not any(isinstance(e, ast.Starred) for e in node.elts):
                return own_checks.Items(tuple(items), kind)  # [warmup, cosine]: its length is known
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


def shown(parameters: list[str], bound: Bound) -> str:
    """``num_workers=0`` (default), ``prefetch_factor=4``: the values a refused test reads, as the call has them."""
    parts = []
    for p in parameters:
        if p in bound.given:
            parts.append(f"`{p}={ast.unparse(bound.given[p])}`" if not p.startswith("#") else
                         f"`{ast.unparse(bound.given[p])}`")
        elif bound.defaults.get(p, own_checks.UNKNOWN) is not own_checks.UNKNOWN:
            parts.append(t("lint.relation.default", parameter=p, value=repr(bound.defaults[p])))
    return joined(parts)


def _read(test: ast.expr, params: list[str]) -> list[str]:
    """The parameters a test reads, directly or through the attribute that holds them (``self._mstx``)."""
    names = {key.removeprefix("self.").lstrip("_") for key in own_checks.keys_read(test)}
    return [p for p in params if p in names]


def source_problems(tree: SourceTree, definition: str, call: ast.Call, done: set[str],
                    built: frozenset[str] = frozenset()) -> list[tuple[list[str], str]]:
    """(parameters, sentence) for the first check of the called function's own code, or of a function or
    constructor it reaches (npulab.lint.callees), that the call's arguments make refuse, the defaults alone not;
    none where a parameter it reads is already reported (``done``)."""
    function = callees.of_definition(tree, definition)
    if function is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return []
    names = [function.params[i] if i < function.positional else f"#{i}" for i in range(len(call.args))]
    names += [k.arg for k in call.keywords]
    expressions = dict(zip(names, [*call.args, *(k.value for k in call.keywords)], strict=True))
    if not names:
        return []

    def refused(unknown=frozenset(), plain: bool = False, dropped: str | None = None) -> dict:
        """(origin, line) -> Refusal, with the arguments named in ``unknown`` not known (plain: none given;
        ``dropped``: that keyword left out)."""
        values = {n: own_checks.UNKNOWN if n in unknown else given_value(e, function.resolve, built)
                  for n, e in expressions.items()} if not plain else {}
        positional = [values[n] for n in names[:len(call.args)]] if not plain else []
        keywords = {k.arg: values[k.arg] for k in call.keywords if k.arg != dropped} if not plain else {}
        bound = own_checks.bind_values(function, positional, keywords)
        return {} if bound is None else {(r.origin, r.line): r for r in own_checks.refusals_of(function, bound)}

    found = refused()
    if not found:
        return []
    by_defaults, plain = refused(frozenset(names)), refused(plain=True)
    given = expressions  # "#2": the third positional argument, taken by ``*args``
    bound = Bound({}, given, {p: v for p, v in function.defaults.items() if p not in given})
    for key, refusal in found.items():
        # a refusal the arguments' values do not decide is the library's, unless giving a keyword at all decides it
        # (``if "proj_size" in kwargs: raise``)
        present = [k.arg for k in call.keywords if key not in refused(dropped=k.arg)] \
            if key in by_defaults and key not in plain else []
        if key in by_defaults and not present:
            continue
        # the parameters the test reads; for a test of a function reached from the call (or of ``**kwargs``), the
        # arguments without which it would not hold
        read = present or (_read(refusal.test, function.params) if refusal.origin is None else [])
        read = read or [n for n in given if key not in refused(frozenset({n}))]
        if not set(read) & set(given) or set(read) & done or (key in plain and not set(read) <= set(given)):
            continue
        where = t("lint.of", where=f"{tree.package} {tree.version}", what=definition)
        if refusal.origin is not None:
            where = t("lint.relation.reached", origin=t("lint.of", where=f"{tree.package} {tree.version}",
                                                          what=refusal.origin), definition=definition)
        fields = {"given": shown(read, bound), "test": ast.unparse(refusal.test), "source": where}
        if refusal.raises:
            return [(read, t("lint.relation.raises", error=refusal.raises, **fields))]
        return [(read, t("lint.relation.resets", reset=refusal.reset, **fields))]
    return []


def rule_problems(tree: SourceTree, definition: str, call: ast.Call, sig: Signature | None,
                  done: set[str], built: frozenset[str] = frozenset(), rules: list[dict] | None = None,
                  reading=None) -> list[tuple[list[str], str]]:
    """(parameters, sentence) for each documented ``refused`` rule the call's arguments meet: api_values.yaml's,
    or ``rules`` given (npulab.lint.op_docs reads them from the operators' documentation). Parameters and defaults
    come from the definition; for an operator without one (``npu_fusion_attention``), from its signature and the
    rule's documented ``defaults``. ``reading`` wraps how names resolve (the dtype rules read ``torch.int8``)."""
    rules = [r for r in (rules_for(definition) if rules is None else rules) if "refused" in r]
    if not rules:
        return []
    func = tree.function(definition) or constructor(tree, definition)[1]
    resolve = callees.resolver(tree, _module_of(tree, definition))
    resolve = reading(resolve) if reading is not None else resolve
    if func is not None:
        params, defaults = callees.parameters(func, skip_first=bool(func.args.args) and func.args.args[0].arg in ("self", "cls"))
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
    resolve = callees.resolver(tree, module)
    value = given_value(node, resolve, built)
    if value is own_checks.UNKNOWN:
        return []
    params = [a.arg for a in setter.args.args]
    refused = own_checks.refusals(setter.body, {params[1]: name, params[2]: value}, {}, resolve,
                                  classes=callees.classes(tree, module))
    where = t("lint.of", where=f"{tree.package} {tree.version}", what=f"{module}.{cls_name}.__setattr__")
    fields = {"given": f"`{name} = {ast.unparse(node)}`", "source": where}
    return [t("lint.relation.setting_raises", error=r.raises, test=ast.unparse(r.test), **fields) if r.raises else
            t("lint.relation.resets", reset=r.reset, test=ast.unparse(r.test), **fields) for r in refused[:1]]
