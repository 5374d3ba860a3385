"""lint-npu, calls: every name and call an ``npu`` cell uses in torch_npu (torch.npu, torchair, npugraph_ex),
MindSpore, msprobe and Triton-Ascend, checked against the pinned releases' sources (npulab.lint.signatures):
names exist (where the sources answer for every name: MindSpore, whose public names all resolve), the call's
positional count (too many, or a required one missing) and keyword names fit, the keywords of ``**kwargs``
functions that a table lists (``mindspore.set_context``: npulab/data/mindspore_api.json), the values of enumerated
arguments (npulab.lint.api_values), the literal types operator schemas declare (npulab.lint.schema_types), what the
arguments make the function (or an owner's ``__setattr__``) refuse together (npulab.lint.relations), and the
attributes of MindSpore tensors. What cannot be checked is collected, never hidden.
"""

from __future__ import annotations

import ast
import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR
from npulab.core.words import code, guess_end
from npulab.lint import annotations, api_values, instances, op_cpp_checks, op_docs, relations, schema_types, torch_docs
from npulab.lint.signatures import NameNotFound, Signature, SourceTree, from_def
from npulab.pytorch.torch_npu_names import dotted_parts

CHECKED_ROOTS = ("torch_npu", "torchair", "npugraph_ex", "msprobe", "mindspore", "triton", "torch", "vllm")
RUNTIME_API = DATA_DIR / "mindspore_api.json"  # what only exists at run time (scripts/extract_mindspore_api.py)
TENSOR_CLASSES = {"mindspore.common.tensor.Tensor", "mindspore.common.tensor.tensor"}
# MindSpore functions (ops, mint, numpy) that return one new tensor
TENSOR_FACTORIES = {"ones", "zeros", "ones_like", "zeros_like", "full", "full_like", "arange", "rand", "randn",
                    "rand_like", "randn_like", "randint", "eye", "empty", "linspace"}


@dataclass(frozen=True)
class Uncheckable:
    """A call whose signature the released sources do not give (C extension, decorator, inherited __init__ …)."""

    package: str
    name: str
    reason: str


@dataclass(frozen=True)
class CallFinding:
    line: int
    written: str
    kind: str  # "unknown-name", "call-signature" or "argument-value"
    message: str


@cache
def runtime_api() -> dict:
    return json.loads(RUNTIME_API.read_text(encoding="utf-8"))


