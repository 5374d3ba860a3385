"""lint-npu, calls: the positional count and keyword names of every call an ``npu`` cell makes into torch_npu
(torch.npu, torchair, npugraph_ex), msprobe and MindSpore, checked against the pinned releases' sources
(npulab.course.lint.signatures); what cannot be checked is collected, never hidden.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable
from dataclasses import dataclass

from npulab.course.lint.signatures import Signature, SourceTree
from npulab.pytorch.torch_npu_names import dotted_parts

CHECKED_ROOTS = ("torch_npu", "torchair", "npugraph_ex", "msprobe", "mindspore", "triton")


@dataclass(frozen=True)
class Uncheckable:
    """A call whose signature the released sources do not give (C extension, decorator, inherited __init__ …)."""

    package: str
    name: str
    reason: str


def update_aliases(tree: ast.Module, aliases: dict[str, str]) -> None:
    """Names a cell's imports bind -> the dotted module path they stand for."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    aliases[root] = root
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if alias.name != "*":
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"


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


def _fits(sigs: list[Signature], call: ast.Call) -> tuple[bool, str]:
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    positional = 0 if starred else len(call.args)
    keywords = [k.arg for k in call.keywords if k.arg]
    problems = []
    for sig in sigs:
        problem = sig.problem(positional, keywords)
        if problem is None:
            return True, ""
        problems.append((problem, sig))
    return False, problems[0][0]


def check_call(tree: SourceTree, full: str, call: ast.Call) -> tuple[str | None, Uncheckable | None, list[Signature]]:
    """(problem, uncheckable, signatures) of one call resolved in ``tree``."""
    try:
        what, sigs = tree.resolve(full)
    except KeyError:  # an unknown name: lint-npu's name check reports it for torch_npu; elsewhere say so
        if tree.package == "torch_npu":
            return None, None, []
        return None, Uncheckable(tree.package, full, f"在 {tree.package} {tree.version} 的源码里找不到这个名字（运行时才有的属性？）"), []
    for other in tree.alternates(full):  # a patched definition that replaces this one at run time
        try:
            sigs = (sigs or []) + (tree.resolve(other)[1] or [])
        except KeyError:
            continue
    if not sigs:
        return None, Uncheckable(tree.package, full, what), []
    ok, problem = _fits(sigs, call)
    return (None if ok else problem), None, sigs


def findings_for_cell(tree: ast.Module, aliases: dict[str, str], sources: Callable[[str], SourceTree | str | None]
                      ) -> tuple[list[tuple[int, str, str]], set[Uncheckable]]:
    """((line, written, message) of calls that do not fit, the calls that cannot be checked) of one npu cell."""
    found, unchecked = [], set()
    for line, written, full, call in calls(tree, aliases):
        root = full.split(".")[0]
        if root not in CHECKED_ROOTS:
            continue
        source = sources(root)
        if source is None:
            continue
        if isinstance(source, str):
            unchecked.add(Uncheckable(root, full, source))
            continue
        problem, uncheckable, sigs = check_call(source, full, call)
        if uncheckable:
            unchecked.add(uncheckable)
        if problem:
            names = sorted({n for s in sigs for n in s.positional + s.keyword_only})
            bad = [k.arg for k in call.keywords if k.arg and k.arg not in names]
            guess = difflib.get_close_matches(bad[0], names, n=2, cutoff=0.5) if bad else []
            shown = "；".join(f"{written}{s.text()}" for s in sigs[:3])
            found.append((line, written, f"第 {line} 行：调用 `{written}` {problem}——{source.package} {source.version} "
                          f"中它的参数是 {shown}" + (f"；是不是 `{'`、`'.join(guess)}`？" if guess else "。")))
    return found, unchecked
