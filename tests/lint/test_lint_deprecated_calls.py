"""lint-npu round 17 (npulab/lint/deprecated_calls.py): a call of a torch callable that the pinned torch marks
deprecated — by PEP 702's ``__deprecated__`` or by a sentence of its own docstring whose subject is the callable —
is reported with torch's words; a callable whose docstring deprecates only a behaviour or a parameter is not. On
callables no planted set (tests/data/lint_values_*) calls."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from cell_findings import bound_cell  # noqa: E402

from npulab.lint import deprecated_calls  # noqa: E402


def _findings(source: str) -> list[tuple[int, str, str]]:
    return deprecated_calls.findings(*bound_cell(source))


NPU = "import torch\nimport torch_npu\nimport torch.nn.functional as F\n"

PLANTED = [
    ("a = torch.randn(3).npu()\nm = torch.ger(a, a)", "a = torch.randn(3).npu()\nm = torch.outer(a, a)", "torch.ger",
     "This function is deprecated"),
    ("a = torch.randn(4, 3).npu()\nu, s, v = torch.svd(a)", "a = torch.randn(4, 3).npu()\nu, s, vh = torch.linalg.svd(a)",
     "torch.svd", "torch.svd is deprecated in favor of torch.linalg.svd"),
    ("x = torch.randn(1, 3, 8, 8).npu()\ny = F.upsample(x, scale_factor=2)",
     "x = torch.randn(1, 3, 8, 8).npu()\ny = F.interpolate(x, scale_factor=2)", "F.upsample",
     "This function is deprecated in favor of torch.nn.functional.interpolate"),
    ("scaler = torch.cuda.amp.GradScaler()", "scaler = torch.amp.GradScaler('npu')", "torch.cuda.amp.GradScaler",
     "is deprecated"),
]


@pytest.mark.parametrize(("planted", "twin", "written", "said"), PLANTED, ids=[w for _, _, w, _ in PLANTED])
def test_a_deprecated_callable_is_reported_with_torchs_words(planted, twin, written, said):
    found = _findings(NPU + planted)
    assert [w for _, w, _ in found] == [written]
    assert said in found[0][2] and "已弃用" in found[0][2]
    assert _findings(NPU + twin) == []


def test_a_deprecated_behaviour_or_parameter_is_not_the_callable():
    # torch.cross: "This behavior is deprecated" (its default dim); torch.stft: return_complex=False is deprecated;
    # spectral_norm: "will be deprecated in a future version"
    source = NPU + ("a = torch.randn(4, 3).npu()\nc = torch.cross(a, a, dim=1)\n"
                    "s = torch.stft(torch.randn(400), 64, return_complex=True)\n"
                    "n = torch.nn.utils.spectral_norm(torch.nn.Linear(8, 4))")
    assert _findings(source) == []


def test_the_function_a_deprecated_alias_wraps_is_not_deprecated():
    # torch/accelerator/__init__.py: current_device_idx = deprecated("Use `current_device_index` instead.")(…index)
    # marks current_device_index itself with __deprecated__ too
    assert _findings(NPU + "i = torch.accelerator.current_device_index()") == []
    assert [w for _, w, _ in _findings(NPU + "i = torch.accelerator.current_device_idx()")] == \
        ["torch.accelerator.current_device_idx"]
