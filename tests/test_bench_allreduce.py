"""The AllReduce benchmark: nccl-tests bandwidth definitions, the α–β fit, sizes, a real 2-process run, CLI errors."""

import json
import subprocess
import sys

import pytest

from npulab.bench import allreduce as ar
from npulab.core.cli import UsageError
from npulab.core.paths import REPO_ROOT
from npulab.hw import collectives
from npulab.pytorch import distributed


@pytest.mark.parametrize("n, factor", [(2, 1.0), (4, 1.5), (8, 1.75)])
def test_bus_bandwidth_is_the_nccl_tests_definition(n, factor):
    # 100 MB in 10 ms: algbw = 10 GB/s; AllReduce busbw = algbw × 2(n−1)/n
    alg = collectives.algbw(100e6, 10e-3)
    assert alg == pytest.approx(10e9)
    assert collectives.busbw(alg, n, "allreduce") == pytest.approx(10e9 * factor)
    row = ar.Row(100_000_000, 10e-3, 5, alg, collectives.busbw(alg, n))
    assert row.busbw / row.algbw == pytest.approx(2 * (n - 1) / n)


@pytest.mark.parametrize("n", [2, 4, 8])
def test_fit_recovers_the_ring_model(n):
    alpha, beta = 30e-6, 25e9
    sizes = [1024, 1 << 16, 1 << 20, 1 << 24, 1 << 28]
    times = [collectives.allreduce_time(s, n, alpha, beta, "ring") for s in sizes]
    fit_alpha, fit_beta = ar.fit_ring(sizes, times, n)
    assert fit_alpha == pytest.approx(alpha, rel=0.01) and fit_beta == pytest.approx(beta, rel=0.01)
    report = ar.Report("gloo", "cpu", n, (), fit_alpha, fit_beta)
    assert report.model_seconds(1 << 24) == pytest.approx(times[3], rel=0.01)


def test_fit_needs_two_sizes_and_survives_flat_times():
    with pytest.raises(ValueError, match="两个"):
        ar.fit_ring([1024], [1e-4], 2)
    alpha, beta = ar.fit_ring([1024, 4096], [3e-4, 2.5e-4], 2)  # noise: the larger message came back faster
    assert alpha > 0 and beta > 0


@pytest.mark.parametrize("text, value", [("1024", 1024), ("4K", 4096), ("16M", 16 << 20), ("1G", 1 << 30),
                                         ("64KiB", 65536), ("2kb", 2048), ("0.5M", 1 << 19)])
def test_parse_size(text, value):
    assert ar.parse_size(text) == value


@pytest.mark.parametrize("text", ["abc", "0", "-4K", "1.5", ""])
def test_parse_size_rejects(text):
    with pytest.raises(UsageError):
        ar.parse_size(text)


def test_default_sizes_and_repeats():
    assert ar.default_sizes(False) == [1 << k for k in range(10, 25, 2)]
    assert ar.default_sizes(True)[-1] == 1 << 30
    assert ar.default_repeats(1024) > ar.default_repeats(1 << 24) >= ar.default_repeats(1 << 30) >= 5


def test_backend_and_device_per_kind():
    assert [distributed.backend_for(k) for k in ("npu", "cuda", "cpu")] == ["hccl", "nccl", "gloo"]
    assert distributed.device_for("npu", 3) == "npu:3" and distributed.device_for("cpu", 3) == "cpu"
    with pytest.raises(ValueError, match="设备类型"):
        distributed.backend_for("tpu")
    layout = distributed.rank_layout(2, {"ASCEND_RT_VISIBLE_DEVICES": "6,7"})
    assert [row["逻辑 ID"] for row in layout] == [6, 7]
    with pytest.raises(ValueError, match="3 个进程需要 3 张 NPU"):
        distributed.rank_layout(3, {"ASCEND_RT_VISIBLE_DEVICES": "6,7"})
    assert {s["name"] for s in distributed.hccl_settings()} >= {"HCCL_CONNECT_TIMEOUT", "HCCL_EXEC_TIMEOUT",
                                                                "HCCL_BUFFSIZE", "RANK_TABLE_FILE"}
    assert "envref_07_0149" in distributed.hccl_table()


