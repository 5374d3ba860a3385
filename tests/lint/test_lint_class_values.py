"""lint-npu round 9 (issue 36): a class of the released sources handed to a helper as a value keeps what it is
(own_checks' SourceClass): ``type_check(mode, (Border,), "mode")`` refuses a string, since no plain literal is an
instance of a class the library defines, also when it subclasses ``str``. On a small source tree, and through
lint-npu on a MindSpore transform that no case set uses."""

from __future__ import annotations

import ast

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint import relations
from npulab.lint.signatures import SourceTree

SHAPES = '''
from enum import Enum


class Edge(str, Enum):
    CONSTANT = "constant"
    EDGE = "edge"


def type_check(arg, types, name):
    if not isinstance(arg, types):
        raise TypeError(name)


def pad(width, mode=Edge.CONSTANT, fill=0):
    type_check(width, (int,), "width")
    if mode is not None:
        type_check(mode, (Edge,), "mode")
    type_check(fill, (int, tuple), "fill")
'''


def _found(call: str) -> list:
    tree = SourceTree("shapes", "1.0", {"shapes": SHAPES}, {"shapes"})
    return [read for read, _ in relations.source_problems(tree, "shapes.pad", ast.parse(call).body[0].value, set())]


def test_a_class_handed_as_a_value_refuses_literals():
    assert _found("pad(4, mode='edge')") == [["mode"]]
    assert _found("pad(4, mode=3)") == [["mode"]]


def test_its_members_and_unknown_values_pass():
    assert _found("pad(4)") == [] and _found("pad(4, mode=None)") == []
    assert _found("pad(4, mode=Edge.EDGE)") == [] and _found("pad(4, mode=chosen)") == []
    assert _found("pad(4, fill=(1, 2))") == []  # the tuple of builtins still reads as before


MS = "import mindspore.dataset.vision as vision\n"


@pytest.mark.parametrize("code", [MS + "t = vision.Resize(32, interpolation='bilinear')"])
def test_mindspore_transform_refuses_a_string_for_an_enum(lint, code):  # noqa: F811
    assert [f.kind for f in lint(code)] == ["argument-value"]


@pytest.mark.parametrize("code", [MS + "t = vision.Resize(32, interpolation=vision.Inter.BILINEAR)", MS + "t = vision.Resize(32)"])
def test_mindspore_transform_takes_the_enum(lint, code):  # noqa: F811
    assert lint(code) == []
