"""lint-npu round 19 (npulab/lint/own_statements.py): a check of the called function's own code that only warns, when
the warning says the value is deprecated (``if self._msprof_tx: warnings.warn("… will be deprecated …")``), is a
finding about the argument its test reads; a warning that says anything else stays advice, and one outside any test
is about the function, not an argument. On a small source tree."""

from __future__ import annotations

import ast

from npulab.lint import relations
from npulab.lint.signatures import SourceTree

SHAPES = '''
import warnings


class Tracer:
    def __init__(self, legacy_marks=False, marks=False, verbose=False):
        self._legacy_marks = legacy_marks
        if self._legacy_marks:
            warnings.warn("legacy_marks is deprecated, use marks instead.")
        if verbose:
            warnings.warn("verbose tracing is slow.")


def always(level=1):
    warnings.warn("always() is deprecated.")
    if level > 3:
        raise ValueError(level)
'''


def _found(definition: str, call: str) -> list:
    tree = SourceTree("shapes", "1.0", {"shapes": SHAPES}, {"shapes"})
    return relations.source_problems(tree, definition, ast.parse(call).body[0].value, set())


def test_a_deprecated_value_the_call_passes_is_reported():
    found = _found("shapes.Tracer", "Tracer(legacy_marks=True)")
    assert [read for read, _ in found] == [["legacy_marks"]] and "deprecated" in found[0][1]


def test_advice_and_the_twin_are_not():
    assert _found("shapes.Tracer", "Tracer(marks=True)") == []
    assert _found("shapes.Tracer", "Tracer(verbose=True)") == []  # a warning that deprecates nothing
    assert _found("shapes.Tracer", "Tracer(legacy_marks=flag)") == []  # unknown


def test_a_function_deprecated_whatever_its_arguments_is_not_about_them():
    assert _found("shapes.always", "always(level=2)") == []
    assert [read for read, _ in _found("shapes.always", "always(level=5)")] == [["level"]]  # its own check still
