"""Lab 06 checks: right answers pass, typical mistakes get a hint that does not give the answer away."""

import pytest

from npulab.course.labs import lab06
from npulab.kernels.ascendc import emulator


@pytest.fixture(autouse=True)
def lenient(monkeypatch):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)


def check(question, answer, capsys):
    ok = lab06.make_lab().check(question, answer)
    return ok, capsys.readouterr().out


@pytest.mark.parametrize("answer, ok, hint", [
    ((40, 25008, 24576), True, "都对"),
    ((40, 25000, 24576), False, "32 字节的整数倍"),
    ((40, 25008, 49152), False, "两个队列"),
    ((39, 25008, 24576), False, "blockDim"),
    ("40", False, "元组"),
])
def test_tiling(answer, ok, hint, capsys):
    result, out = check("tiling", answer, capsys)
    assert result is ok and hint in out and ("25008" not in out or ok)


def good_copy_out(kernel, progress, length):
    y = kernel.out_queue_y.de_que()
    nbytes = length * kernel.dtype.itemsize
    target = kernel.y_gm[progress * kernel.tile_length]
    if nbytes % 32:
        emulator.data_copy_pad(target, y, emulator.DataCopyExtParams(1, nbytes, 0, 0, 0))
    else:
        emulator.data_copy(target, y, length)
    kernel.out_queue_y.free_tensor(y)


def datacopy_only(kernel, progress, length):
    y = kernel.out_queue_y.de_que()
    emulator.data_copy(kernel.y_gm[progress * kernel.tile_length], y, length)
    kernel.out_queue_y.free_tensor(y)


def forgets_free(kernel, progress, length):
    y = kernel.out_queue_y.de_que()
    emulator.data_copy_pad(kernel.y_gm[progress * kernel.tile_length], y,
                           emulator.DataCopyExtParams(1, length * kernel.dtype.itemsize, 0, 0, 0))


def wrong_offset(kernel, progress, length):
    y = kernel.out_queue_y.de_que()
    emulator.data_copy_pad(kernel.y_gm[progress], y, emulator.DataCopyExtParams(1, length * kernel.dtype.itemsize, 0, 0, 0))
    kernel.out_queue_y.free_tensor(y)


@pytest.mark.parametrize("answer, ok, hint", [
    (good_copy_out, True, "与 numpy 一致"),
    (datacopy_only, False, "DataCopyPad"),
    (forgets_free, False, "队列用法有误"),
    (wrong_offset, False, "progress × tileLength"),
    (lambda kernel, progress, length: ..., None, "还没有实现"),
])
def test_copy_out(answer, ok, hint, capsys):
    lab = lab06.make_lab()
    lab.check("copy_out", answer)
    assert lab.results["copy_out"] is ok and hint in capsys.readouterr().out


def test_speedup_and_busbw(capsys):
    speedup = lab06.pipeline_speedup()
    assert 1 < speedup < 3
    assert check("speedup", speedup, capsys)[0]
    assert "倒过来" in check("speedup", 1 / speedup, capsys)[1]
    busbw = 512 * 2**20 / 30e-3 * 2 * 7 / 8 / 1e9
    assert check("busbw", busbw, capsys)[0]
    assert "算法带宽" in check("busbw", busbw * 8 / 14, capsys)[1]
    assert "MiB" in check("busbw", 512e6 / 30e-3 * 1.75 / 1e9, capsys)[1]


def test_assessment(capsys):
    assert check("assessment", dict(lab06.PROJECT), capsys)[0]
    ok, out = check("assessment", dict(lab06.PROJECT, libraries="none"), capsys)
    assert not ok and "apex" in out and "replaceable" not in out
    ok, out = check("assessment", {"framework": "hf"}, capsys)
    assert not ok and "还没有回答" in out


# --- questions 6 and 7: Triton ------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, ok, hint", [
    ((205, 40), True, "Vector 核数"),
    ((204, 40), False, "向上取整"),
    ((410, 40), False, "纯 Vector"),
    ((205, 20), False, "不用 Cube"),
    ((205, 8192), False, "核内循环"),
    ((7, 40), False, "轮数不对"),
    (205, False, "元组"),
])
def test_triton_launch(answer, ok, hint, capsys):
    result, out = check("launch", answer, capsys)
    assert result is ok and hint in out


def _launcher(kernel):
    import torch
    import triton

    def bias_gelu(x, bias):
        y = torch.empty_like(x)
        kernel[(x.shape[0],)](x, bias, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y

    return bias_gelu


def _kernels():
    # the interpreter re-executes a kernel's source with the module's globals, so each variant is written out
    # (a kernel cannot call a Python function it closes over)
    import triton.language as tl

    from npulab.kernels import triton_kernels as tk

    @tk.jit_for("cpu")
    def right(x_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(x_ptr + row * n_cols + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, 0.5 * v * (1 + tl.erf(v * 0.7071067811865476)), mask=mask)

    @tk.jit_for("cpu")
    def no_bias(x_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(y_ptr + row * n_cols + cols, 0.5 * v * (1 + tl.erf(v * 0.7071067811865476)), mask=mask)

    return _launcher(right), _launcher(no_bias)


def test_bias_gelu_right_and_typical_mistakes(capsys):
    import torch

    erf_gelu, no_bias = _kernels()
    cases = [
        (erf_gelu, True, "一致"),
        (no_bias, False, "偏置"),
        (lambda x, bias: torch.nn.functional.gelu(x + bias), False, "没有启动 Triton"),
        (lambda x, bias: torch.nn.functional.gelu(x + bias, approximate="tanh"), False, "tanh"),
        (lambda x, bias: x.flatten(), False, "同形状"),
        ("not a function", False, "函数"),
    ]
    for answer, ok, hint in cases:
        result, out = check("bias_gelu", answer, capsys)
        assert result is ok and hint in out, out
    result, out = check("bias_gelu", lambda x, bias: ..., capsys)
    assert result is False and "尚未作答" in out


def test_fullmesh_latency_term(capsys):
    lab = lab06.make_lab()
    assert lab.check("fullmesh", {"ring": 896, "mesh": 128})
    assert not lab.check("fullmesh", {"ring": 448, "mesh": 64})
    assert "2 次 AllReduce" in capsys.readouterr().out
    assert not lab.check("fullmesh", {"ring": 448, "mesh": 128})  # the AllReduces right, t−1 steps each
    assert "2(t−1) 步" in capsys.readouterr().out
    assert lab.check("fullmesh", {"ring": ..., "mesh": 128}) is False and lab.results["fullmesh"] is None
