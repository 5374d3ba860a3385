"""What lint-npu's meta run, with small CPU copies of the tensors (npulab.lint.cpu_values), finds in one NPU cell's
source, for the test modules of its readings: the cell's imports bound as lint binds them, then the cell run."""

from __future__ import annotations

import ast

from npulab.lint import calls, cpu_values, meta_run

NPU = "import torch\nimport torch_npu\n"  # the head of every NPU cell the tests write


def cpu_findings(source: str) -> list[tuple[int, str, str]]:
    tree = ast.parse(source)
    imported: dict[str, str] = {}
    calls.update_aliases(tree, imported)
    return meta_run.findings(tree, imported, None, cpu_values.Interpreter)
