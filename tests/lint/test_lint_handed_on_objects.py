"""lint-npu round 21 (npulab/lint/meta_run.py, cpu_values.py, one_rank_group.py, compile_options.py): optimizers and
learning-rate schedulers built over the meta parameters, a cell's own subclass of a torch.utils.data class, a
torch.distributed store standing in for the cell's, gradcheck on small CPU twins, and ``torch.compile(options=…)``
against Inductor's configuration — on APIs no labelled set (tests/data/lint_values_*) calls, each with its twin."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from cell_findings import NPU, bound_cell, cpu_findings  # noqa: E402

from npulab.core.paths import REPO_ROOT  # noqa: E402
from npulab.lint import compile_options, cpu_values, meta_run  # noqa: E402
from npulab.lint.context import Context  # noqa: E402
from npulab.pytorch.torch_npu_names import pinned_version  # noqa: E402

OPT = "model = torch.nn.Linear(4, 2).npu()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
PAIRS = "from torch.utils.data import DataLoader, Sampler\nclass Pairs(Sampler):\n    def __iter__(self):\n" \
        "        return iter([[0, 1], [2, 3]])\n"

# (planted, twin, the call refused, words of torch's message)
PLANTED = [
    (OPT + "sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], last_epoch=3)",
     OPT + "sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4])",
     "torch.optim.lr_scheduler.MultiStepLR", "initial_lr"),
    (PAIRS + "loader = DataLoader(list(range(4)), batch_size=2, batch_sampler=Pairs())",
     PAIRS + "loader = DataLoader(list(range(4)), batch_sampler=Pairs())", "DataLoader", "mutually exclusive"),
    ("import torch.distributed as dist\nstore = dist.HashStore()\n"
     "dist.init_process_group(\"hccl\", init_method=\"env://\", store=store, rank=0, world_size=1)",
     "import torch.distributed as dist\nstore = dist.HashStore()\n"
     "dist.init_process_group(\"hccl\", store=store, rank=0, world_size=1)",
     "dist.init_process_group", "init_method and store"),
    ("from torch.autograd import gradgradcheck\nx = torch.randn(4, requires_grad=True)\n"
     "ok = gradgradcheck(torch.tanh, (x,), eps=1e-6, atol=1e-5)",
     "from torch.autograd import gradgradcheck\nx = torch.randn(4, dtype=torch.float64, requires_grad=True)\n"
     "ok = gradgradcheck(torch.tanh, (x,), eps=1e-6, atol=1e-5)", "gradgradcheck", "mismatch"),
]


@pytest.mark.parametrize(("planted", "twin", "written", "words"), PLANTED, ids=[w for _, _, w, _ in PLANTED])
def test_torch_refuses_the_planted_call_and_not_its_twin(planted, twin, written, words):
    found = cpu_findings(NPU + planted)
    assert [w for _, w, _ in found] == [written], found
    assert words in found[0][2]
    assert cpu_findings(NPU + twin) == []


def test_a_cell_class_method_is_not_run_and_leaves_the_call_unknown():
    """``RandomSampler`` asks the dataset's ``__len__``: the cell's body is never run, so a wrong size stays unknown."""
    cell = NPU + ("from torch.utils.data import DataLoader, Dataset\nclass Rows(Dataset):\n    def __len__(self):\n"
                  "        return -1\nloader = DataLoader(Rows(), batch_size=2, shuffle=True)")
    assert cpu_findings(cell) == []
    tree, _ = bound_cell("class C(object):\n    x = 1")
    with pytest.raises(meta_run._Unknown):  # a class over a base other than torch.utils.data's, or with data
        meta_run.cell_class(tree.body[0], [object])
    from torch.utils.data import Dataset

    tree, _ = bound_cell("class D(Dataset):\n    def __len__(self, n=x.add_(1)):\n        return n")
    with pytest.raises(meta_run._Unknown):  # a default that runs code when the class is defined
        meta_run.cell_class(tree.body[0], [Dataset])


def test_an_optimizer_is_handed_on_but_never_stepped():
    assert cpu_findings(NPU + OPT + "opt.step()\nopt.param_groups[0]['lr'] = -1") == []


def test_a_call_handed_a_function_runs_only_on_small_twins():
    """gradcheck on 400 float32 elements would build a 400 × 400 Jacobian: the twins are not asked, nothing is found."""
    cell = NPU + "from torch.autograd import gradcheck\nx = torch.randn(400, requires_grad=True)\n" \
                 "ok = gradcheck(torch.sin, (x,), eps=1e-6, atol=1e-4)"
    assert 400 > cpu_values.MAX_TRANSFORMED and cpu_findings(cell) == []


@pytest.fixture(scope="module")
def sources():
    return Context(pinned_version(REPO_ROOT / "requirements-npu.txt")).sources


@pytest.mark.parametrize(("options", "words"), [('{"triton.cudagraph": True}', "triton.cudagraphs"),
                                                ('{"coordinate_descent_tuning": 1}', "bool")])
def test_compile_options_are_judged_as_torch_applies_them(sources, options, words):
    tree, imported = bound_cell(NPU + f"net = torch.compile(model, options={options})")
    found = compile_options.findings(tree, imported, sources)
    assert len(found) == 1 and words in found[0][2]


@pytest.mark.parametrize("options", ['{"triton.cudagraphs": True, "coordinate-descent-tuning": True}',
                                     '{"coordinate_descent_tuning": flag}', "opts"])
def test_known_options_and_unknown_values_are_not_flagged(sources, options):
    tree, imported = bound_cell(NPU + f"net = torch.compile(model, options={options})")
    assert compile_options.findings(tree, imported, sources) == []


@pytest.mark.parametrize(("planted", "twin", "words"), [
    ('dev = torch.device("npu:one")', 'dev = torch.device("npu:1")', "Invalid device string: 'npu:one'"),
    ('dev = torch.device("npu", -1)', 'dev = torch.device("npu", 1)', "must not be negative"),
    ('dev = torch.device(type="npu:1", index=1)', 'dev = torch.device(type="npu", index=1)', "npu:1"),
])
def test_torch_device_parses_the_cells_type_string_with_npu_read_as_cpu(planted, twin, words):
    found = cpu_findings(NPU + planted)
    assert [w for _, w, _ in found] == ["torch.device"] and words in found[0][2]
    assert cpu_findings(NPU + twin) == []


def test_a_device_index_without_an_accelerator_is_not_the_cells_error():
    assert cpu_findings(NPU + "dev = torch.device(0)") == []
