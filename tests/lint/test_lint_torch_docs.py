"""lint-npu round 9 (issue 36): limits torch states in its own docstrings (npulab.lint.torch_docs, the English phrases
in npulab.lint.op_doc_phrases): on a small source tree shaped like the wheel's (``add_docstr`` in ``_torch_docs``,
``_add_docstr`` assignments, a class's and a def's docstrings), and through lint-npu on functions and values that no
case set uses."""

from __future__ import annotations

import ast

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint import torch_docs
from npulab.lint.signatures import SourceTree

DOCS = '''
from torch._C import _add_docstr as add_docstr
add_docstr(torch.spread, r"""
spread(input, q, *, width=1.0) -> Tensor

Args:
    {input}
    q (float or Tensor): values in the range [0, 1].

Keyword arguments:
    width (float, optional): the width. Must be positive. Default: 1.0
""".format(**common_args))
'''
FUNCTIONAL = '''
from torch._C import _add_docstr
gap = _add_docstr(torch._C._nn.gap, r"""
gap(input, p=2.0) -> Tensor

Args:
    p (float): p value for the norm, :math:`\\in[0, \\infty]`.
""")
'''
MODULES = '''
class Shrink:
    """Shrinks.

    Args:
        lam (float, optional): the threshold. The value must be non-negative. Default: 0.5
        mode (str, optional): when ``mode`` is set, the value must be positive.
        count (int): the count, a number in [1, 8].
        fold (str, optional): how to fold:
            ``'none'`` | ``'half'`` | ``'all'``. Default: ``'none'``

    Shape:
        - Input: the value must be positive (not a parameter's).
    """

    def __init__(self, lam=0.5, mode=None, count=1, fold="none"):
        self.lam = lam


def scale(x, factor=2):
    """Scales.

    Args:
        factor (int): how much; if it is odd, it must be at least 3.
    """
'''


def _tree() -> SourceTree:
    return SourceTree("torch", "9.9", {"torch": "", "torch._torch_docs": DOCS, "torch.nn.functional": FUNCTIONAL,
                                       "torch.nn.modules": MODULES}, {"torch"})


def _refused(full: str, definition: str = "") -> set[str]:
    return {r["refused"] for r in torch_docs.limits(_tree(), full, definition, None)}


def test_add_docstr_text_of_the_torch_namespace():
    assert _refused("torch.spread") == {"not (0 <= q and q <= 1)", "not (width > 0)"}


def test_add_docstr_assignment_and_the_math_interval():
    assert _refused("torch.nn.functional.gap") == {"not (0 <= p)"}  # ∞ has no bound to test


def test_class_docstring_reads_its_parameters_not_its_other_sections():
    # mode's bound stands under a condition; the Shape section's sentence is nobody's parameter
    assert _refused("torch.nn.Shrink", "torch.nn.modules.Shrink") == {
        "not (lam >= 0)", "not (1 <= count and count <= 8)",
        "isinstance(fold, str) and fold not in ('none', 'half', 'all',)"}  # the choices written ``'a'`` | ``'b'``


def test_conditional_bound_of_a_def_is_not_read():
    assert _refused("torch.nn.scale", "torch.nn.modules.scale") == set()


def test_rules_cite_the_wheel_module_and_function():
    rule = torch_docs.limits(_tree(), "torch.spread", "", None)[0]
    assert "torch 9.9" in rule["source_en"] and "torch._torch_docs" in rule["source_en"] and "spread" in rule["source_en"]


def test_other_packages_are_not_read():
    tree = SourceTree("torch_npu", "1", {"torch_npu": ""}, {"torch_npu"})
    assert torch_docs.limits(tree, "torch.spread", "", None) == []
    assert torch_docs._text(ast.parse("'a'.format(b=1)", mode="eval").body) == "a"


TORCH = "import torch\nx = torch.rand(4)\n"


@pytest.mark.parametrize("code", [
    TORCH + "q = torch.nanquantile(x, 1.5)",             # _torch_docs: "quantile values in the range [0, 1]"
    TORCH + "loss = torch.nn.SmoothL1Loss(beta=-1.0)",   # "The value must be non-negative."
    TORCH + "loss = torch.nn.MSELoss(reduction='total')",  # ``'none'`` | ``'mean'`` | ``'sum'`` (inherited __init__)
])
def test_documented_limits_refuse(lint, code):  # noqa: F811
    assert [f.kind for f in lint(code)] == ["argument-value"]


@pytest.mark.parametrize("code", [
    TORCH + "q = torch.nanquantile(x, 0.25)",
    TORCH + "q = torch.nanquantile(x, torch.tensor([0.1, 0.9]))",
    TORCH + "loss = torch.nn.SmoothL1Loss(beta=0.0)",
    TORCH + "loss = torch.nn.CrossEntropyLoss(label_smoothing=0.1)",
    TORCH + "loss = torch.nn.MSELoss(reduction='none')",
    TORCH + "loss = torch.nn.KLDivLoss(reduction='batchmean')",
])
def test_documented_limits_pass(lint, code):  # noqa: F811
    assert lint(code) == []
