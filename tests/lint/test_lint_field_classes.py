"""lint-npu round 19 (issue 36): a field class (``dataclass``, ``msgspec.Struct``) has no ``def __init__``; its
constructor is the one its library writes — each field stored, then ``__post_init__`` — and lint walks that
(npulab.lint.field_classes). vLLM is not installed: its ``sampling_params`` module is read from the committed
extract of the vllm 0.23.0 wheel (scripts/extract_signature_stubs.py). Planted cells and correct twins on two vLLM
classes and arguments no case set uses (``RepetitionDetectionParams``; ``SamplingParams``' ``prompt_logprobs``
and ``bad_words``)."""

from __future__ import annotations

import ast

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint import relations
from npulab.lint.field_classes import synthesized_init
from npulab.lint.signatures import SourceTree

SHAPES = '''
from dataclasses import dataclass, field


@dataclass
class Window:
    low: int
    high: int = 10
    cache: list = field(default_factory=list)
    seen: int = field(default=0, init=False)

    def __post_init__(self):
        if self.low > self.high:
            raise ValueError("low must not exceed high")
'''


def _found(call: str) -> list:
    tree = SourceTree("shapes", "1.0", {"shapes": SHAPES}, {"shapes"})
    return [read for read, _ in relations.source_problems(tree, "shapes.Window", ast.parse(call).body[0].value, set())]


def test_the_written_constructor_stores_the_fields_then_runs_post_init():
    cls = ast.parse(SHAPES).body[1]
    init = synthesized_init(cls)
    assert ast.unparse(init.args) == "self, low, high=10, cache=list()"  # `seen` is not a parameter (init=False)
    assert ast.unparse(init.body[-1]) == "self.__post_init__()"


def test_a_class_with_its_own_init_or_without_post_init_keeps_its_own():
    assert synthesized_init(ast.parse("class A:\n    x: int = 1\n    def __init__(self): pass\n    "
                                      "def __post_init__(self): pass").body[0]) is None
    assert synthesized_init(ast.parse("class B:\n    x: int = 1").body[0]) is None


def test_the_relation_of_two_fields_is_refused_by_post_init():
    assert _found("Window(12)") == [["low", "high"]]  # the test reads both; high by its default
    assert _found("Window(5, high=3)") != [] and _found("Window(3, high=5)") == [] and _found("Window(n)") == []


VLLM = "from vllm import SamplingParams\nfrom vllm.sampling_params import RepetitionDetectionParams\n"


@pytest.mark.parametrize("code", [
    VLLM + "p = RepetitionDetectionParams(max_pattern_size=8, min_count=1)",  # min_count >= 2 when detecting
    VLLM + "p = RepetitionDetectionParams(max_pattern_size=4, min_pattern_size=6, min_count=3)",
    VLLM + "p = SamplingParams(prompt_logprobs=-3)",  # non-negative or -1
    VLLM + "p = SamplingParams(bad_words=['', 'spam'])",  # no empty word
])
def test_vllm_field_classes_refuse_what_post_init_refuses(lint, code):  # noqa: F811
    assert [f.kind for f in lint(code)] == ["argument-value"]


@pytest.mark.parametrize("code", [
    VLLM + "p = RepetitionDetectionParams(max_pattern_size=8, min_count=3)",
    VLLM + "p = RepetitionDetectionParams(max_pattern_size=6, min_pattern_size=4, min_count=3)",
    VLLM + "p = SamplingParams(prompt_logprobs=-1)",
    VLLM + "p = SamplingParams(bad_words=['spam'])",
])
def test_their_correct_twins_are_clean(lint, code):  # noqa: F811
    assert lint(code) == []