def update_aliases(tree: ast.Module, aliases: dict[str, str]) -> None:
    """Names a cell's imports bind -> the dotted module path they stand for; a name the cell binds otherwise
    (``context = mslite.Context()``) stops standing for a module."""
    for name in rebound_names(tree):
        aliases.pop(name, None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    aliases[root] = root
                    if alias.name != root:  # remembered for later cells (import torch_npu.contrib.transfer_to_npu)
                        aliases[alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if alias.name != "*":
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"


def rebound_names(tree: ast.Module) -> set[str]:
    """Names a cell binds by anything but an import, anywhere (assignments, loops, parameters, def, class)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def built_names(tree: ast.Module) -> frozenset[str]:
    """Names a cell binds once, at its top level, to what a call or a display builds (``model = nn.Linear(…)``):
    surely not None where the cell passes them on."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
    return frozenset(s.targets[0].id for s in tree.body if isinstance(s, ast.Assign) and len(s.targets) == 1
                     and isinstance(s.targets[0], ast.Name) and counts[s.targets[0].id] == 1
                     and isinstance(s.value, (ast.Call, ast.List, ast.Tuple, ast.Dict, ast.Set)))


def canonical(dotted: str) -> str:
    """``torch.npu.x`` -> ``torch_npu.npu.x`` (torch_npu installs itself as torch.npu)."""
    if dotted == "torch.npu" or dotted.startswith("torch.npu."):
        return "torch_npu" + dotted[len("torch"):]
    return dotted


def calls(tree: ast.Module, aliases: dict[str, str]):
    """(line, written, full dotted name, call node) of calls on imported names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            parts = dotted_parts(node.func)
            if parts and parts[0] in aliases:
                full = canonical(".".join([aliases[parts[0]], *parts[1:]]))
                yield node.lineno, ".".join(parts), full, node


def source_tree(sources: Callable[[str], SourceTree | str | None], root: str) -> SourceTree | None:
    """The pinned sources of ``root`` when they can be read (``sources`` loads them on the first call), else None."""
    tree = sources(root)
    return tree if isinstance(tree, SourceTree) else None


def torch_calls(tree: ast.Module, aliases: dict[str, str], sources: Callable[[str], SourceTree | str | None]):
    """(torch's SourceTree, line, written, full dotted name, call node) of the calls into ``torch.*``; none when
    torch's pinned sources cannot be read."""
    torch = source_tree(sources, "torch")
    if torch is None:
        return
    for line, written, full, call in calls(tree, aliases):
        if full.startswith("torch."):
            yield torch, line, written, full, call


def _fits(sigs: list[Signature], call: ast.Call) -> tuple[bool, str]:
    """Whether one of ``sigs`` accepts the call (``*x`` / ``**x`` splats may supply anything: not counted against it)."""
    starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), None)
    positional = len(call.args) if starred is None else starred
    keywords = [k.arg for k in call.keywords if k.arg]
    double_starred = any(k.arg is None for k in call.keywords)
    problems = []
    for sig in sigs:
        problem = sig.problem(positional, keywords, starred is not None, double_starred)
        if problem is None:
            return True, ""
        problems.append((problem, sig))
    # of several overloads, the one that takes this many positional arguments says what is wrong
    problems.sort(key=lambda p: positional > len(p[1].positional) and not p[1].varargs)  # "takes at most N"
    return False, problems[0][0]


def check_call(tree: SourceTree, full: str, call: ast.Call) -> tuple[str | None, Uncheckable | None, list[Signature]]:
    """(problem, uncheckable, signatures) of one call resolved in ``tree``."""
    try:
        what, sigs = tree.resolve(full)
    except NameNotFound as err:  # lint-npu's name checks report unknown names (torch_npu's index, names_in_cell)
        if tree.package == "torch_npu" or (err.certain and tree.names_checked):
            return None, None, []
        return None, Uncheckable(tree.package, full, t("lint.uncheckable.not_found", package=tree.package,
                                                      version=tree.version)), []
    for other in tree.alternates(full):  # a patched definition that replaces this one at run time
        try:
            sigs = (sigs or []) + (tree.resolve(other)[1] or [])
        except NameNotFound:
            continue
    if not sigs:
        return None, Uncheckable(tree.package, full, what), []
    ok, problem = _fits(sigs, call)
    return (None if ok else problem), None, sigs


def _names(tree: ast.Module, aliases: dict[str, str], skip: set[str]):
    """(line, written, full dotted name) of the imports and attribute chains a cell writes into imported packages."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, alias.name
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            yield node.lineno, node.module, node.module
            for alias in node.names:
                if alias.name != "*":
                    yield node.lineno, f"{node.module}.{alias.name}", f"{node.module}.{alias.name}"
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner and (parts := dotted_parts(node)):
            if not isinstance(node.ctx, ast.Load):
                parts = parts[:-1]  # setting an attribute may create it
            if len(parts) > 1 and parts[0] in aliases and parts[0] not in skip:
                yield node.lineno, ".".join(parts), canonical(".".join([aliases[parts[0]], *parts[1:]]))


def _unknown(source: SourceTree, written: str, err: NameNotFound, line: int) -> CallFinding:
    module, _, name = err.dotted.rpartition(".")
    guesses = difflib.get_close_matches(name, sorted(source.names_in(module)), n=2, cutoff=0.6)
    homes = sorted((m for m in source.sources if m.endswith("." + name) and m != err.dotted
                    and not any(p.startswith("_") for p in m.split("."))), key=len)[:2]  # a module elsewhere
    return CallFinding(line, written, "unknown-name", (
        t("lint.call.unknown_name", line=line, written=written, package=source.package, version=source.version,
          module=module, name=name)
        + (t("lint.call.module_home", homes=code(homes)) if homes else "")
        + guess_end(code(guesses) if not homes else None)))


def _tensor_names(tree: ast.Module, aliases: dict[str, str], source: SourceTree, skip: set[str]) -> set[str]:
    """Names this cell binds once, to a MindSpore tensor it constructs (``t = ms.Tensor(...)``)."""
    counts: dict[str, int] = {}
    tensors = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _is_tensor(node.value, aliases, source, skip):
            tensors.add(node.targets[0].id)
    return {n for n in tensors if counts.get(n) == 1 and n not in aliases}


def _is_tensor(node: ast.expr, aliases: dict[str, str], source: SourceTree, skip: set[str]) -> bool:
    """Whether ``node`` builds a MindSpore tensor: ``Tensor(...)``, ``ops.ones(...)``, ``mint.randn(...)`` …"""
    parts = dotted_parts(node.func) if isinstance(node, ast.Call) else None
    if not parts or parts[0] not in aliases or parts[0] in skip:
        return False
    full = ".".join([aliases[parts[0]], *parts[1:]])
    definition = source.definition(full)
    return definition in TENSOR_CLASSES or (bool(definition) and full.startswith("mindspore.")
                                            and parts[-1] in TENSOR_FACTORIES)


def _tensor_attributes(tree: ast.Module, aliases: dict[str, str], source: SourceTree, skip: set[str]):
    """(line, written, attribute) of attributes read on MindSpore tensors: ``t.asnumpy()``, ``ms.Tensor(x).shape``."""
    names = _tensor_names(tree, aliases, source, skip)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Name) and node.value.id in names:
                yield node.lineno, f"{node.value.id}.{node.attr}", node.attr
            elif _is_tensor(node.value, aliases, source, skip):
                yield node.lineno, f"{ast.unparse(node.value.func)}(…).{node.attr}", node.attr


def _value_findings(source: SourceTree, full: str, written: str, call: ast.Call, sigs: list[Signature],
                    line: int, built: frozenset[str] = frozenset()) -> list[CallFinding]:
    """Keywords of ``**kwargs`` functions the runtime table lists, and values of enumerated arguments."""
    definition = source.definition(full) or full
    out = []
    api = runtime_api()
    accepted = api["keywords"].get(definition) if api["version"] == source.version else None
    if accepted is not None:
        for kw in call.keywords:
            if kw.arg and kw.arg not in accepted:
                guess = difflib.get_close_matches(kw.arg, accepted, n=2, cutoff=0.6)
                out.append(CallFinding(line, written, "call-signature", (
                    t("lint.call.runtime_keyword", line=line, written=written, keyword=kw.arg, package=source.package,
                      version=source.version, definition=definition, count=len(accepted))
                    + guess_end(code(guess)))))
    sig = sigs[0] if sigs else None
    func = source.function(definition)
    types = annotations.declared_types(func) if func is not None else {}
    typed = annotations.type_problems(call, sig, types, f"{source.package} {source.version} {definition}")
    for _, problem in typed:  # the decorator runs first: a wrong type is what the learner would see
        out.append(CallFinding(line, written, "argument-value", t("lint.line_call", line=line, written=written, problem=problem)))
    done = {p for p, _ in typed}
    init = func or source.function(f"{definition}.__init__")
    warned = annotations.warned_keywords(init) if init is not None else {}
    for kw in call.keywords:
        if kw.arg in warned:
            done.add(kw.arg)
            out.append(CallFinding(line, written, "call-signature", t(
                "lint.call.warned_keyword", line=line, written=written, keyword=kw.arg, package=source.package,
                version=source.version, definition=definition, warning=warned[kw.arg])))
    # torch's annotations are its documented types (torch_npu's are not kept up, but a str is never a bool)
    if init is not None:
        where = f"{source.package} {source.version} {definition}"
        only_bool = source.package != "torch"
        overloads = _overloads_of(source, definition) if _overloaded(init) else [init]
        stub = definition.rpartition(".")[0] in source.stub_modules or \
            definition.rsplit(".", 2)[0] in source.stub_modules  # a module's function or a class's method
        found = [dict(annotations.annotation_problems(call, bound, f, where, only_bool, stub))
                 for f, bound in _fitting(overloads, call, sig)]
        annotated = [(p, m) for p, m in (found[0] if found else {}).items() if all(p in f for f in found)]  # all refuse
        for parameter, problem in annotated:
            done.add(parameter)
            out.append(CallFinding(line, written, "argument-value", t("lint.line_call", line=line, written=written, problem=problem)))
    for parameter, problem in schema_types.problems(call, sigs, f"{source.package} {source.version} {full}"):
        done.add(parameter)  # torch.ops.npu operators: the registered schema's types
        out.append(CallFinding(line, written, "argument-value", t("lint.line_call", line=line, written=written, problem=problem)))
    rules = api_values.rules_for(definition)
    checks = [(rule["parameter"], api_values.allowed(source, rule)) for rule in rules if "parameter" in rule]
    for rule in (r for r in rules if "dispatch" in r):  # set_context(**kwargs): each keyword's setter checks it
        table = api_values.dispatched(source, rule["dispatch"])
        checks += [(kw.arg, table[kw.arg][1]) for kw in call.keywords if kw.arg in table]
    checks += list(api_values.checked_by_definition(source, definition).items())  # its own validation code
    reported = set(done)  # the parameters a finding above is about: not again as part of a relation
    for parameter, allowed in checks:
        node = api_values.argument(call, sig, parameter)
        if allowed is None or node is None or parameter in done:
            continue
        done.add(parameter)
        for problem in api_values.problems(node, parameter, allowed):
            reported.add(parameter)
            out.append(CallFinding(line, written, "argument-value", t("lint.line_call", line=line, written=written, problem=problem)))
    found = relations.source_problems(source, definition, call, reported, built)
    reported.update(p for read, _ in found for p in read)
    found += relations.rule_problems(source, definition, call, sig, reported, built)
    reported.update(p for read, _ in found for p in read)
    found += op_docs.problems(source, full, call, sig, reported, built)  # torch_npu operators' documentation
    reported.update(p for read, _ in found for p in read)
    found += op_cpp_checks.problems(source, full, call, sig, reported, built)  # their NPU kernels' TORCH_CHECKs
    reported.update(p for read, _ in found for p in read)
    found += torch_docs.problems(source, full, definition, call, sig, reported, built)  # torch's docstrings
    for _, problem in found:
        out.append(CallFinding(line, written, "argument-value", t("lint.line_call", line=line, written=written, problem=problem)))
    return out


def _instance_findings(tree: ast.Module, aliases: dict[str, str], skip: set[str], built: frozenset[str], tree_of,
                       reported: set[str]) -> list[CallFinding]:
    """The value findings of calls on objects the cell built (``ds = ds.batch(0)`` after ``ds = NumpySlicesDataset(…)``;
    npulab.lint.instances): the method, found in the object's class or its bases, read as any call's function. A call
    that does not fit the method's signature is left alone (its class may be other than the one built)."""
    def class_of(full: str) -> str | None:
        source = tree_of(canonical(full))
        definition = source.definition(canonical(full)) if isinstance(source, SourceTree) else ""
        return definition if definition and api_values.constructor(source, definition)[0] is not None else None

    out = []
    for line, written, cls, method, call in instances.method_calls(tree, instances.built_classes(tree, aliases, skip, class_of)):
        source = tree_of(cls)
        definition = instances.method_definition(source, cls, method) if isinstance(source, SourceTree) else None
        if definition is None or written in reported:
            continue
        problem, _, sigs = check_call(source, definition, call)
        if problem is None and sigs:
            out += _value_findings(source, definition, written, call, sigs, line, built)
    return out


def _overloaded(func: ast.FunctionDef) -> bool:
    return any(ast.unparse(d).rsplit(".", 1)[-1] == "overload" for d in func.decorator_list)


def _fitting(overloads: list[ast.FunctionDef], call: ast.Call, sig: Signature | None):
    """(overload, its signature) of the overloads the call fits, so that positional arguments bind to each one's own
    parameters (``torch.full(512, …)``); the one ``def`` with the call's signature when not overloaded."""
    if len(overloads) == 1:
        yield overloads[0], sig
        return
    for func in overloads:
        own = from_def(func)
        if own is not None and _fits([own], call)[0]:
            yield func, own


def _overloads_of(source: SourceTree, definition: str) -> list[ast.FunctionDef]:
    """Every ``@overload def`` of a module-level function (a stub's overloads); [] when not module-level."""
    module, _, name = definition.rpartition(".")
    tree = source.tree(module)
    defs = [n for n in (tree.body if tree is not None else []) if isinstance(n, ast.FunctionDef) and n.name == name]
    return [d for d in defs if _overloaded(d)]


def findings_for_cell(tree: ast.Module, aliases: dict[str, str], sources: Callable[[str], SourceTree | str | None]
                      ) -> tuple[list[CallFinding], set[Uncheckable]]:
    """(the problems of one npu cell's names and calls, the calls that cannot be checked)."""
    found: list[CallFinding] = []
    unchecked: set[Uncheckable] = set()
    skip = rebound_names(tree)  # a name the cell rebinds may not be the module it was imported as
    reported = set()
    built = built_names(tree)

    def tree_of(full: str) -> SourceTree | str | None:
        root = full.split(".")[0]
        return sources(root) if root in CHECKED_ROOTS else None

    for line, written, full in _names(tree, aliases, skip):
        source = tree_of(full)
        member = api_values.enum_member_problem(full) if written not in reported else None
        if member:  # torch_npu.profiler.ProfilerActivity.CUDA: a C extension's enum, as documented
            reported.add(written)
            found.append(CallFinding(line, written, "unknown-name", t("lint.line_written", line=line, written=written,
                                                                      problem=member)))
            continue
        if isinstance(source, SourceTree) and source.names_checked and written not in reported:
            try:
                source.resolve(full)
            except NameNotFound as err:
                if err.certain:
                    reported.add(written)
                    found.append(_unknown(source, written, err, line))
    for node in ast.walk(tree):  # torch.npu.matmul.allow_hf32 = "False": a non-empty string is true
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and str(node.value.value).lower() in ("true", "false") and isinstance(node.value.value, str):
            for target in node.targets:
                parts = dotted_parts(target) if isinstance(target, ast.Attribute) else None
                if parts and parts[0] in aliases and aliases[parts[0]].split(".")[0] in ("torch", "torch_npu") \
                        and parts[0] not in skip:
                    written = ".".join(parts)
                    found.append(CallFinding(node.lineno, written, "argument-value", t(
                        "lint.call.string_switch", line=node.lineno, written=written, value=repr(node.value.value),
                        fix=node.value.value.capitalize())))
    assigned = {id(t): n.value for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets}
    for node in ast.walk(tree):  # settings that a __setattr__ ignores: torch.npu.config.allow_internal_fromat = False
        parts = dotted_parts(node) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) else None
        if not parts or len(parts) < 3 or parts[0] not in aliases or parts[0] in skip:
            continue
        parent = canonical(".".join([aliases[parts[0]], *parts[1:-1]]))
        source = tree_of(parent)
        known = source.settable(parent) if isinstance(source, SourceTree) else None
        if id(node) in assigned and (node.lineno, ".".join(parts)) not in {(f.line, f.written) for f in found} \
                and isinstance(source, SourceTree):  # owner.name = value that the owner's __setattr__ refuses
            for problem in relations.setting_problems(source, parent, parts[-1], assigned[id(node)], built):
                found.append(CallFinding(node.lineno, ".".join(parts), "argument-value", t(
                    "lint.line_setting", line=node.lineno, written=".".join(parts), problem=problem)))
        if known and parts[-1] not in known[1]:
            written = ".".join(parts)
            guess = difflib.get_close_matches(parts[-1], sorted(known[1]), n=2, cutoff=0.6)
            found.append(CallFinding(node.lineno, written, "unknown-name", (
                t("lint.call.ignored_setting", line=node.lineno, written=written, package=source.package,
                  version=source.version, owner=".".join(parts[:-1]), definition=known[0], known=code(sorted(known[1])))
                + guess_end(code(guess)))))
    for line, written, full, call in calls(tree, aliases):
        if written.split(".")[0] in skip:
            continue
        source = tree_of(full)
        if source is None:
            continue
        if isinstance(source, str):
            unchecked.add(Uncheckable(full.split(".")[0], full, source))
            continue
        problem, uncheckable, sigs = check_call(source, full, call)
        if uncheckable:
            unchecked.add(uncheckable)
        if problem:
            names = sorted({n for s in sigs for n in s.positional + s.keyword_only})
            bad = [k.arg for k in call.keywords if k.arg and k.arg not in names]
            guess = difflib.get_close_matches(bad[0], names, n=2, cutoff=0.5) if bad else []
            shown = t("lint.semicolon").join(f"{written}{s.text()}" for s in sigs[:3])
            found.append(CallFinding(line, written, "call-signature", (
                t("lint.call.signature", line=line, written=written, problem=problem, package=source.package,
                  version=source.version, signatures=shown)
                + guess_end(code(guess)))))
        elif written not in reported and not reported & {ast.unparse(n) for n in ast.walk(call) if isinstance(n, ast.Attribute)}:
            found += _value_findings(source, full, written, call, sigs, line, built)  # (an unknown name in it is reported)
    found += _instance_findings(tree, aliases, skip, built, tree_of, reported)
    mindspore = sources("mindspore") if any(v.split(".")[0] == "mindspore" for v in aliases.values()) else None
    if isinstance(mindspore, SourceTree) and runtime_api()["version"] == mindspore.version:
        members = runtime_api()["tensor_members"]
        for line, written, attr in _tensor_attributes(tree, aliases, mindspore, skip):
            if attr not in members and not attr.startswith("_") and written not in reported:
                reported.add(written)
                guess = difflib.get_close_matches(attr, members, n=2, cutoff=0.6)
                found.append(CallFinding(line, written, "unknown-name", (
                    t("lint.call.tensor_attribute", line=line, written=written, version=mindspore.version, name=attr)
                    + guess_end(code(guess)))))
    return sorted(found, key=lambda f: f.line), unchecked
