"""npulab.pytorch.profile_trace on traces with a known structure: real torch.profiler traces of steps with a
known sleep gap, a dominant operator and a slow data loader, and small hand-written Chrome traces for the
parts a CPU cannot produce (device kernels, launches, host-only operators)."""

from __future__ import annotations

import json
import time

import pytest
import torch

from npulab.pytorch import profile_trace as pt

SLEEP_S = 0.02


@pytest.fixture(scope="module")
def sleepy_trace():
    a = torch.randn(160, 160)

    def step():
        time.sleep(SLEEP_S)  # no operator runs: a host-side gap of at least 20 ms
        for _ in range(4):
            a @ a  # the dominant operator
        a.add(1.0)

    return pt.profile_steps(step, steps=3)


def test_steps_and_window(sleepy_trace):
    assert [e.name for e in sleepy_trace.steps] == ["ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"]
    start, end = sleepy_trace.window()
    assert end - start >= 3 * SLEEP_S * 1e6


def test_dominant_operator_by_self_time(sleepy_trace):
    top = pt.top_ops(sleepy_trace, 3)
    assert top[0].name == "aten::mm" and top[0].calls == 12
    matmul = next(s for s in pt.top_ops(sleepy_trace, 50) if s.name == "aten::matmul")
    assert matmul.total_us >= top[0].total_us * 0.99 and matmul.self_us < matmul.total_us  # mm runs inside matmul
    assert abs(sum(s.share for s in pt.top_ops(sleepy_trace, 1000)) - 1.0) < 1e-9


def test_sleep_shows_as_one_gap_per_step(sleepy_trace):
    u = pt.utilisation(sleepy_trace, min_gap_us=0.75 * SLEEP_S * 1e6)
    assert u.basis == "顶层主机算子"
    assert len(u.gaps) == 3 and all(g.dur >= SLEEP_S * 1e6 * 0.99 for g in u.gaps)
    assert all(g.after == "aten::matmul" for g in u.gaps)
    assert u.idle_ratio >= 3 * SLEEP_S * 1e6 / u.window_us * 0.99
    assert pt.host_only_ops(sleepy_trace) is None  # no device activity: the question does not apply


def test_data_loader_stall_is_measured():
    class Slow(torch.utils.data.Dataset):
        def __len__(self):
            return 64

        def __getitem__(self, i):
            time.sleep(0.004)
            return torch.ones(4) * i

    loader = iter(torch.utils.data.DataLoader(Slow(), batch_size=2))
    trace = pt.profile_steps(lambda: next(loader).sum(), steps=3)
    lt = pt.loader_time(trace)
    assert len(lt.per_step_us) == 3 and all(t >= 8000 for t in lt.per_step_us)
    assert 0.5 < lt.share <= 1.0


def _x(name, cat, ts, dur, tid=1, pid=1, **args):
    return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args}


def device_trace() -> dict:
    """Two steps; aten::mm launches a kernel; aten::nonzero runs on the host only; a 500 µs device gap."""
    ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
          _x("ProfilerStep#1", "user_annotation", 0, 1000), _x("ProfilerStep#2", "user_annotation", 1000, 1000)]
    for base in (0, 1000):
        ev += [_x("aten::mm", "cpu_op", base + 10, 50, **{"External id": base + 1}),
               _x("cudaLaunchKernel", "cuda_runtime", base + 20, 10, correlation=base + 1),
               _x("gemm_kernel", "kernel", base + 40, 300, pid=0, tid=7, **{"External id": base + 1}),
               _x("aten::nonzero", "cpu_op", base + 100, 600, **{"External id": base + 2}),
               _x("cudaMemcpyAsync", "cuda_runtime", base + 110, 5),  # a fallback copies, but computes nothing
               _x("Memcpy DtoH (Device -> Pinned)", "gpu_memcpy", base + 112, 3, pid=0, tid=7,
                  **{"External id": base + 2}),
               _x("aten::relu", "cpu_op", base + 750, 20, **{"External id": base + 3}),
               _x("cudaLaunchKernel", "cuda_runtime", base + 755, 5),
               _x("relu_kernel", "kernel", base + 840, 100, pid=0, tid=7)]
    return {"traceEvents": ev}


def test_device_trace_busy_gaps_and_host_only_ops(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(device_trace()), encoding="utf-8")
    trace = pt.load(path)
    u = pt.utilisation(trace, min_gap_us=100)
    assert u.basis == "设备 kernel" and u.window_us == 2000 and u.busy_us == 800
    assert u.idle_ratio == pytest.approx(0.6)
    assert [(g.start, g.end, g.before, g.after) for g in u.gaps][:2] == [(340, 840, "gemm_kernel", "relu_kernel"),
                                                                        (940, 1040, "relu_kernel", "gemm_kernel")]
    host = pt.host_only_ops(trace)
    assert [(h.name, h.calls, h.total_us) for h in host] == [("aten::nonzero", 2, 1200.0)]
    assert pt.top_ops(trace, 1, device=True)[0].name == "gemm_kernel"


def test_self_time_subtracts_direct_children_only():
    events = [pt.Event("outer", "cpu_op", 0, 100, 1, 1), pt.Event("mid", "cpu_op", 10, 50, 1, 1),
              pt.Event("leaf", "cpu_op", 20, 20, 1, 1), pt.Event("other_thread", "cpu_op", 5, 90, 1, 2)]
    assert pt.self_times(events) == [50, 30, 20, 90]
    assert [e.name for e in pt.top_level(events)] == ["outer", "other_thread"]


def test_bare_event_list_and_device_processes():
    ev = [{"ph": "M", "name": "process_name", "pid": 9, "args": {"name": "Ascend Hardware"}},
          _x("MatMulV2", "", 0, 40, pid=9), _x("aten::mm", "cpu_op", 0, 10)]
    trace = pt.load(ev, device_process_pattern="Ascend Hardware")
    assert [e.name for e in trace.kernels] == ["MatMulV2"]
    with pytest.raises(ValueError, match="Chrome trace"):
        pt.load({"traceEvents": 3})


def test_timeline_plot_draws_lanes(sleepy_trace):
    import matplotlib

    matplotlib.use("Agg")
    ax = pt.plot_timeline(sleepy_trace, steps=2, min_gap_us=10_000)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["步骤 / 标注", "主机算子（顶层）"]
    assert len(ax.patches) >= 2  # the shaded gaps
    ax2 = pt.plot_timeline(pt.load(device_trace()))
    assert len(ax2.get_yticklabels()) == 3


def test_cli_summarises_a_chrome_trace(tmp_path, capsys):
    from npulab.__main__ import main

    path = tmp_path / "trace.json"
    path.write_text(json.dumps(device_trace()), encoding="utf-8")
    assert main(["trace", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["busy_basis"] == "设备 kernel" and summary["idle_ratio"] == 0.6
    assert summary["host_only_ops"] == [{"name": "aten::nonzero", "calls": 2, "us": 1200.0}]
    assert main(["trace", str(path)]) == 0
    assert "aten::nonzero" in capsys.readouterr().out


def test_cli_usage_errors_are_chinese_and_exit_2(tmp_path, capsys):
    from npulab.__main__ import main

    assert main(["trace", str(tmp_path / "missing.json")]) == 2
    assert "不存在" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["trace", str(bad)]) == 2
    assert "不是可读的 Chrome trace" in capsys.readouterr().err
    assert main(["trace", str(tmp_path)]) == 2  # a folder without ASCEND_PROFILER_OUTPUT
    assert "ASCEND_PROFILER_OUTPUT" in capsys.readouterr().err
