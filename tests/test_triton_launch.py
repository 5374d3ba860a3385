"""The Ascend launch checker (npulab.kernels.triton_launch) and the decision table (npulab.kernels.kernel_paths)."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npulab.core.provenance import reported
from npulab.kernels import kernel_paths
from npulab.kernels import triton_launch as tl_
from npulab.kernels.ascendc.platform import Platform, ascend910b3


def test_target_reuses_the_ascend_c_platform_data():
    t = tl_.ascend910b3_target()
    assert t.platform == ascend910b3()
    assert (t.platform.vector_cores, t.cube_cores, t.platform.ub_bytes) == (40, 20, 196608)
    assert t.coredim_max == reported("triton_ascend.coredim_max").value == 65535
    assert t.cv_align_bytes == 512 and t.platform.block_bytes == reported("triton_ascend.vector_align_bytes").value
    assert t.cores_for("vector") == 40 and t.cores_for("cube") == t.cores_for("cube+vector") == 20


def test_gpu_style_softmax_grid_is_flagged_and_the_rewrite_is_clean():
    gpu = tl_.check_launch(tl_.softmax_launch(4096, 1000, "float32"))
    assert gpu.ok and gpu.codes() == {"rounds"}
    assert (gpu.programs, gpu.cores, gpu.rounds, gpu.suggested_programs) == (4096, 40, 103, 40)
    npu = tl_.check_launch(tl_.softmax_launch(4096, 1000, "float32", programs=gpu.suggested_programs))
    assert npu.ok and npu.findings == [] and npu.rounds == 1
    assert "没有发现问题" in npu.describe() and "103 轮" in gpu.describe()


def test_matmul_counts_cube_cores_not_vector_cores():
    r = tl_.check_launch(tl_.matmul_launch(1024, 1024, 1024))
    assert (r.programs, r.cores, r.rounds, r.suggested_programs) == (1024, 20, 52, 20)
    assert r.ub_bytes == 0  # tl.dot operands go to the Cube side, not the Unified Buffer


def test_coredim_limit_is_an_error():
    r = tl_.check_launch(tl_.vector_add_launch(2**30, 1024))
    assert not r.ok and "coredim" in r.codes()
    assert tl_.check_launch(tl_.vector_add_launch(65535 * 1024, 1024)).ok  # exactly at the limit


def test_unified_buffer_overflow_and_the_multibuffer_half():
    too_wide = tl_.check_launch(tl_.softmax_launch(8, 50_000, "float32", programs=8))  # block 65536 floats
    assert not too_wide.ok and "ub-overflow" in too_wide.codes()
    # 3 tiles x 16384 float32 = 192 KiB: fits once, not twice (default double buffering)
    half = tl_.check_launch(tl_.vector_add_launch(16384 * 40, 16384))
    assert half.ok and "ub-multibuffer" in half.codes() and half.ub_bytes == 2 * 196608
    single = tl_.Launch("add", (40,), "vector", half.launch.tiles, multibuffer=False)
    assert "ub-multibuffer" not in tl_.check_launch(single).codes()


def test_alignment_and_cube_rules():
    odd = tl_.Launch("k", (40,), "vector", (tl_.Tile("x", (100,), "float16"),))  # 200 bytes
    assert "tail-align" in tl_.check_launch(odd).codes()
    aligned = tl_.Launch("k", (40,), "vector", (tl_.Tile("x", (96,), "float16"),))  # 192 bytes = 6 x 32
    assert "tail-align" not in tl_.check_launch(aligned).codes()
    cv = tl_.Launch("k", (20,), "cube+vector", (tl_.Tile("s", (64, 96), "float16"),), (64, 64, 64))
    assert "tail-align" in tl_.check_launch(cv).codes()  # 192 bytes is fine for Vector, not 512-byte CV alignment
    odd_dot = tl_.Launch("mm", (20,), "cube", dot=(24, 32, 32))
    assert "cube-edge" in tl_.check_launch(odd_dot).codes()
    big = tl_.Launch("mm", (20,), "cube", dot=(256, 256, 512))
    assert {"l1", "l0c"} <= tl_.check_launch(big).codes()


def test_idle_cores_and_two_dimensional_grids():
    r = tl_.check_launch(tl_.matmul_launch(100, 70, 90, programs=2))
    assert "idle-cores" in r.codes() and r.suggested_programs == 12
    assert "idle-cores" not in tl_.check_launch(tl_.matmul_launch(32, 32, 32)).codes()  # one tile: nothing to share
    grid2 = tl_.Launch("k", (8, 5), "vector", (tl_.Tile("x", (64,)),))
    assert "grid-2d" in tl_.check_launch(grid2).codes() and tl_.check_launch(grid2).programs == 40


def test_a_made_up_chip():
    small = dataclasses.replace(tl_.ascend910b3_target(), platform=Platform("Toy", 4096, 32, 4), cube_cores=2)
    r = tl_.check_launch(tl_.softmax_launch(16, 1000, "float32", programs=4), small)
    assert not r.ok and "ub-overflow" in r.codes() and r.cores == 4


@settings(max_examples=60, deadline=None)
@given(n_rows=st.integers(1, 10**6), n_cols=st.integers(1, 4096), programs=st.one_of(st.none(), st.integers(1, 10**5)))
def test_rounds_and_suggestions_are_consistent(n_rows, n_cols, programs):
    r = tl_.check_launch(tl_.softmax_launch(n_rows, n_cols, "float16", programs=programs))
    assert r.rounds == -(-r.programs // 40) and r.rounds >= 1
    assert ("rounds" in r.codes()) == (r.programs > 40)
    assert ("coredim" in r.codes()) == (r.programs > 65535)
    if r.suggested_programs is not None:
        assert 1 <= r.suggested_programs <= 40
        fixed = tl_.check_launch(tl_.softmax_launch(n_rows, n_cols, "float16", programs=r.suggested_programs))
        assert not {"rounds", "coredim", "idle-cores"} & fixed.codes()


@pytest.mark.parametrize("make, words", [
    (lambda: tl_.Launch("k", ()), "grid"),
    (lambda: tl_.Launch("k", (0,)), "grid"),
    (lambda: tl_.Launch("k", (1, 1, 1, 1)), "grid"),
    (lambda: tl_.Launch("k", (4,), "matrix"), "kind"),
    (lambda: tl_.Launch("k", (4,), "cube"), "dot"),
    (lambda: tl_.Launch("k", (4,), "vector", dot=(16, 16, 16)), "dot"),
    (lambda: tl_.Tile("x", (0,)), "正整数"),
    (lambda: tl_.Tile("x", (8,), "float128"), "数据类型"),
])
def test_bad_descriptions_are_rejected_in_chinese(make, words):
    with pytest.raises(ValueError, match=words):
        make()


def test_decision_table_data_is_complete_and_sourced():
    assert kernel_paths.check() == []
    ids = [p["id"] for p in kernel_paths.paths()]
    assert ids[0] == "torch_ops" and ids[-1] == "ascend_c" and {"torch_compile", "triton_ascend", "pypto", "catlass"} <= set(ids)
    efforts = [p["effort"] for p in kernel_paths.paths()]
    assert efforts == sorted(efforts), "paths are listed from least to most effort"
    md = kernel_paths.table(("name", "effort", "sources"))
    assert md.count("\n") == len(ids) + 1 and "定性" in md and "https://gitcode.com/Ascend/triton-ascend" in md


def test_decision_table_draws():
    import matplotlib

    matplotlib.use("Agg")
    fig = kernel_paths.draw()
    assert len(fig.axes[0].patches) == 2 * len(kernel_paths.paths())


# --- command line ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("argv, code, words", [
    (["softmax", "4096", "1000"], 1, "103 轮"),
    (["softmax", "4096", "1000", "--programs", "40"], 0, "没有发现问题"),
    (["matmul", "100", "70", "90", "--programs", "2"], 1, "空闲"),
    (["add", "98432", "--block", "1024"], 1, "3 轮"),
    (["add", "1", "2"], 2, "1 个正整数"),
    (["softmax", "4", "4", "--dtype", "float128"], 2, "数据类型"),
    (["matmul", "64", "64", "64", "--block", "32"], 2, "3 个值"),
    (["softmax", "4", "4", "--block", "8"], 2, "不接受 --block"),
    (["softmax", "4", "4", "--programs", "0"], 2, "正整数"),
])
def test_command_line(argv, code, words, capsys):
    from npulab.__main__ import main

    assert main(["triton-launch", *argv]) == code
    captured = capsys.readouterr()
    assert words in captured.out + captured.err and "Traceback" not in captured.err


def test_command_line_json(capsys):
    import json

    from npulab.__main__ import main

    assert main(["triton-launch", "matmul", "2048", "2048", "2048", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["cores"], out["rounds"], out["suggested_programs"]) == (20, 205, 20)
    assert out["findings"][0]["code"] == "rounds"
