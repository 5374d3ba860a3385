"""lint-npu, the checks the NPU kernels of torch_npu's fused operators make on their scalar parameters
(``TORCH_CHECK(keep_prob > 0 && keep_prob <= 1, …)`` in Ascend/op-plugin's ``op_plugin/ops/opapi/*.cpp``, and in
the op-plugin functions an operator calls with its parameters), read by ``scripts/extract_op_plugin_checks.py`` at
the commit that matches the pinned wheel into npulab/data/op_plugin_checks.yaml as ``refused`` rules, and run on a
call's literals by the relation evaluator (npulab.lint.relations.rule_problems), one finding a parameter, none for a
parameter already reported. A rule one of the operator's own documented example calls breaks (``调用示例`` on its
page in the wheel's ``_op_plugin_docs.py``) is not used: kernel and page disagree, and lint does not take sides (as
npulab.lint.op_ranks and npulab.lint.op_meta do)."""

from __future__ import annotations

import ast
import re
from functools import cache

from npulab.core.paths import DATA_DIR, load_yaml
from npulab.lint.signatures import Signature, SourceTree

CHECKS = DATA_DIR / "op_plugin_checks.yaml"
_EXAMPLE_BROKEN: dict = {}  # (id(tree), operator, rule's test) -> whether an example call of the page breaks it


@cache
def _rules() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for rule in load_yaml(CHECKS)["rules"]:
        out.setdefault(rule["function"], []).append(rule)
    return out


def example_calls(text: str, operator: str) -> list[ast.Call]:
    """Each call of ``operator`` in the example section of its page that parses on its own (``>>>``/``...`` prompts
    and zero-width spaces dropped), wherever it stands (in a ``def`` of a test class too)."""
    from npulab.lint.op_ranks import _EXAMPLE

    found = _EXAMPLE.search(text)
    text = text[found.end():] if found else ""
    out = []
    for match in re.finditer(rf"(?<![\w.])(?:torch_npu\.|torch\.ops\.npu\.)?{re.escape(operator)}\s*\(", text):
        depth = 0
        for end in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        written = re.sub(r"(?m)^\s*(?:>>>|\.\.\.)\s?", "", text[match.end():end].replace("\u200b", ""))
        try:
            call = ast.parse(f"torch_npu.{operator}({written})", mode="eval").body
        except SyntaxError:
            continue
        out.append(call)
    return out


def _example_broken(tree: SourceTree, full: str, sig: Signature | None, rule: dict) -> bool:
    from npulab.lint import op_docs
    from npulab.lint.relations import rule_problems

    operator = full.removeprefix("torch_npu.")
    key = (id(tree), operator, rule["refused"])
    if key not in _EXAMPLE_BROKEN:
        text = op_docs.texts(tree).get(operator) or ""
        _EXAMPLE_BROKEN[key] = any(rule_problems(tree, full, call, sig, set(), frozenset(), [rule])
                                   for call in example_calls(text, operator))
    return _EXAMPLE_BROKEN[key]


def problems(tree: SourceTree, full: str, call: ast.Call, sig: Signature | None, done: set[str],
             built: frozenset[str] = frozenset()) -> list[tuple[list[str], str]]:
    """(parameters, sentence) for the kernel checks of ``torch_npu.<operator>`` a call's arguments fail."""
    from npulab.lint.relations import rule_problems  # relations runs these rules; it does not need this module

    if tree.package != "torch_npu" or full not in _rules():
        return []
    out: list = []
    for rule in _rules()[full]:
        found = rule_problems(tree, full, call, sig, done | {p for read, _ in out for p in read}, built, [rule])[:1]
        out += found if found and not _example_broken(tree, full, sig, rule) else []
    return out
