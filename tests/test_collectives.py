"""α–β AllReduce model and the nccl-tests bandwidth definitions (names imported by chapter 06)."""

import math

import pytest

from npulab.hw.collectives import ALGORITHMS, algbw, allreduce_time, bus_factor, busbw


def test_ring_formula():
    n, size, alpha, beta = 8, 100e6, 10e-6, 25e9
    assert allreduce_time(size, n, alpha, beta, "ring") == pytest.approx(2 * 7 * alpha + 2 * 7 / 8 * size / beta)


def test_mesh_formula_uses_all_links_at_once():
    n, size, alpha, beta = 8, 100e6, 10e-6, 25e9
    assert allreduce_time(size, n, alpha, beta, "mesh") == pytest.approx(2 * alpha + 2 * size / (n * beta))
    # with the bandwidth term only, mesh is n−1 times faster than ring
    ring = allreduce_time(size, n, 0, beta, "ring")
    assert ring / allreduce_time(size, n, 0, beta, "mesh") == pytest.approx(n - 1)


def test_halving_doubling():
    assert allreduce_time(1e6, 8, 1e-6, 1e9, "halving_doubling") == pytest.approx(2 * 3 * 1e-6 + 2 * 7 / 8 * 1e6 / 1e9)
    with pytest.raises(ValueError, match="2 的幂"):
        allreduce_time(1e6, 6, 1e-6, 1e9, "halving_doubling")


def test_small_messages_are_latency_bound():
    ring = allreduce_time(1024, 8, 20e-6, 25e9, "ring")
    assert ring == pytest.approx(14 * 20e-6, rel=0.01)


def test_one_device_costs_nothing():
    for algorithm in ALGORITHMS:
        assert allreduce_time(1e9, 1, 1e-3, 1e9, algorithm) == 0.0


def test_seed_example_resnet50_gradients():
    grads = 25_557_032 * 4  # FP32 gradients of ResNet-50: about 102 MB, not the seed's 25 MB
    beta = 26.2e9  # the seed's measured unidirectional P2P bandwidth
    assert grads / beta == pytest.approx(3.90e-3, rel=0.01)
    assert allreduce_time(grads, 8, 0, beta, "ring") == pytest.approx(6.83e-3, rel=0.01)


def test_nccl_tests_definitions():
    assert algbw(1e9, 0.5) == 2e9
    assert bus_factor(8) == pytest.approx(2 * 7 / 8)
    assert busbw(algbw(1e9, 0.5), 8) == pytest.approx(2e9 * 1.75)
    assert busbw(1.0, 2, "allreduce") == 1.0  # n = 2: busbw equals algbw (as in the gloo calibration table)
    assert busbw(1.0, 4, "allgather") == pytest.approx(0.75)
    assert busbw(1.0, 4, "broadcast") == 1.0
    # the model and the definition agree: a ring AllReduce's busbw is the link bandwidth
    t = allreduce_time(1e9, 8, 0, 25e9, "ring")
    assert busbw(algbw(1e9, t), 8) == pytest.approx(25e9)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: allreduce_time(1e6, 0, 0, 1e9), "正整数"),
        (lambda: allreduce_time(1e6, 8, 0, 0), "字节/秒"),
        (lambda: allreduce_time(-1, 8, 0, 1e9), "不能为负"),
        (lambda: allreduce_time(1e6, 8, -1, 1e9), "秒"),
        (lambda: allreduce_time(1e6, 8, 0, 1e9, "tree"), "ring、mesh、halving_doubling"),
        (lambda: algbw(1e6, 0), "正数"),
        (lambda: busbw(1.0, 8, "gather"), "allreduce"),
        (lambda: busbw(1.0, 2.5), "正整数"),
    ],
)
def test_errors(call, expected):
    with pytest.raises(ValueError) as info:
        call()
    assert expected in str(info.value)


def test_values_are_finite():
    for algorithm in ("ring", "mesh"):
        assert math.isfinite(allreduce_time(1e12, 1024, 1e-5, 1e10, algorithm))
