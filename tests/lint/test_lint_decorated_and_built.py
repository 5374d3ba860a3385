"""lint-npu round 7 (issue 36): checks made by a validating decorator (npulab.lint.decorators) and calls on objects
the cell built (npulab.lint.instances). The snippets are not the case sets': other classes, methods and values."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

VISION = "import mindspore.dataset.vision as vision\n"
DATASET = "import mindspore.dataset as ds\ndata = ds.GeneratorDataset(lambda: iter([]), column_names=['x'])\n"


@pytest.mark.parametrize("code", [
    VISION + "t = vision.CenterCrop(0)",
    VISION + "t = vision.Pad(padding=-1)",
    VISION + "t = vision.RandomVerticalFlip(prob=-0.1)",
    DATASET + "data = data.batch(8, num_parallel_workers=0)",
    DATASET + "data = data.repeat(-2)",
    DATASET + "data = data.shuffle(buffer_size=64)\ndata = data.repeat(-5)",
])
def test_decorator_and_method_checks_are_read(lint, code):  # noqa: F811
    found = lint(code)
    assert [f.kind for f in found] == ["argument-value"], found
    assert "mindspore 2.10.0" in found[0].message


@pytest.mark.parametrize("code", [
    VISION + "t = vision.CenterCrop(224)",
    VISION + "t = vision.RandomVerticalFlip(prob=0.3)",
    DATASET + "data = data.shuffle(buffer_size=64)\ndata = data.batch(8, drop_remainder=True)\ndata = data.repeat(2)",
    DATASET + "data = data.repeat(-1)",
    DATASET + "data = other_pipeline()\ndata.repeat(0)",  # rebound to something else: not the dataset built
])
def test_correct_calls_pass(lint, code):  # noqa: F811
    found = [f for f in lint(code) if f.kind != "undefined-name"]
    assert found == []
