"""One NPU cell's source as lint-npu's interpreters read it, for the test modules of its readings: the cell parsed
and its imports bound as lint binds them (``bound_cell``), and what the meta run with small CPU copies of the
tensors (npulab.lint.cpu_values) finds in it (``cpu_findings``)."""

from __future__ import annotations

import ast

from npulab.lint import calls

NPU = "import torch\nimport torch_npu\n"  # the head of every NPU cell the tests write


def bound_cell(source: str) -> tuple[ast.Module, dict[str, str]]:
    tree = ast.parse(source)
    imported: dict[str, str] = {}
    calls.update_aliases(tree, imported)
    return tree, imported


def cpu_findings(source: str) -> list[tuple[int, str, str]]:
    from npulab.lint import cpu_values, meta_run

    return meta_run.findings(*bound_cell(source), None, cpu_values.Interpreter)
