import pytest

from npulab.core import timing
from npulab.core.device import Device
from npulab.core.timing import benchmark, matmul_flop


class FakeAsync:
    """fn() queues work; synchronize() lets the fake clock advance by the queued time."""

    def __init__(self, durations):
        self.durations, self.now, self.pending, self.calls = list(durations), 0.0, 0.0, 0

    def fn(self):
        self.pending += self.durations[self.calls]
        self.calls += 1

    def sync(self, _device):
        self.now += self.pending
        self.pending = 0.0


def test_benchmark_synchronises_before_every_clock_read(monkeypatch):
    fake = FakeAsync([100, 3, 1, 2, 9, 2])  # first call = warm-up, slow
    monkeypatch.setattr(timing, "synchronize", fake.sync)
    t = benchmark(fake.fn, Device("npu", "fake"), warmup=1, repeats=5, clock=lambda: fake.now)
    assert t.times == (3, 1, 2, 9, 2)
    assert t.median == 2
    assert t.best == 1
    assert t.spread == pytest.approx((9 - 1) / 2)
    assert t.device == Device("npu", "fake") and t.device_name == "npu:0"  # the Device is kept, not just its name
    assert fake.calls == 6
    figure = t.figure("一次调用")
    assert figure.value == 2000 and figure.unit == "ms" and "npu:0 (fake)" in figure.origin
    assert t.rate_figure("吞吐", 10, "次/s").value == 5 and "中位数 2 s" in t.rate_figure("吞吐", 10, "次/s").note


def test_without_sync_an_async_device_would_look_free(monkeypatch):
    fake = FakeAsync([5] * 4)
    monkeypatch.setattr(timing, "synchronize", lambda _d: None)
    t = benchmark(fake.fn, "npu:0", warmup=1, repeats=3, clock=lambda: fake.now)
    assert t.median == 0  # the pitfall benchmark() exists to avoid


def test_benchmark_real_cpu_function():
    t = benchmark(lambda: sum(range(10_000)), "cpu", warmup=1, repeats=5, label="sum")
    assert len(t.times) == 5 and all(x > 0 for x in t.times)
    assert "sum @ cpu" in str(t) and "中位数" in str(t)
    assert t.rate(1e4) == pytest.approx(1e4 / t.median)


@pytest.mark.parametrize("warmup,repeats", [(-1, 3), (0, 0)])
def test_benchmark_rejects_bad_counts(warmup, repeats):
    with pytest.raises(ValueError):
        benchmark(lambda: None, "cpu", warmup=warmup, repeats=repeats)


def test_matmul_flop():
    assert matmul_flop(4096) == 2 * 4096**3
    assert matmul_flop(2, 3, 4) == 2 * 2 * 3 * 4


def test_run_matmul_reports_gflops_on_cpu():
    from npulab.bench.matmul import run_matmul

    (r,) = run_matmul(Device("cpu", "cpu"), [64], warmup=1, repeats=3)
    assert r.n == 64 and r.dtype == "float32"
    assert r.gflops == pytest.approx(matmul_flop(64) / r.timing.median / 1e9)


def test_derived_figures_are_computed_from_the_formula_they_show():
    from npulab.core.provenance import Kind, derive, evaluate, measured

    t_cpu = measured("CPU", 351.01, "s", "cpu")
    f = derive("加速比", "t_cpu / t_npu", "×", t_cpu=t_cpu, t_npu=2.13)
    assert f.kind is Kind.DERIVED and f.value == 164.8
    assert f.origin.startswith("t_cpu / t_npu") and "351.01 s" in f.origin and "2.13" in f.origin
    assert evaluate("max(a, b) * 2", a=1, b=3) == 6
    for bad in ("__import__('os')", "a.b", "open('x')", "c + 1"):
        with pytest.raises(ValueError):
            evaluate(bad, a=1)
