"""The Cube-unit model: equals numpy, instruction count equals the closed form, tiles fit the buffers."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npulab.hw import cube

dims = st.integers(1, 90)


def test_spec_comes_from_the_platform_file():
    spec = cube.spec_910b3()
    assert (spec.m0, spec.k0, spec.n0) == (16, 16, 16)
    assert (spec.l0a_bytes, spec.l0b_bytes, spec.l0c_bytes, spec.l1_bytes) == (64 * 1024, 64 * 1024, 128 * 1024, 512 * 1024)
    assert spec.a_fractal_bytes == spec.b_fractal_bytes == 512 and spec.c_fractal_bytes == 1024
    assert spec.capacity == {"L0A": 64, "L0B": 64, "L0C": 128}
    assert cube.spec_910b3(double_buffer=False).capacity == {"L0A": 128, "L0B": 128, "L0C": 128}
    int8 = cube.spec_910b3("int8")
    assert (int8.m0, int8.k0, int8.n0, int8.out_bytes) == (16, 32, 16, 4)


@settings(max_examples=40, deadline=None)
@given(dims, dims, dims, st.integers(0, 2**32 - 1))
def test_float16_matches_numpy_and_closed_form(m, k, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c, counted = cube.simulate_matmul(a, b)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-4)
    spec = cube.spec_910b3()
    assert counted.instructions == cube.instruction_count(m, k, n, spec) == math.ceil(m / 16) * math.ceil(k / 16) * math.ceil(n / 16)
    predicted = cube.plan_matmul(m, k, n, spec)
    assert counted.bytes_moved == predicted.bytes_moved


@settings(max_examples=25, deadline=None)
@given(dims, st.integers(1, 200), dims, st.integers(0, 2**32 - 1))
def test_int8_is_exact(m, k, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    c, counted = cube.simulate_matmul(a, b)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))
    assert counted.instructions == math.ceil(m / 16) * math.ceil(k / 32) * math.ceil(n / 16)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 3000), st.integers(1, 3000))
def test_chosen_tiles_fit_the_buffers(m, k, n):
    spec = cube.spec_910b3()
    plan = cube.plan_matmul(m, k, n, spec)
    cap = spec.capacity
    t = plan.tiling
    assert t.mt * t.kt <= cap["L0A"] and t.kt * t.nt <= cap["L0B"] and t.mt * t.nt <= cap["L0C"]
    assert all(plan.peak_fractals[level] <= cap[level] for level in cap)
    m1, k1, n1 = cube.fractals(m, k, n, spec)
    # every operand fractal crosses L1→L0 at least once; C leaves once
    assert plan.bytes_moved["L1→L0A"] >= m1 * k1 * 512 and plan.bytes_moved["L1→L0B"] >= k1 * n1 * 512
    assert plan.bytes_moved["L0C→GM"] == m1 * n1 * 256 * 2
    assert plan.bytes_moved["GM→L1"] <= plan.bytes_moved["L1→L0A"] + plan.bytes_moved["L1→L0B"]


def test_utilisation_falls_off_multiples_of_16():
    spec = cube.spec_910b3()
    assert cube.utilisation(256, 256, 256, spec) == 1.0
    assert cube.utilisation(17, 16, 16, spec) == pytest.approx(17 / 32)
    assert cube.utilisation(100, 200, 300, spec) == pytest.approx(100 * 200 * 300 / (7 * 13 * 19 * 4096))
    assert cube.plan_matmul(1, 1, 1, spec).utilisation == pytest.approx(1 / 4096)


def test_explicit_tiling_and_bad_tiles():
    spec = cube.spec_910b3()
    a = np.ones((64, 64), np.float16)
    c, counted = cube.simulate_matmul(a, a, tiling=cube.Tiling(1, 1, 1))
    assert counted.instructions == 64 and (c == 64).all()
    assert counted.bytes_moved["L1→L0A"] == 16 * 512 * 4  # with 1×1 tiles every A fractal is loaded once per column
    with pytest.raises(ValueError, match="L0A"):
        cube.plan_matmul(512, 512, 512, spec, cube.Tiling(16, 16, 1))


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: cube.instruction_count(0, 16, 16, cube.spec_910b3()), "正整数"),
        (lambda: cube.spec_910b3("float64"), "float16、bfloat16、int8"),
        (lambda: cube.simulate_matmul(np.ones((4, 5), np.float16), np.ones((4, 5), np.float16)), "K"),
        (lambda: cube.simulate_matmul(np.ones((4, 4)), np.ones((4, 4))), "同一种 Cube 输入类型"),
        (lambda: cube.simulate_matmul(np.ones(4, np.float16), np.ones((4, 4), np.float16)), "二维"),
    ],
)
def test_errors(call, expected):
    with pytest.raises(ValueError) as info:
        call()
    assert expected in str(info.value)
