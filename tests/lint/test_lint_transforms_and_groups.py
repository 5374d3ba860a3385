"""lint-npu round 20 (npulab/lint/one_rank_group.py, npulab/lint/meta_run.py): torch.distributed calls judged by the
collectives themselves in a one-rank gloo group in a forked child, and torch's functional transforms (torch.func,
torch.autograd.functional, forward_ad, checkpoint) run on the meta device over a torch function or a cell's lambda —
on APIs no labelled set (tests/data/lint_values_*) calls, each with its correct twin."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from cell_findings import NPU, cpu_findings  # noqa: E402

from npulab.lint import in_child, meta_run, one_rank_group  # noqa: E402

GROUP = ('import torch.distributed as dist\n'
               'dist.init_process_group("hccl", init_method="tcp://127.0.0.1:29500", rank=0, world_size=1)\n'
               't = torch.ones(4).npu()\n')

# (planted, twin, the call refused, words of torch's message)
PLANTED = [
    (GROUP + "dist.gather(t, gather_list=[torch.empty(4).npu() for _ in range(3)], dst=0)",
     GROUP + "dist.gather(t, gather_list=[torch.empty(4).npu()], dst=0)", "dist.gather", "gather"),
    (GROUP + "dist.reduce_scatter(t, [t, t, t])", GROUP + "dist.reduce_scatter(t, [t])", "dist.reduce_scatter",
     "world size"),
    (GROUP + "dist.broadcast_object_list([1, 2], src=4)", GROUP + "dist.broadcast_object_list([1, 2], src=0)",
     "dist.broadcast_object_list", "root rank"),
    ("from torch.autograd.functional import vhp\nx = torch.randn(3).npu()\n"
     "out, g = vhp(lambda a: a.sum(), x, v=torch.ones(2).npu())",
     "from torch.autograd.functional import vhp\nx = torch.randn(3).npu()\n"
     "out, g = vhp(lambda a: a.sum(), x, v=torch.ones(3).npu())", "vhp", "v has invalid size"),
    ("from torch.func import grad_and_value\nx = torch.randn(2, 3).npu()\ng, v = grad_and_value(torch.tanh)(x)",
     "from torch.func import grad_and_value\nx = torch.randn(2, 3).npu()\n"
     "g, v = grad_and_value(lambda a: torch.tanh(a).mean())(x)", "grad_and_value(torch.tanh)", "scalar"),
    ("m = torch.nn.Conv1d(2, 2, 3).npu()\nm.register_module(\"act.fn\", torch.nn.ReLU())",
     "m = torch.nn.Conv1d(2, 2, 3).npu()\nm.register_module(\"act_fn\", torch.nn.ReLU())",
     "m.register_module", "\".\""),
]


@pytest.mark.parametrize(("planted", "twin", "written", "words"), PLANTED, ids=[w for _, _, w, _ in PLANTED])
def test_torch_refuses_the_planted_call_and_not_its_twin(planted, twin, written, words):
    found = cpu_findings(NPU + planted)
    assert [w for _, w, _ in found] == [written]
    assert words in found[0][2]
    assert cpu_findings(NPU + twin) == []


def test_a_group_of_several_processes_is_never_started():
    """Its child would wait for the other ranks: the calls stay unknown, however wrong they look."""
    cell = NPU + GROUP.replace("world_size=1", "world_size=8") + "dist.broadcast(t, src=9)"
    assert cpu_findings(cell) == []
    assert not one_rank_group.one_rank((), {"world_size": 8, "rank": 0})


def test_without_a_started_group_a_collective_stays_unknown():
    assert cpu_findings(NPU + "import torch.distributed as dist\nt = torch.ones(4).npu()\ndist.broadcast(t, src=3)") == []


def test_a_collective_whose_child_dies_or_hangs_is_unknown_and_only_it_is_not_asked_again(monkeypatch):
    monkeypatch.setattr(in_child, "TIMEOUT", 0.5)
    monkeypatch.setattr(in_child, "_SLOW", set())
    monkeypatch.setattr(in_child, "_HEARD", {})
    assert cpu_findings(NPU + GROUP + "dist.send(t, dst=1)") == []  # gloo's child crashes (torch 2.13: a segfault)
    assert in_child._SLOW == {"torch.distributed.send"}
    assert cpu_findings(NPU + GROUP + "dist.broadcast(t, src=2)")


def test_lints_own_process_starts_no_group():
    import torch.distributed as dist

    assert cpu_findings(NPU + GROUP + "dist.broadcast(t, src=2)")
    assert not dist.is_initialized()


def test_a_lambda_the_interpreter_cannot_evaluate_leaves_the_transform_unknown():
    cell = NPU + ("from torch.func import grad\nimport numpy as np\nx = torch.randn(3).npu()\n"
                  "g = grad(lambda a: np.sum(a))(x)")
    assert cpu_findings(cell) == []


def test_a_comprehension_binds_its_name_only_inside():
    cell = NPU + "i = torch.ones(2, 3)\nxs = [torch.zeros(i) for i in range(2)]\ny = i.view(7)"
    assert [w for _, w, _ in cpu_findings(cell)] == ["i.view"]


def test_torch_distributed_is_handed_out_only_to_run_in_a_child():
    """A collective is no callable here (only ``_Interpreter._collective`` runs it, in a forked child); its classes
    are not handed out, but a store class stands for a store that only the child builds (round 21)."""
    collective = meta_run.resolve("torch.distributed.all_reduce")
    assert isinstance(collective, one_rank_group.Collective) and not callable(collective)
    store = meta_run.resolve("torch.distributed.TCPStore")
    assert isinstance(store, one_rank_group.StoreClass) and not callable(store)
    for dotted in ("torch.distributed.ProcessGroup", "torch.distributed._functional_collectives"):
        with pytest.raises(meta_run._Unknown):
            meta_run.resolve(dotted)


def test_the_graph_dump_format_is_a_bar_separated_list_of_the_documented_words():
    """DUMP_GRAPH_FORMAT (CANN envref_07_0155): ge_proto, onnx, readable, in lower case, separated by |."""
    from npulab.core.paths import load_yaml
    from npulab.env.env_vars import TABLE
    from npulab.env.value_grammar import problem

    spec = load_yaml(TABLE)["values"]["DUMP_GRAPH_FORMAT"]
    assert problem("onnx|Readable", spec) and problem("onnx,readable", spec)
    assert problem("readable", spec) is None and problem("onnx|readable", spec) is None


def test_a_deprecation_torch_warns_about_inside_the_call_is_not_the_cells():
    """jacfwd imports code that warns `torch.jit.script` is deprecated: not about what the cell called (set P's twin
    of func_jacfwd_randomness_word was flagged for it); a deprecation that names the function called still counts."""
    import torch

    from npulab.lint.meta_run import _own_warning

    inside = ("DeprecationWarning", "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.")
    assert _own_warning([inside], torch.func.jacfwd, (torch.sin,), {"randomness": "different"}) is None
    own = ("UserWarning", "torch.range is deprecated and will be removed in a future release")
    assert _own_warning([own], torch.range, (0, 4), {}) == own
