"""lint-npu round 17 (npulab/lint/cpu_values.py): beside the meta run, small tensors and modules get CPU twins with the
values the cell gives them, and torch's own CPU kernels judge the checks that need values — on APIs no planted set
(tests/data/lint_values_*) calls, with their correct twins; large tensors get no twin; the process's random state is
left as it was; a dtype the CPU build does not implement is not the user's error."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from cell_findings import NPU, cpu_findings  # noqa: E402

from npulab.lint import meta_run  # noqa: E402

# (planted, twin, the call torch's CPU kernel or the distribution's own validation refuses)
PLANTED = [
    ("d = torch.distributions.Pareto(torch.tensor([-1.0]).npu(), torch.tensor([2.0]).npu())",
     "d = torch.distributions.Pareto(torch.tensor([1.0]).npu(), torch.tensor([2.0]).npu())",
     "torch.distributions.Pareto"),
    ("from torch.distributions import HalfNormal\nd = HalfNormal(torch.zeros(3).npu())",
     "from torch.distributions import HalfNormal\nd = HalfNormal(torch.ones(3).npu())", "HalfNormal"),
    ("x = torch.arange(4).npu()\nr = torch.repeat_interleave(x, torch.tensor([1, 2, -1, 1]).npu())",
     "x = torch.arange(4).npu()\nr = torch.repeat_interleave(x, torch.tensor([1, 2, 0, 1]).npu())",
     "torch.repeat_interleave"),
    ("x = torch.randn(4, 3).npu()\ny = x.index_select(0, torch.tensor([0, 9]).npu())",
     "x = torch.randn(4, 3).npu()\ny = x.index_select(0, torch.tensor([0, 3]).npu())", "x.index_select"),
]


@pytest.mark.parametrize(("planted", "twin", "written"), PLANTED, ids=[w for _, _, w in PLANTED])
def test_torch_refuses_the_planted_values_and_accepts_its_twin(planted, twin, written):
    found = cpu_findings(NPU + planted)
    assert [w for _, w, _ in found] == [written]
    assert "在 CPU 上拒绝了它" in found[0][2]
    assert cpu_findings(NPU + twin) == []


def test_meta_findings_keep_their_own_message():
    (_, _, message), = cpu_findings(NPU + "x = torch.randn(4, 2).npu()\ny = torch.cross(x, x, dim=1)")
    assert "meta 内核" in message and "CPU 上" not in message


def test_a_large_tensor_gets_no_twin():
    source = NPU + "x = torch.zeros(512, 512, dtype=torch.int64).npu() - 1\ny = torch.bincount(x.flatten())"
    assert cpu_findings(source) == []
    small = NPU + "x = torch.zeros(8, 8, dtype=torch.int64).npu() - 1\ny = torch.bincount(x.flatten())"
    assert [w for _, w, _ in cpu_findings(small)] == ["torch.bincount"]


def test_a_call_the_twins_did_not_follow_forgets_what_it_was_given():
    # add_ of a tensor too large for a twin may change x in place: x's twin (all -1) no longer holds x's values
    source = NPU + ("x = torch.zeros(4, dtype=torch.int64).npu() - 1\nbig = torch.ones(512, 512, dtype=torch.int64)\n"
                    "x.add_(big[0, :4])\ny = torch.bincount(x)")
    assert cpu_findings(source) == []


def test_random_state_is_left_as_it_was():
    import torch

    state = torch.get_rng_state()
    cpu_findings(NPU + "x = torch.randn(3, 4).npu()\ny = torch.multinomial(torch.rand(4).npu(), 8)")
    assert torch.equal(state, torch.get_rng_state())


def test_a_dtype_the_cpu_build_lacks_is_not_the_users_error():
    # the CPU kernels of torch 2.13 implement most half-precision operators; any "not implemented for" says nothing
    assert meta_run._NOT_THE_USER.search("\"addmm_impl_cpu_\" not implemented for 'Half'")
