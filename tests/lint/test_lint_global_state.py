"""lint-npu round 18 (npulab/lint/in_child.py, npulab/lint/meta_run.py): torch's global setters judged by torch in a
forked child (lint's own process keeps its state), autograd run as torch runs it on the meta graph, torch's warnings
about the arguments a cell passed, ``Tensor.type`` and torch.utils.data's constructors — on APIs no development set
(tests/data/lint_values_*, set M left out) calls, each with its correct twin. Two of them, ``torch.range`` and
``StackDataset``, are called by the blind set M, which the writer of these tests did not open (docs/DECISIONS.md,
round 18)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import torch  # noqa: E402
from cell_findings import NPU, cpu_findings  # noqa: E402

from npulab.lint import in_child  # noqa: E402

# (planted, twin, the call refused or warned about, words of the finding's message)
PLANTED = [
    ('torch.set_deterministic_debug_mode("loud")', 'torch.set_deterministic_debug_mode("warn")',
     "torch.set_deterministic_debug_mode", "子进程"),
    ('torch.manual_seed("seed")', "torch.manual_seed(1234)", "torch.manual_seed", "子进程"),
    ("x = torch.randn(4, 3, requires_grad=True).npu()\nout = x * 2\ntorch.autograd.backward(out)",
     "x = torch.randn(4, 3, requires_grad=True).npu()\nout = x * 2\ntorch.autograd.backward(out.sum())",
     "torch.autograd.backward", "scalar outputs"),
    ("x = torch.randn(5, requires_grad=True).npu()\nwith torch.no_grad():\n    y = (x * x).sum()\n"
     "g = torch.autograd.grad(y, x)",
     "x = torch.randn(5, requires_grad=True).npu()\ny = (x * x).sum()\ng = torch.autograd.grad(y, x)",
     "torch.autograd.grad", "does not require grad"),
    ("layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4)\n"
     "enc = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=True)",
     "layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4, batch_first=True)\n"
     "enc = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=True)",
     "torch.nn.TransformerEncoder", "enable_nested_tensor"),
    ("r = torch.range(0, 4)", "r = torch.arange(0, 5)", "torch.range", "deprecated"),
    ("from torch.utils.data import StackDataset, TensorDataset\na = TensorDataset(torch.randn(4, 2))\n"
     "s = StackDataset(a, TensorDataset(torch.randn(5)))",
     "from torch.utils.data import StackDataset, TensorDataset\na = TensorDataset(torch.randn(4, 2))\n"
     "s = StackDataset(a, TensorDataset(torch.randn(4)))", "StackDataset", "Size mismatch"),
    ('x = torch.ones(2, 3).npu()\ny = x.type("half")', "x = torch.ones(2, 3).npu()\ny = x.type(torch.half)",
     "x.type", "invalid type"),
]


@pytest.mark.parametrize(("planted", "twin", "written", "words"), PLANTED, ids=[w for _, _, w, _ in PLANTED])
def test_torch_refuses_or_warns_about_the_planted_call_and_not_its_twin(planted, twin, written, words):
    found = cpu_findings(NPU + planted)
    assert [w for _, w, _ in found] == [written]
    assert words in found[0][2]
    assert cpu_findings(NPU + twin) == []


def test_a_setter_leaves_lints_own_process_as_it_was():
    threads, dtype = torch.get_num_threads(), torch.get_default_dtype()
    state = torch.get_rng_state()
    source = NPU + "torch.set_num_threads(3)\ntorch.manual_seed(7)\ntorch.set_default_dtype(torch.float64)"
    assert cpu_findings(source) == []
    assert (torch.get_num_threads(), torch.get_default_dtype()) == (threads, dtype)
    assert torch.equal(torch.get_rng_state(), state)


def test_after_a_default_is_set_the_rest_of_the_cell_is_not_followed():
    """torch.set_default_device / set_default_dtype change what later calls build: the interpreter stops there."""
    assert cpu_findings(NPU + 'torch.set_default_device("cpu")\nx = torch.ones(2, 3)\ny = x.view(7)') == []
    assert cpu_findings(NPU + 'x = torch.ones(2, 3)\ny = x.view(7)')  # the same error, before any default is set


def test_a_warning_about_a_default_the_cell_did_not_choose_is_no_finding():
    layer = "layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4)\n"
    assert cpu_findings(NPU + layer + "enc = torch.nn.TransformerEncoder(layer, num_layers=2)") == []


def test_a_child_that_does_not_answer_leaves_the_call_unknown(monkeypatch):
    import time

    monkeypatch.setattr(in_child, "TIMEOUT", 0.2)
    monkeypatch.setattr(in_child, "_SLOW", set())
    assert in_child.outcome(time.sleep, (5,), {}) is None
    assert "time.sleep" in in_child._SLOW
    assert in_child.outcome(time.sleep, (0,), {}) is None  # not asked again in this process
    monkeypatch.setattr(in_child, "TIMEOUT", 30.0)  # the next child answers at once, however busy the machine
    assert in_child.outcome(int, ("x",), {})["error"] == "ValueError"


def test_a_loader_is_built_but_never_iterated():
    import multiprocessing

    cell = NPU + ("from torch.utils.data import DataLoader, TensorDataset\n"
                  "dl = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=2, num_workers=2)\n"
                  "n = sum(dl)\nm = max(dl)")
    assert cpu_findings(cell) == []
    assert multiprocessing.active_children() == []
