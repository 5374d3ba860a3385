"""lint-npu round 11 (npulab/lint/ms_run.py): an npu cell's straight-line MindSpore code runs on the CPU in PyNative
mode on the small tensors it builds, and MindSpore's own validators and shape inference report what they refuse — on
APIs no planted set (tests/data/lint_values_*) calls, with their correct twins; what is outside the whitelist is never
run; sizes beyond the limit are never built; data-dependent results are unknown, never a finding."""

from __future__ import annotations

import pytest

pytest.importorskip("mindspore")

from cell_findings import bound_cell  # noqa: E402

from npulab.lint import ms_run  # noqa: E402


def _findings(source: str) -> list[tuple[int, str, str]]:
    return ms_run.findings(*bound_cell(source))


MS = "import numpy as np\nimport mindspore as ms\nfrom mindspore import nn, ops, Tensor\n"

# (planted, twin, the call MindSpore refuses): axes, shapes, types and value relations
PLANTED = [
    ("x = Tensor(np.ones((2, 3), np.float32))\ny = ops.expand_dims(x, 4)",
     "x = Tensor(np.ones((2, 3), np.float32))\ny = ops.expand_dims(x, 2)", "ops.expand_dims"),
    ("x = Tensor(np.zeros((4, 5)).astype(np.float32))\ny = ops.transpose(x, (0, 2))",
     "x = Tensor(np.zeros((4, 5)).astype(np.float32))\ny = ops.transpose(x, (1, 0))", "ops.transpose"),
    ("x = Tensor(np.random.randn(3, 4).astype(np.float32))\ny = ops.broadcast_to(x, (2, 3, 5))",
     "x = Tensor(np.random.randn(3, 4).astype(np.float32))\ny = ops.broadcast_to(x, (2, 3, 4))",
     "ops.broadcast_to"),
    ("x = Tensor(np.ones((2, 6), np.float32))\ni = Tensor(np.array([0, 1]), ms.int32)\n"
     "y = ops.index_select(x, 3, i)",
     "x = Tensor(np.ones((2, 6), np.float32))\ni = Tensor(np.array([0, 1]), ms.int32)\n"
     "y = ops.index_select(x, 1, i)", "ops.index_select"),
    ("x = Tensor(np.ones((2, 6), np.float32))\ny = ops.argmax(x, 3)",
     "x = Tensor(np.ones((2, 6), np.float32))\ny = ops.argmax(x, 1)", "ops.argmax"),
    ("x = Tensor(np.ones((2, 6), np.float32))\nm = Tensor(np.ones((3, 3), np.bool_))\ny = ops.masked_fill(x, m, 0.0)",
     "x = Tensor(np.ones((2, 6), np.float32))\nm = Tensor(np.ones((2, 6), np.bool_))\ny = ops.masked_fill(x, m, 0.0)",
     "ops.masked_fill"),
]


@pytest.mark.parametrize(("planted", "twin", "written"), PLANTED, ids=[p[2] for p in PLANTED])
def test_mindspore_refuses_the_planted_call_and_accepts_its_twin(planted, twin, written):
    found = _findings(MS + planted)
    assert [w for _line, w, _message in found] == [written]
    assert "MindSpore" in found[0][2]
    assert _findings(MS + twin) == []


def test_a_layer_is_built_and_called():
    planted = "layer = nn.PReLU(channel=3)\nx = Tensor(np.ones((2, 4, 5), np.float32))\ny = layer(x)"
    twin = planted.replace("channel=3", "channel=4")
    assert [w for _line, w, _m in _findings(MS + planted)] == ["layer"]
    assert _findings(MS + twin) == []


def test_outside_the_whitelist_nothing_runs(tmp_path):
    sentinel = tmp_path / "ran"
    source = MS + (
        f"import os\nos.system('touch {sentinel}')\n"
        f"np.save('{sentinel}', np.ones(2))\n"
        f"ms.save_checkpoint([], '{sentinel}')\n"
        "def f(t):\n    return ops.expand_dims(t, 9)\n"
        "x = Tensor(np.ones((2, 3), np.float32))\ny = f(x)\n"
        "for i in range(2):\n    z = ops.expand_dims(x, 9)\n")
    assert _findings(source) == []
    assert not sentinel.exists() and not (tmp_path / "ran.npy").exists()


def test_a_kernel_the_cpu_build_lacks_is_not_the_users_error():
    # ops.roll has no CPU kernel in the wheel ("The kernel Roll unregistered"): unknown, whatever its arguments
    assert _findings(MS + "x = Tensor(np.ones((2, 6), np.float32))\ny = ops.roll(x, 1, dims=5)") == []


def test_no_large_size_is_built():
    source = MS + "x = np.ones((100000, 100000), np.float32)\ny = ops.expand_dims(Tensor(x), 9)\n" \
        "z = ops.tile(Tensor(np.ones((2, 2), np.float32)), (100000, 100000))"
    assert _findings(source) == []


def test_data_dependent_results_are_unknown():
    source = MS + "x = Tensor(np.ones((2, 3), np.float32))\nn = x.asnumpy()\ny = ops.expand_dims(x, int(n[0, 0]) + 8)"
    assert _findings(source) == []


def test_a_name_a_skipped_call_handed_on_is_unknown():
    source = MS + "x = Tensor(np.ones((2, 3), np.float32))\nhelper(x)\ny = ops.expand_dims(x, 4)"
    assert _findings(source) == []


def test_a_cell_without_mindspore_is_not_run():
    assert _findings("import numpy as np\nx = np.ones((2, 3))\ny = np.expand_dims(x, 9)") == []


def test_mint_functions_wrapped_for_graph_mode_are_run():
    # mint.reshape lives in mindspore.graph._check_supported._check_jit_view_unsupported_api: a wrapper, not jit
    planted = MS + "from mindspore import mint\nx = Tensor(np.ones((2, 3), np.float32))\ny = mint.reshape(x, (4, 4))"
    assert [w for _line, w, _m in _findings(planted)] == ["mint.reshape"]
    assert _findings(planted.replace("(4, 4)", "(3, 2)")) == []


def test_a_primitive_built_with_its_attributes_is_called_later():
    """Round 23: the primitive object is kept, so the call that hands its attribute to the kernel is made."""
    planted = "reduce_max = ops.ReduceMax(keep_dims=\"yes\")\ny = reduce_max(Tensor(np.ones((2, 3), np.float32)), 1)"
    twin = planted.replace("\"yes\"", "True")
    assert [w for _line, w, _m in _findings(MS + planted)] == ["reduce_max"]
    assert _findings(MS + twin) == []


def test_a_dataset_transform_is_built_and_a_host_file_is_not_the_cells_error():
    """Round 23: the transforms' classes are built so their validators judge; a file they name is the host's."""
    text = "import mindspore.dataset.text as text\n"
    planted = text + "tokenize = text.UnicodeCharTokenizer(with_offsets=\"yes\")"
    found = _findings(MS + planted)
    assert [w for _line, w, _m in found] == ["text.UnicodeCharTokenizer"]
    assert _findings(MS + planted.replace("\"yes\"", "True")) == []
    assert _findings(MS + text + "tok = text.JiebaTokenizer(\"/no/such/hmm.utf8\", \"/no/such/mp.utf8\")") == []
