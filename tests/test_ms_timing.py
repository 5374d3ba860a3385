"""The chapter-04 timing method: synchronise inside the timed region, compile and first call apart, same work in every mode."""

import os

import mindspore as ms
import numpy as np
import pytest
from mindspore import nn

from npulab.core.timing import Timing
from npulab.mindspore import runtime as ms_env
from npulab.mindspore import timing as ms_timing


class AsyncDevice:
    """A pretend accelerator: ``step`` only queues work; time passes when ``sync`` waits for it."""

    def __init__(self, durations, compile_time=0.0):
        self.durations = list(durations)
        self.compile_time = compile_time
        self.now = 0.0
        self.pending = 0.0
        self.steps = 0
        self.events = []

    def step(self):
        self.pending += self.durations[min(self.steps, len(self.durations) - 1)]
        self.steps += 1
        self.events.append("step")

    def compile(self):
        self.now += self.compile_time  # compiling blocks the host
        self.events.append("compile")

    def sync(self):
        self.now += self.pending
        self.pending = 0.0
        self.events.append("sync")

    def clock(self):
        self.events.append("clock")
        return self.now


def test_each_timed_step_ends_with_a_sync_before_the_clock_is_read():
    dev = AsyncDevice([9.0, 5.0, 1.0, 3.0, 2.0, 4.0])
    t = ms_timing.time_steps(dev.step, sync=dev.sync, warmup=2, repeats=3, clock=dev.clock)
    assert t.first_s == 9.0  # the first call is timed on its own
    assert t.steady.times == (1.0, 3.0, 2.0) and t.median == 2.0  # call 2 was untimed warm-up
    assert t.compile_s is None and dev.steps == 5  # 1 first + 1 warm-up + 3 timed
    for i, event in enumerate(dev.events):
        if event == "clock" and i > 0 and dev.events[i - 1] == "step":
            pytest.fail("the clock was read right after a step, before the device finished")


def test_without_sync_the_clock_measures_only_the_launch():
    dev = AsyncDevice([1.0])
    t = ms_timing.time_steps(dev.step, sync=lambda: None, warmup=1, repeats=3, clock=dev.clock)
    assert t.median == 0.0  # the mistake the seed's MindSpore script made


def test_compile_is_timed_apart_from_the_steps():
    dev = AsyncDevice([1.0, 1.0], compile_time=7.0)
    t = ms_timing.time_steps(dev.step, sync=dev.sync, compile=dev.compile, warmup=1, repeats=2, clock=dev.clock)
    assert t.compile_s == 7.0 and t.first_s == 1.0 and t.median == 1.0
    assert dev.events.index("compile") < dev.events.index("step")
    assert t.one_off_s == 0.0 and t.images_per_second(4) == 4.0


def test_compare_ranks_only_non_overlapping_measurements():
    fast = Timing((1.0, 1.1, 1.2), 0, "x")
    slow = Timing((2.0, 2.2, 2.4), 0, "x")
    noisy = Timing((0.9, 2.1, 3.0), 0, "x")
    assert ms_timing.compare(fast, "A", slow, "B").text.startswith("A 比 B 快：中位数之比 2.0 倍")
    assert ms_timing.compare(slow, "B", fast, "A").text.startswith("A 比 B 快")
    assert "分不出快慢" in ms_timing.compare(fast, "A", noisy, "C").text


def test_warmup_must_include_the_first_call():
    with pytest.raises(ValueError, match="warmup"):
        ms_timing.time_steps(lambda: None, sync=lambda: None, warmup=0)


def tiny_net():
    return nn.SequentialCell([nn.Flatten(), nn.Dense(3 * 4 * 4, 5, weight_init="normal", bias_init="zeros")])


@pytest.fixture(scope="module")
def tiny_weights():
    return {p.name: p.asnumpy().copy() for p in tiny_net().get_parameters()}


def test_all_three_modes_do_the_same_work(tiny_weights, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def build():
        net = tiny_net()
        ms.load_param_into_net(net, {k: ms.Parameter(ms.Tensor(v), name=k) for k, v in tiny_weights.items()})
        return net

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 3, 4, 4)).astype(np.float32), np.arange(4, dtype=np.int32)
    mode_before = ms.get_context("mode")
    results = {m: ms_timing.time_ms_mode(m, build, x, y, warmup=1, repeats=2) for m in ms_timing.MODES}
    assert ms.get_context("mode") == mode_before
    assert results["graph"].compile_s is not None and results["graph"].compile_s > 0
    assert results["pynative"].compile_s is None and results["jit"].compile_s is None
    for r in results.values():
        assert len(r.steady.times) == 2 and len(r.losses) == 3
    np.testing.assert_allclose(results["graph"].losses, results["pynative"].losses, rtol=1e-5)
    np.testing.assert_allclose(results["jit"].losses, results["pynative"].losses, rtol=1e-5)
    assert results["pynative"].losses[2] < results["pynative"].losses[0]  # it does train
    assert not any(os.path.exists(d) for d in ms_env.COMPILE_LEFTOVERS)
    with pytest.raises(ValueError, match="未知的模式"):
        ms_timing.time_ms_mode("eager", build, x, y)


def test_pipelines_are_timed_per_batch_over_whole_passes():
    images = np.zeros((12, 3, 4, 4), np.float32)
    labels = np.arange(12, dtype=np.int32)
    for dataset in (ms_timing.generator_dataset(images, labels, 4), ms_timing.memory_dataset(images, labels, 4),
                    ms_timing.random_generator_dataset(12, 4, 4)):
        t = ms_timing.time_pipeline(dataset, "x", warmup=1, repeats=2)
        assert len(t.times) == 2 and all(v > 0 for v in t.times) and t.extra["batches"] == 3


def test_scratch_cwd_and_error_summary():
    before = os.getcwd()
    with ms_env.scratch_cwd() as tmp:
        assert os.getcwd() == os.path.realpath(tmp)
    assert os.getcwd() == before
    text = ("Traceback (most recent call last):\n  File x\nRuntimeError: Unsupported device target Ascend.\n\n"
            "------\n- Device load error message:\n------\nLoad dynamic library: libx.so failed.\n\n"
            "------\n- C++ Call Stack: (For framework developers)\n------\nms_context.cc:291 Set\n")
    summary = ms_env.error_summary(text)
    assert summary.startswith("RuntimeError: Unsupported") and "libx.so" in summary
    assert "C++" not in summary and "Traceback" not in summary
