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
    "import mindspore.dataset as ds\ndata = ds.GeneratorDataset(lambda: iter([]), column_names=['x'], shard_id=0)",
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
    # sharding needs a random-accessible source (MindSpore refuses num_shards for a generator function)
    "import mindspore.dataset as ds\ndata = ds.GeneratorDataset([(1,), (2,)], column_names=['x'], num_shards=2, shard_id=0)",
    DATASET + "data = other_pipeline()\ndata.repeat(0)",  # rebound to something else: not the dataset built
])
def test_correct_calls_pass(lint, code):  # noqa: F811
    found = [f for f in lint(code) if f.kind != "undefined-name"]
    assert found == []


@pytest.mark.parametrize("code", [
    "import torch\nrnn = torch.nn.RNN(4, 8, proj_size=2)",  # giving the keyword at all is refused (RNN.__init__)
    # ops.Conv2D, reached through ``from mindspore.ops.operations import *``, checks pad_mode
    "import mindspore as ms\nfrom mindspore import nn\nconv = nn.Conv1d(3, 8, 3, pad_mode='zeros')",
    "import mindspore as ms\nfrom mindspore import nn\nlr = nn.piecewise_constant_lr([10, 30, 20], [0.1, 0.05, 0.01])",
])
def test_presence_star_imports_and_loops(lint, code):  # noqa: F811
    assert [f.kind for f in lint(code)] == ["argument-value"]


@pytest.mark.parametrize("code", [
    "import torch\nrnn = torch.nn.LSTM(4, 8, proj_size=2)",
    "import mindspore as ms\nfrom mindspore import nn\nconv = nn.Conv1d(3, 8, 3, pad_mode='valid')",
    "import mindspore as ms\nfrom mindspore import nn\nlr = nn.piecewise_constant_lr([10, 20, 30], [0.1, 0.05, 0.01])",
])
def test_presence_star_imports_and_loops_pass(lint, code):  # noqa: F811
    assert lint(code) == []


def test_a_loop_over_known_items_is_walked_item_by_item():
    import ast

    from npulab.lint import own_checks

    body = ast.parse("last = 0\nfor i, x in enumerate(xs):\n    if x < last:\n        raise ValueError(i)\n    last = x\n").body
    unknown = lambda node: own_checks.UNKNOWN  # noqa: E731
    assert own_checks.refusals(body, {"xs": [1, 3, 2]}, {}, unknown)
    assert not own_checks.refusals(body, {"xs": [1, 2, 3]}, {}, unknown)
    jumping = ast.parse("for x in xs:\n    if x:\n        continue\n    raise ValueError\n").body
    assert not own_checks.refusals(jumping, {"xs": [0]}, {}, unknown)  # a body that jumps is not unrolled


def test_known_branches_dict_views_and_closed_dicts():
    import ast

    from npulab.lint import own_checks

    unknown = lambda node: own_checks.UNKNOWN  # noqa: E731
    helper = own_checks.Function("m.check", ast.parse("if v < 0:\n    raise ValueError\n").body, ["v"], 1, {}, unknown)
    lookup = lambda node: helper if isinstance(node, ast.Name) and node.id == "check" else None  # noqa: E731
    walk = own_checks.Walk({}, unknown, lookup=lookup)
    branch = ast.parse("y = check(x) if isinstance(x, int) else x\n").body
    own_checks.run(branch, {"x": -1}, walk, [])
    assert walk.found  # the branch the test decides is walked as a statement of its own
    views = ast.parse("for key, value in config.items():\n    if key == 'mode' and value not in ('a', 'b'):\n"
                      "        raise ValueError\n").body
    assert own_checks.refusals(views, {"config": {"mode": "c"}}, {}, unknown)
    assert not own_checks.refusals(views, {"config": {"mode": "a"}}, {}, unknown)


@pytest.mark.parametrize("code, refused", [
    ("import mindspore as ms\nfrom mindspore import nn\nact = nn.get_activation('relu7')", True),
    ("import mindspore as ms\nfrom mindspore import nn\nact = nn.get_activation('relu6')", False),
])
def test_a_closed_dict_of_names(lint, code, refused):  # noqa: F811
    assert bool(lint(code)) is refused


@pytest.mark.parametrize("code, refused", [
    # str.find evaluated on a literal (ModelCheckpoint: prefix.find('/') >= 0), with another folder and name
    ("import mindspore as ms\ncb = ms.train.ModelCheckpoint(prefix='runs/lenet')", True),
    ("import mindspore as ms\ncb = ms.train.ModelCheckpoint(prefix='lenet', directory='runs')", False),
])
def test_string_methods_on_literals(lint, code, refused):  # noqa: F811
    assert bool(lint(code)) is refused
