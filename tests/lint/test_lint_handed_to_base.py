"""A constructor that assigns a parameter before handing it to ``super().__init__`` does not hand it unchanged, so the
base class's checks do not apply to what the caller passed (issue 36, found by set J's MindSpore ``ReflectionPad2d``
twin: an int padding becomes a tuple, and only the base refuses non-tuples). On a small source tree, and through
lint-npu on MindSpore's ``nn.ReflectionPad1d``, which no case set uses."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint.signatures import SourceTree
from npulab.lint.source_validations import checked_by_definition

PADS = '''
class _PadNd:
    def __init__(self, padding, name="PadNd"):
        if not isinstance(padding, tuple):
            raise TypeError("padding must be a tuple")


class Pad2d(_PadNd):
    def __init__(self, padding):
        if isinstance(padding, int):
            padding = (padding, padding, padding, padding)
        super().__init__(padding, "Pad2d")


class StrictPad(_PadNd):
    def __init__(self, padding):
        super().__init__(padding, "StrictPad")
'''


def _checked(name: str) -> dict:
    return checked_by_definition(SourceTree("pads", "1.0", {"pads": PADS}, {"pads"}), f"pads.{name}")


def test_a_parameter_assigned_before_super_is_not_the_bases_to_check():
    assert "padding" not in _checked("Pad2d")


def test_a_parameter_handed_unchanged_keeps_the_bases_check():
    assert _checked("StrictPad")["padding"].types == (tuple,)


MS = "import numpy as np\nimport mindspore as ms\nfrom mindspore import nn, Tensor\n"


@pytest.mark.parametrize("code", [MS + "pad = nn.ReflectionPad1d(2)", MS + "pad = nn.ReflectionPad1d((1, 2))"])
def test_mindspore_reflection_pad_accepts_an_int_and_a_tuple(lint, code):  # noqa: F811
    assert lint(code) == []
