"""lint-npu round 19 (npulab/lint/meta_run.py ``_raised_by_torch``): a KeyError that a ``raise`` statement of torch's
own code raises is torch's refusal (``register_parameter``: a parameter name cannot contain "."); a KeyError from a
lookup, in torch or in lint's interpreter, stays unknown. On an API no case set calls (``ParameterDict``), with its
correct twin."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from cell_findings import NPU, cpu_findings  # noqa: E402

from npulab.lint import meta_run  # noqa: E402

PLANTED = [
    ('p = torch.nn.ParameterDict({"w.0": torch.randn(3)})', 'p = torch.nn.ParameterDict({"w_0": torch.randn(3)})',
     "torch.nn.ParameterDict"),
]


@pytest.mark.parametrize(("planted", "twin", "written"), PLANTED, ids=[w for _, _, w in PLANTED])
def test_torch_raising_key_error_is_a_finding_and_its_twin_is_not(planted, twin, written):
    found = cpu_findings(NPU + planted)
    assert [w for _, w, _ in found] == [written] and '"."' in found[0][2]
    assert cpu_findings(NPU + twin) == []


def test_a_lookup_key_error_is_not_torchs_refusal():
    try:
        {}["missing"]
    except KeyError as err:
        assert not meta_run._raised_by_torch(err)
