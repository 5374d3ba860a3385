"""Mechanics of `make record-npu`, exercised with a plain-Python stand-in for an NPU cell."""

import nbformat
from nbformat.v4 import new_code_cell, new_notebook

from npulab.course import record

STAMP = {"device": "Ascend910B3", "driver": "24.1.0.3", "cann": "8.0.1", "torch": "2.1.0",
         "torch_npu": "2.1.0.post13", "date": "2026-11-29"}


def _notebook(tmp_path):
    nb = new_notebook(cells=[
        new_code_cell("x = 21"),
        new_code_cell("print('from the device cell', x * 2)", metadata={"tags": ["npu", "skip-execution"]}),
        new_code_cell("print('ordinary cell')"),
    ])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_record_runs_npu_cells_and_keeps_only_their_outputs(tmp_path):
    path = _notebook(tmp_path)
    assert record.record(path, STAMP) == 1
    nb = nbformat.read(str(path), as_version=4)
    first, device_cell, last = nb.cells
    assert first.outputs == [] and first.execution_count is None
    assert last.outputs == [] and last.execution_count is None
    assert device_cell.outputs[0]["text"] == "from the device cell 42\n"  # ran, despite skip-execution
    assert device_cell.execution_count is not None  # nbval refuses stored outputs without a count
    assert device_cell.metadata[record.RECORD_KEY] is True
    stamp = dict(nb.metadata["course"][record.RECORD_KEY])
    assert stamp.pop("seconds") >= 0  # the NPU run time, for the workshop agenda
    assert stamp == STAMP


def test_notebook_without_npu_cells_is_left_alone(tmp_path):
    path = tmp_path / "plain.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("1")]), str(path))
    before = path.read_bytes()
    assert record.record(path, STAMP, execute=lambda *_: (_ for _ in ()).throw(AssertionError("executed"))) == 0
    assert path.read_bytes() == before