def bench(*args):
    return subprocess.run([sys.executable, "-m", "npulab", "bench", "allreduce", *args], capture_output=True,
                          text=True, cwd=REPO_ROOT, timeout=300)


def test_a_tiny_two_process_run_through_the_cli():
    done = bench("--nproc", "2", "--sizes", "4K,64K", "--repeats", "3", "--device", "cpu", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["backend"], report["device"], report["nproc"]) == ("gloo", "cpu", 2)
    assert [r["nbytes"] for r in report["rows"]] == [4096, 65536] and all(r["repeats"] == 3 for r in report["rows"])
    for r in report["rows"]:
        assert 0 < r["seconds"] < 5 and r["algbw"] == pytest.approx(r["nbytes"] / r["seconds"])
        assert r["busbw"] == pytest.approx(r["algbw"]) and r["model_seconds"] > 0  # n = 2: busbw = algbw
    assert report["fit"]["algorithm"] == "ring" and report["fit"]["beta_bytes_per_s"] > 0


@pytest.mark.parametrize("args, message", [
    (["--nproc", "1"], "--nproc 须 ≥ 2"),
    (["--sizes", "big,4K"], "无法识别"),
])
def test_cli_bad_input_in_a_subprocess(args, message):
    done = bench(*args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--nproc", "99", "--device", "cpu"], "最多 16 个进程"),
    (["--sizes", "4K,6", "--device", "cpu"], "4 的倍数"),
    (["--sizes", "4K", "--device", "cpu"], "两个消息大小"),
    (["--repeats", "-1"], "--repeats"),
    (["--timeout", "0"], "--timeout"),
    (["--device", "tpu"], "无效的选项"),
    (["--nproc", "two"], "不是有效的整数"),
])
def test_cli_bad_input(args, message, capsys):
    from npulab.__main__ import main

    try:
        code = main(["bench", "allreduce", *args])
    except SystemExit as exit_:  # argparse errors
        code = exit_.code
    assert code == 2 and message in capsys.readouterr().err


def _report(times_us, sizes, n=2):
    rows = [{"nbytes": b, "seconds": t * 1e-6, "busbw": collectives.busbw(collectives.algbw(b, t * 1e-6), n)}
            for b, t in zip(sizes, times_us, strict=True)]
    alpha, beta = ar.fit_ring(sizes, [t * 1e-6 for t in times_us], n)
    return {"rows": rows, "nproc": n, "fit": {"alpha_s": alpha, "beta_bytes_per_s": beta}}


def test_observations_follow_the_printed_rows():
    """06/04 (review 2026-12c L4): a 16 KiB point at 3328 µs among ~600 µs went unremarked, and "MiB-sized messages
    reach a higher busbw than the largest" was typed beside 0.827 GB/s at 1 MiB against 0.865 GB/s at 16 MiB."""
    sizes = [1 << k for k in range(10, 25, 2)]  # 1 KiB … 16 MiB
    busbw = {1 << 20: 0.827e9, 1 << 22: 0.84e9, 1 << 24: 0.865e9}
    times = [530.0, 560.0, 3328.0, 660.0, 0.0, 0.0, 0.0, 0.0]
    times[4:] = [b / busbw.get(b, 0.6e9) * 1e6 for b in sizes[4:]]  # transfer-bound sizes from their busbw (n = 2)
    said = ar.observations(_report(times, sizes))
    assert any(s.startswith("16384 B 的中位时间 3328 µs") and "干扰" in s for s in said)
    assert any("没有明显高于最大消息" in s for s in said) and not any("高于最大消息（" in s for s in said)
    cached = list(times)
    cached[5] = sizes[5] / 1.2e9 * 1e6  # 1 MiB at 1.2 GB/s: clearly above the largest
    assert any(s.startswith("1048576 B 的总线带宽 1.200 GB/s 高于最大消息") for s in ar.observations(_report(cached, sizes)))
