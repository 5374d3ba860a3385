"""lint-npu round 23b (npulab/lint/ms_run.py, ``_InChild``): the calls of MindSpore's data pipeline
(``mindspore.dataset`` with its vision, transforms and text operations) and of ``mindspore.amp`` are run only in a child
forked from lint's process, with the values the cell gives, and what MindSpore's own validators refuse there is the
finding — on APIs no planted set (tests/data/lint_values_*) calls, with their correct twins; lint's process never holds
such an object, and a pipeline is never iterated."""

from __future__ import annotations

import pytest

pytest.importorskip("mindspore")

from cell_findings import bound_cell  # noqa: E402

from npulab.lint import ms_run  # noqa: E402


def _findings(source: str) -> list[tuple[int, str, str]]:
    return ms_run.findings(*bound_cell(source))


MS = "import numpy as np\nimport mindspore as ms\nimport mindspore.dataset as ds\nfrom mindspore.dataset import vision\n"

# (planted, twin, the call MindSpore refuses in the child)
PLANTED = [
    ('op = vision.ConvertColor("BGR2RGB")', "op = vision.ConvertColor(vision.ConvertMode.COLOR_BGR2RGB)",
     "vision.ConvertColor"),
    ("scaler = ms.amp.DynamicLossScaler(1024, 0, 1000)", "scaler = ms.amp.DynamicLossScaler(1024, 2, 1000)",
     "ms.amp.DynamicLossScaler"),
    ('data = ds.PaddedDataset([{"x": np.zeros(3, np.float32)}] * 4)\ndata = data.batch(0)',
     'data = ds.PaddedDataset([{"x": np.zeros(3, np.float32)}] * 4)\ndata = data.batch(2)', "data.batch"),
]


@pytest.mark.parametrize(("planted", "twin", "written"), PLANTED, ids=[p[2] for p in PLANTED])
def test_mindspore_refuses_the_planted_call_in_the_child_and_accepts_its_twin(planted, twin, written):
    found = _findings(MS + planted)
    assert [w for _, w, _ in found] == [written], found
    assert "MindSpore" in found[0][2]
    assert _findings(MS + twin) == []


def test_the_pipeline_is_never_iterated_nor_held_in_lints_process():
    built = MS + 'data = ds.PaddedDataset([{"x": np.zeros(3, np.float32)}] * 4)\n'
    assert _findings(built + "for row in data.create_tuple_iterator():\n    print(row)\n") == []
    for tail, bound in (("", "data"), ("rows = data.get_dataset_size()\n", None)):
        interpreter = ms_run._Interpreter({})
        interpreter.run(bound_cell(built + tail)[0].body, [])
        assert isinstance(interpreter.env.get("data"), ms_run._InChild) == (bound == "data")  # a recipe, not the data
        assert "rows" not in interpreter.env  # a method that reads the pipeline is never called


def test_a_long_array_is_not_handed_to_the_child():
    cell = MS + "data = ds.NumpySlicesDataset(np.zeros(5000, np.float32), column_names=['x', 'y'])"
    assert _findings(cell) == []


def test_the_child_writes_nothing_where_lint_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # amp's rewrite writes the network's source under the working directory
    cell = MS + "from mindspore import nn\nnet = ms.amp.custom_mixed_precision(nn.Dense(3, 5), white_list=[nn.Dense])"
    assert _findings(cell) == []
    assert list(tmp_path.iterdir()) == []


def test_a_dataset_read_from_files_this_machine_lacks_is_not_the_cells_error():
    assert _findings(MS + 'data = ds.ImageFolderDataset("/data/imagenet/train", decode=True)') == []
    assert _findings(MS + 'data = ds.MindDataset(["/data/train.mindrecord"], shuffle=True)') == []
