"""lint-npu round 10 (npulab/lint/meta_run.py): an npu cell's straight-line torch code runs on the meta device, and
torch's own shape, dtype and type checks report what they refuse — on APIs no planted set (tests/data/lint_values_*)
calls, with their correct twins; what is outside the whitelist is never run; data-dependent results and kernels
without a meta implementation are unknown, never a finding."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from cell_findings import bound_cell  # noqa: E402

from npulab.lint import meta_run  # noqa: E402


def _findings(source: str) -> list[tuple[int, str, str]]:
    return meta_run.findings(*bound_cell(source))


NPU = "import torch\nimport torch_npu\nimport torch.nn as nn\nimport torch.nn.functional as F\n"

# (planted, twin, the call torch refuses): shapes, dtypes and types, each on a tensor the cell built on the NPU
PLANTED = [
    ("x = torch.randn(4, 2).npu()\ny = torch.cross(x, x, dim=1)",
     "x = torch.randn(4, 3).npu()\ny = torch.cross(x, x, dim=1)", "torch.cross"),
    ("x = torch.randn(4, device='npu:0')\ny = x.expand(3, 5)",
     "x = torch.randn(4, device='npu:0')\ny = x.expand(3, 4)", "x.expand"),
    ("a = torch.randn(3, 4).to('npu')\nb = torch.randn(5, 6).to('npu')\nc = torch.tensordot(a, b, dims=1)",
     "a = torch.randn(3, 4).to('npu')\nb = torch.randn(4, 6).to('npu')\nc = torch.tensordot(a, b, dims=1)",
     "torch.tensordot"),
    ("x = torch.randn(2, 3).npu()\ny = x.movedim(0, 4)", "x = torch.randn(2, 3).npu()\ny = x.movedim(0, 1)",
     "x.movedim"),
    ("x = torch.randn(3).npu()\ny = torch.diag_embed(x, dim1=0, dim2=0)",
     "x = torch.randn(3).npu()\ny = torch.diag_embed(x, dim1=0, dim2=1)", "torch.diag_embed"),
    ("mask = torch.ones((2, '3'), device='npu')", "mask = torch.ones((2, 3), device='npu')", "torch.ones"),
    ("proj = nn.Sequential(nn.Linear(64, 32), nn.ReLU()).npu()\nh = torch.randn(8, 48).npu()\nout = proj(h)",
     "proj = nn.Sequential(nn.Linear(64, 32), nn.ReLU()).npu()\nh = torch.randn(8, 64).npu()\nout = proj(h)",
     "proj"),
]


@pytest.mark.parametrize(("planted", "twin", "written"), PLANTED, ids=[w for _, _, w in PLANTED])
def test_torch_refuses_the_planted_call_and_accepts_its_twin(planted, twin, written):
    found = _findings(NPU + planted)
    assert [w for _, w, _ in found] == [written]
    line, _, message = found[0]
    assert line == (NPU + planted).count("\n") + 1  # the last line: the call itself
    import torch

    assert f"torch {torch.__version__.split('+')[0]} 的 meta 内核" in message
    assert _findings(NPU + twin) == []


def test_message_quotes_the_first_line_of_torch_message():
    (_, _, message), = _findings(NPU + "x = torch.randn(4, 2).npu()\ny = torch.cross(x, x, dim=1)")
    assert "RuntimeError: linalg.cross: inputs dimension 1 must have length 3" in message


def test_nothing_outside_the_whitelist_runs(tmp_path):
    sentinel = tmp_path / "ran"
    cell = (NPU + "import os\nimport subprocess\n"
            f"os.system('touch {sentinel}')\n"
            f"subprocess.run(['touch', '{sentinel}'])\n"
            f"def build(t):\n    open('{sentinel}', 'w').write('x')\n    return t\n"
            "x = build(torch.randn(16).npu())\n"
            f"torch.save(torch.randn(2), '{sentinel}')\n"
            f"y = torch.load('{sentinel}')\n"
            f"z = (lambda: open('{sentinel}', 'w'))()\n"
            "x.view(3, 5)\n")
    assert _findings(cell) == []  # x comes from a user function: unknown
    assert not sentinel.exists()


def test_global_state_is_left_alone():
    import torch

    before = torch.get_default_dtype()
    _findings(NPU + "torch.set_default_dtype(torch.float64)\ntorch.manual_seed(0)\nx = torch.randn(2)")
    assert torch.get_default_dtype() is before


def test_a_value_handed_to_a_call_not_run_is_unknown_afterwards():
    cell = NPU + "x = torch.randn(16).npu()\nreshape_in_place(x)\ny = x.view(3, 5)"
    assert _findings(cell) == []
    cell = NPU + "for _ in range(2):\n    x = torch.randn(4).npu()\ny = x.view(3)"
    assert _findings(cell) == []
    cell = NPU + "x = torch.randn(4).npu()\nif True:\n    x = x.unsqueeze(0)\ny = x.view(3)"
    assert _findings(cell) == []


@pytest.mark.parametrize("cell", [
    "x = torch.randn(6).npu()\nn = int(x.sum().item())\ny = x.view(n, 4)",
    "x = torch.randn(6).npu()\ny = x[x > 0].view(7)",
    "x = torch.randn(6).npu()\nidx = torch.nonzero(x)\ny = idx.view(5)",
    "x = torch.randn(6).npu()\nrows = x.tolist()\ny = torch.zeros(len(rows) + 1, 5).view(6, 5)",
    "x = torch.randn(6).npu()\nprint(x.sum())\nprint(x)",
], ids=["item", "mask", "nonzero", "tolist", "print"])
def test_data_dependent_results_are_unknown(cell):
    assert _findings(NPU + cell) == []


def test_a_kernel_without_meta_implementation_is_not_the_user_error():
    cell = NPU + "x = torch.tensor([1, 2, 2, 5]).npu()\nu = torch.unique(x)\nc = torch.bincount(x)\nh = F.one_hot(x)"
    assert _findings(cell) == []


def test_an_error_inside_print_and_no_grad_is_still_torch_error():
    found = _findings(NPU + "x = torch.randn(4).npu()\nwith torch.no_grad():\n    print(x.expand(3, 5))")
    assert [w for _, w, _ in found] == ["x.expand"]


def test_the_statement_budget_bounds_a_cell():
    cell = NPU + "x = torch.randn(4).npu()\n" + "y = x + 1\n" * (meta_run.MAX_STATEMENTS + 5) + "z = x.expand(3, 5)"
    assert _findings(cell) == []


def test_a_cell_without_torch_costs_nothing():
    assert _findings("import numpy as np\nx = np.zeros((2, 3))\nx.reshape(4)") == []


def test_any_device_the_cell_names_is_the_meta_device():
    cell = NPU + ("rank = int(os.environ['RANK'])\nx = torch.randn(16, device=f'npu:{rank}')\n"
                  "w = torch.randn(4, 4).npu(rank)\ny = x.view(3, 5)")
    assert [w for _, w, _ in _findings(cell)] == ["x.view"]


@pytest.mark.parametrize("dotted", ["torch.save", "torch.load", "torch.fork", "torch.import_ir_module",
                                    "torch.get_file_path", "torch.hub.load", "torch.compile", "torch.cuda.synchronize",
                                    "torch.nn.DataParallel", "torch.nn.utils.clip_grad_norm_", "torch.Tensor",
                                    "torch.utils.data.random_split",
                                    "torch.autograd.Function"])
def test_the_whitelist_refuses_io_global_state_and_other_processes(dotted):
    with pytest.raises(meta_run._Unknown):
        meta_run.resolve(dotted)


@pytest.mark.parametrize("dotted", ["torch.manual_seed", "torch.set_default_dtype", "torch.use_deterministic_algorithms"])
def test_a_global_setter_is_handed_out_only_to_run_in_a_child(dotted):
    """A setter is no callable here: only ``_Interpreter._set`` runs it, in a forked child (npulab.lint.in_child)."""
    setter = meta_run.resolve(dotted)
    assert isinstance(setter, meta_run._Setter) and not callable(setter)


def test_the_whitelist_hands_out_torch_ops_and_module_classes():
    import torch

    assert meta_run.resolve("torch.nn.functional.one_hot") is torch.nn.functional.one_hot
    assert meta_run.resolve("torch.nn.Linear") is torch.nn.Linear


# Round 23: torch's enumeration values as arguments, quantization observers built as torch modules, a warning that
# quotes the size of a tensor the cell passed; APIs no labelled set uses
ROUND_23 = [
    ("x = torch.randn(2, 3, 4, 5).npu()\ny = torch.empty_like(x, memory_format=torch.channels_last_3d)",
     "x = torch.randn(2, 3, 4, 5, 6).npu()\ny = torch.empty_like(x, memory_format=torch.channels_last_3d)",
     "torch.empty_like", "required rank 5"),
    ("from torch.ao.quantization.observer import HistogramObserver\nobs = HistogramObserver(qscheme=torch.per_channel_affine)",
     "from torch.ao.quantization.observer import HistogramObserver\nobs = HistogramObserver(qscheme=torch.per_tensor_affine)",
     "HistogramObserver", "qscheme only support"),
]


@pytest.mark.parametrize(("planted", "twin", "written", "words"), ROUND_23, ids=[r[2] for r in ROUND_23])
def test_enumerations_and_observers_reach_torch(planted, twin, written, words):
    found = _findings(NPU + planted)
    assert [w for _, w, _ in found] == [written] and words in found[0][2]
    assert _findings(NPU + twin) == []


def test_a_warning_that_quotes_a_size_the_cell_passed_is_its_own():
    import torch

    x = torch.empty(16, 1, device="meta")
    said = "Using a target size (torch.Size([16])) that is different to the input size (torch.Size([16, 1]))."
    assert meta_run._own_warning([("UserWarning", said)], torch.add, (x, torch.empty(16, device="meta")), {})
    assert meta_run._own_warning([("UserWarning", said)], torch.add, (torch.empty(4, device="meta"),), {}) is None
