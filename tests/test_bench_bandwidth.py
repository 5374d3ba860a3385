"""npulab.bench.bandwidth: d2d on CPU, h2d/d2h refused on CPU, the method (sync before the clock, repeats,
median), ascend-dmi's sweep and saturation point, and the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from npulab.bench import bandwidth
from npulab.bench.bandwidth import (
    CopyResult,
    Sweep,
    TransferResult,
    copies_for,
    device_copy_bandwidth,
    host_device_bandwidth,
    run_sweep,
)
from npulab.bench.sweep import geometric_sizes, saturation_point
from npulab.core.device import Device
from npulab.core.timing import Timing, benchmark

CPU = Device("cpu", "test CPU")
FAKE_NPU = Device("npu", "stand-in accelerator")  # is_accelerator, but its buffers are made on the CPU below


def test_device_copy_keeps_its_behaviour_and_counts_read_plus_write():
    result = device_copy_bandwidth(CPU, 1 << 20, warmup=1, repeats=3)
    assert result.nbytes == 1 << 20 and result.copies == 1 and len(result.timing.times) == 3
    assert result.gb_per_s == pytest.approx(2 * (1 << 20) / result.timing.median / 1e9)
    timing = Timing((0.5, 1.0, 2.0), 0, "cpu")
    assert CopyResult(1000, timing, copies=4).gb_per_s == pytest.approx(2 * 1000 * 4 / 1.0 / 1e9)
    assert TransferResult(1000, "h2d", True, timing, copies=2).gb_per_s == pytest.approx(2000 / 1e9)


def test_host_device_is_refused_on_cpu_with_a_reason():
    with pytest.raises(ValueError, match="只在加速器上有意义"):
        host_device_bandwidth(CPU, 1024)
    with pytest.raises(ValueError, match="h2d 或 d2h"):
        host_device_bandwidth(FAKE_NPU, 1024, "p2p")


@pytest.mark.parametrize(("direction", "pinned"), [("h2d", True), ("d2h", False)])
def test_method_syncs_before_every_clock_read(monkeypatch, direction, pinned):
    import torch

    events: list[str] = []
    made = {}

    def buffers(device, nbytes, pin):
        made["host"] = torch.full((nbytes,), 7 if direction == "h2d" else 0, dtype=torch.uint8)
        made["dev"] = torch.full((nbytes,), 0 if direction == "h2d" else 9, dtype=torch.uint8)
        made["pinned"] = pin
        return made["host"], made["dev"]

    def timed(fn, device, **kw):
        def call():
            events.append("work")
            fn()

        def clock():
            events.append("clock")
            return float(len(events))

        return benchmark(call, device, sync=lambda: events.append("sync"), clock=clock, **kw)

    monkeypatch.setattr(bandwidth, "_buffers", buffers)
    monkeypatch.setattr(bandwidth, "benchmark", timed)
    result = host_device_bandwidth(FAKE_NPU, 64, direction, pinned=pinned, warmup=2, repeats=5, copies=3)
    assert events.count("work") == 7 and len(result.timing.times) == 5 and made["pinned"] is pinned
    for i, event in enumerate(events):
        if event == "clock" and i and events[i - 1] == "work":
            pytest.fail("the clock was read right after the work, before synchronising")
    assert events[:3] == ["work", "work", "sync"]  # warm-up, then wait for it
    assert result.timing.median == 3.0  # clock → work → sync → clock: three events apart
    assert result.gb_per_s == pytest.approx(64 * 3 / 3.0 / 1e9)
    target, value = ("dev", 7) if direction == "h2d" else ("host", 9)
    assert bool((made[target] == value).all())


def test_sweep_helpers():
    assert geometric_sizes(4096, 65536) == [4096, 16384, 65536]
    assert geometric_sizes(4096, 100000) == [4096, 16384, 65536, 100000]
    with pytest.raises(ValueError):
        geometric_sizes(0, 10)
    assert saturation_point([1, 2, 4, 8], [1.0, 5.0, 9.5, 10.0]) == (4, 9.5)
    assert saturation_point([8, 1], [10.0, 10.0]) == (1, 10.0)
    assert copies_for(4096) == 256 and copies_for(64 << 20) == 1
    timings = [Timing((t,), 0, "cpu") for t in (1.0, 0.5, 0.26)]
    sweep = Sweep("d2d", "cpu", [CopyResult(1 << 20, t) for t in timings])
    sweep.results[1] = CopyResult(2 << 20, timings[1])
    sweep.results[2] = CopyResult(4 << 20, timings[2])
    size, value = sweep.saturation()
    assert size == 4 << 20 and value == pytest.approx(2 * (4 << 20) / 0.26 / 1e9)
    assert sweep.to_dict()["saturation_bytes"] == 4 << 20


def test_run_sweep_on_cpu():
    sweep = run_sweep(CPU, "d2d", [4096, 1 << 20], repeats=2, warmup=1)
    assert sweep.sizes == [4096, 1 << 20] and [r.copies for r in sweep.results] == [256, 8]
    assert all(v > 0 for v in sweep.gb_per_s)
    with pytest.raises(ValueError, match="加速器"):
        run_sweep(CPU, "h2d", [4096])


def bench(*args):
    return subprocess.run([sys.executable, "-m", "npulab", "bench", "bandwidth", *args], capture_output=True,
                          text=True, timeout=120, env={**__import__("os").environ, "NPULAB_DEVICE": "cpu"})


def test_cli():
    done = bench("--mib", "1", "--repeats", "2", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["results"][0]["mib"] == 1 and data["sweeps"][0]["test"] == "d2d"
    assert any("加速器" in note for note in data["notes"])
    bad = bench("--tests", "p2p")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_saturation_is_not_set_by_one_size_a_load_burst_flattered():
    # 2 MiB: one lucky repeat gives it the best median, the others were slow; 4 MiB: steady
    flattered = Timing((0.05, 0.05, 0.5), 0, "cpu")
    steady = Timing((0.26, 0.26, 0.27), 0, "cpu")
    sweep = Sweep("d2d", "cpu", [CopyResult(1 << 20, Timing((1.0, 1.0, 1.0), 0, "cpu")), CopyResult(2 << 20, flattered),
                                 CopyResult(4 << 20, steady)])
    assert max(sweep.gb_per_s) == sweep.results[1].gb_per_s  # by medians alone 2 MiB would be "best" and saturated
    size, value = sweep.saturation()
    assert size == 4 << 20 and value == pytest.approx(sweep.results[2].gb_per_s)


def test_saturation_is_judged_outside_the_cpu_cache(tmp_path):
    """05/02 (review 2026-12c L9): the caption named 256 KiB, a cache-resident size, as the saturation point."""
    from npulab.bench.bandwidth import CopyResult, Sweep, size_text
    from npulab.core import machine

    def result(nbytes, gb_per_s):
        seconds = 2 * nbytes / (gb_per_s * 1e9)
        return CopyResult(nbytes, Timing((seconds,) * 5, 2, "cpu"))

    sweep = Sweep("d2d", "cpu", [result(1 << 18, 69.5), result(1 << 22, 40.0), result(1 << 24, 18.0),
                                 result(1 << 26, 17.0)])
    assert "256 KiB" in sweep.saturation_text(0)  # an accelerator: every size counts
    outside = sweep.saturation_text(16 << 20)
    assert "只看不小于末级缓存 16 MiB" in outside and "16 MiB，18.0 GB/s" in outside
    assert "不报饱和点" in sweep.saturation_text(1 << 27) and "缓存区内" in sweep.saturation_text(None)
    assert size_text(4096) == "4 KiB"
    for level, size in ((1, "32K"), (2, "512K"), (3, "16384K")):
        (tmp_path / f"index{level}").mkdir()
        (tmp_path / f"index{level}" / "level").write_text(f"{level}\n")
        (tmp_path / f"index{level}" / "size").write_text(f"{size}\n")
    assert machine.last_level_cache_bytes(str(tmp_path)) == 16 << 20
    assert machine.last_level_cache_bytes(str(tmp_path / "none")) is None
