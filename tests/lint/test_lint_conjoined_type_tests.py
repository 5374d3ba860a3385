"""A type test that is only one part of an ``and`` says nothing alone of what the branch refuses (issue 36, found by
set I's ``ops.tensor_split`` twin): ``if isinstance(n, int) and not isinstance(n, bool): … else: raise`` accepts an
int, and the range check inside the branch (``n > 0``) is what refuses ``0``. On a small source tree, and through
lint-npu on ``mindspore.ops.tensor_split`` and on the CANN variable ASCEND_MODULE_LOG_LEVEL, whose grammar
(``module=level`` pairs) joined the variables' table with it."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint.signatures import SourceTree
from npulab.lint.source_validations import checked_by_definition

SPLITS = '''
def split(x, sections, axis=0):
    if isinstance(sections, int) and not isinstance(sections, bool):
        if sections > 0:
            parts = sections
        else:
            raise ValueError("sections must be more than zero")
    elif isinstance(sections, (list, tuple)):
        parts = len(sections)
    else:
        raise TypeError("sections")
    return parts


def either(x, flag):
    if flag is None or not isinstance(flag, bool):
        raise TypeError("flag")
'''


def _checked(function: str) -> dict:
    tree = SourceTree("splits", "1.0", {"splits": SPLITS}, {"splits"})
    return checked_by_definition(tree, f"splits.{function}")


def test_the_half_of_an_and_says_no_type():
    assert _checked("split").get("sections") is None or _checked("split")["sections"].types is None


def test_an_alternative_of_an_or_still_says_the_type():
    assert _checked("either")["flag"].types == (bool,)


MS = "import numpy as np\nfrom mindspore import ops, Tensor\nx = Tensor(np.ones((12, 8), np.float32))\n"


@pytest.mark.parametrize("code, kinds", [
    (MS + "parts = ops.tensor_split(x, 3)", []),
    (MS + "parts = ops.tensor_split(x, (1, 6))", []),
    (MS + "parts = ops.tensor_split(x, 0)", ["argument-value"]),
])
def test_mindspore_tensor_split(lint, code, kinds):  # noqa: F811
    assert [f.kind for f in lint(code)] == kinds


@pytest.mark.parametrize("value, kinds", [
    ("TBE=0:RUNTIME=0", []),
    ("GE=1", []),
    ("GE=info:HCCL=debug", ["env-value"]),
    ("GE=1 : HCCL=0", ["env-value"]),
    ("GE=5", ["env-value"]),
])
def test_ascend_module_log_level(lint, value, kinds):  # noqa: F811
    assert [f.kind for f in lint(f"%env ASCEND_MODULE_LOG_LEVEL={value}\nimport torch\nimport torch_npu\n")] == kinds
