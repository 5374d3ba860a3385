"""FRACTAL_NZ and NC1HWC0 models: round trips, the documented example, index mapping, padding, errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npulab.hw import formats

DTYPES = ["float16", "float32", "int8"]


def _random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "i":
        return rng.integers(-128, 128, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


nd_shapes = st.tuples(st.lists(st.integers(1, 3), max_size=2), st.integers(1, 70), st.integers(1, 70))


@settings(max_examples=60, deadline=None)
@given(nd_shapes, st.sampled_from(DTYPES), st.integers(0, 2**32 - 1))
def test_nd_nz_round_trip(shape_parts, dtype, seed):
    batch, m, n = shape_parts
    shape = (*batch, m, n)
    x = _random(shape, dtype, seed)
    z = formats.nd_to_nz(x)
    m0, n0 = formats.nz_block(dtype)
    assert z.shape == (*batch, math.ceil(n / n0), math.ceil(m / 16), 16, n0) == formats.nz_shape(shape, dtype)
    assert z.dtype == x.dtype
    np.testing.assert_array_equal(formats.nz_to_nd(z, shape), x)
    # padding is zero: the stored elements that are not logical ones sum to zero in absolute value
    stored = np.abs(z.astype(np.float64)).sum()
    assert stored == pytest.approx(np.abs(x.astype(np.float64)).sum())
    # one element's documented position
    rng = np.random.default_rng(seed)
    i, j = int(rng.integers(m)), int(rng.integers(n))
    index = tuple(0 for _ in batch) + formats.nz_index(i, j, dtype)
    assert z[index] == x[(*(0 for _ in batch), i, j)]


def test_documented_example_8_100_30_float16():
    x = np.arange(8 * 100 * 30, dtype=np.float32).astype(np.float16).reshape(8, 100, 30)
    z = formats.nd_to_nz(x)
    assert z.shape == (8, 2, 7, 16, 16)
    # the documentation merges the two middle axes: {8, 2, 112, 16}
    assert z.reshape(8, 2, 7 * 16, 16).shape == (8, 2, 112, 16)
    assert z[3, 1, 6, 3, 13] == x[3, 6 * 16 + 3, 16 + 13]


def test_int8_uses_32_columns_per_fractal():
    assert formats.nz_block("int8") == (16, 32)
    assert formats.nz_block("float32") == (16, 16)  # 4-byte types are counted as 2 bytes, like torch_npu
    assert formats.nz_shape((50, 70), "int8") == (3, 4, 16, 32)
    assert formats.nd_to_nz(np.ones((1, 33), np.int8)).shape == (2, 1, 16, 32)


def test_bfloat16_is_accepted():
    import ml_dtypes

    x = np.ones((3, 17), dtype=ml_dtypes.bfloat16)
    assert formats.nd_to_nz(x).shape == (2, 1, 16, 16)
    assert formats.nz_block("bfloat16") == (16, 16)


def test_offsets_follow_the_index_rule():
    m, n = 37, 50
    offsets = formats.nz_offsets(m, n, "float16")
    storage = formats.nz_shape((m, n), "float16")
    for i, j in [(0, 0), (0, 1), (1, 0), (15, 15), (16, 0), (0, 16), (36, 49)]:
        assert offsets[i, j] == np.ravel_multi_index(formats.nz_index(i, j), storage)
    assert offsets[0, 1] == 1 and offsets[1, 0] == 16  # rows of a fractal are contiguous ("Z" inside)
    assert offsets[16, 0] == 256  # the next fractal down a column of tiles follows ("N" outside)
    assert len(np.unique(offsets)) == m * n


c_shapes = st.tuples(st.integers(1, 3), st.integers(1, 40), st.integers(1, 5), st.integers(1, 5))


@settings(max_examples=50, deadline=None)
@given(c_shapes, st.sampled_from(DTYPES), st.integers(0, 2**32 - 1))
def test_nchw_5hd_round_trip(shape, dtype, seed):
    x = _random(shape, dtype, seed)
    y = formats.nchw_to_nc1hwc0(x)
    n, c, h, w = shape
    assert y.shape == (n, math.ceil(c / 16), h, w, 16) == formats.nc1hwc0_shape(shape)
    np.testing.assert_array_equal(formats.nc1hwc0_to_nchw(y, c), x)
    rng = np.random.default_rng(seed)
    i, k, a, b = (int(rng.integers(d)) for d in shape)
    assert y[i, k // 16, a, b, k % 16] == x[i, k, a, b]
    assert (y != 0).sum() == (x != 0).sum()  # the padded channels hold zeros


def test_padding_overhead():
    assert formats.nz_padding((16, 16)).overhead == 0
    assert formats.nz_padding((1, 1)).overhead == 255
    pad = formats.nz_padding((17, 17))
    assert (pad.logical, pad.stored) == (289, 1024)
    assert pad.efficiency == pytest.approx(289 / 1024)
    assert formats.nz_padding((8, 100, 30)).stored == 8 * 2 * 7 * 16 * 16
    assert formats.nc1hwc0_padding((1, 3, 224, 224)).overhead == pytest.approx(16 / 3 - 1)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: formats.nd_to_nz(np.zeros(5, np.float16)), "至少 2 维"),
        (lambda: formats.nd_to_nz(np.zeros((3, 3))), "float16、bfloat16、float32、int8、uint8"),
        (lambda: formats.nd_to_nz(np.zeros((3, 3), bool)), "收到 bool"),
        (lambda: formats.nz_to_nd(np.zeros((2, 7, 16, 16), np.float16), (100, 40)), "应为 (3, 7, 16, 16)"),
        (lambda: formats.nz_to_nd(np.zeros((2, 7, 16, 16), np.float16), (100,)), "至少 2 维"),
        (lambda: formats.nchw_to_nc1hwc0(np.zeros((2, 3, 4), np.float32)), "正好 4 维"),
        (lambda: formats.nc1hwc0_to_nchw(np.zeros((1, 2, 3, 3, 16), np.float32), 40), "C1 = ceil(40/16) = 3"),
        (lambda: formats.nc1hwc0_to_nchw(np.zeros((1, 2, 3, 3, 8), np.float32), 20), "[N, C1, H, W, 16]"),
        (lambda: formats.nz_shape((4, -1)), "负数"),
    ],
)
def test_errors_name_what_was_expected(call, expected):
    with pytest.raises(ValueError) as info:
        call()
    assert expected in str(info.value)
