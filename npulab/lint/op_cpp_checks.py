"""lint-npu, the checks the NPU kernels of torch_npu's fused operators make on their scalar parameters
(``TORCH_CHECK(keep_prob > 0 && keep_prob <= 1, …)`` in Ascend/op-plugin's ``op_plugin/ops/opapi/*.cpp``), read by
``scripts/extract_op_plugin_checks.py`` at the commit that matches the pinned wheel into
npulab/data/op_plugin_checks.yaml as ``refused`` rules, and run on a call's literals by the relation evaluator
(npulab.lint.relations.rule_problems), one finding a parameter, none for a parameter already reported."""

from __future__ import annotations

import ast
from functools import cache

from npulab.core.paths import DATA_DIR, load_yaml
from npulab.lint.signatures import Signature, SourceTree

CHECKS = DATA_DIR / "op_plugin_checks.yaml"


@cache
def _rules() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for rule in load_yaml(CHECKS)["rules"]:
        out.setdefault(rule["function"], []).append(rule)
    return out


def problems(tree: SourceTree, full: str, call: ast.Call, sig: Signature | None, done: set[str],
             built: frozenset[str] = frozenset()) -> list[tuple[list[str], str]]:
    """(parameters, sentence) for the kernel checks of ``torch_npu.<operator>`` a call's arguments fail."""
    from npulab.lint.relations import rule_problems  # relations runs these rules; it does not need this module

    if tree.package != "torch_npu" or full not in _rules():
        return []
    out: list = []
    for rule in _rules()[full]:
        out += rule_problems(tree, full, call, sig, done | {p for read, _ in out for p in read}, built, [rule])[:1]
    return out
