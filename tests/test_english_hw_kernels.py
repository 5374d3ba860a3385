"""Issue 37: what the lessons print through npulab's benchmarks, hardware models and kernel helpers is English when
the reader's language is (NPULAB_LANG=en), with the same numbers, and unchanged Chinese otherwise."""

from __future__ import annotations

import re
import warnings

import matplotlib
import numpy as np
import pytest
from english_checks import no_cjk

matplotlib.use("Agg")

from npulab.bench import allreduce, bandwidth, matmul, sweep  # noqa: E402
from npulab.core.timing import Timing  # noqa: E402
from npulab.hw import collectives, cube, davinci, formats, interconnect, roofline  # noqa: E402
from npulab.kernels import kernel_paths, triton_launch  # noqa: E402
from npulab.kernels.ascendc import CostModel, ReluTiling, emulator, plan_tiling, plot_timeline, run_relu, schedule  # noqa: E402
from npulab.kernels.ascendc.errors import AscendCError  # noqa: E402


def texts_of(ax) -> str:
    legend = ax.get_legend()
    parts = [ax.get_title(), ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.texts),
             *(t.get_text() for t in ax.get_yticklabels()), *(t.get_text() for t in ax.get_xticklabels()),
             *((t.get_text() for t in legend.get_texts()) if legend else ())]
    return "\n".join(parts)


def message(call, *args, **kwargs) -> str:
    with pytest.raises(Exception) as info:  # noqa: PT011 - each call raises the module's own error class
        call(*args, **kwargs)
    return str(info.value)


def timing(seconds) -> Timing:
    return Timing(tuple(seconds), 1, "cpu")


def test_roofline_in_english(en):
    import matplotlib.pyplot as plt

    machines = roofline.machines()
    ascend = machines[0]
    assert ascend.name == "Ascend 910B3" and no_cjk(ascend.note).startswith("peak: derived; bandwidth: measured with")
    assert no_cjk(ascend.ridge_figure().label) == "Ascend 910B3 ridge point"
    assert no_cjk(machines[1].note) == "vendor nominal (dense)"
    vector, total = roofline.toolbox_fp16_910b3()
    assert "128 FP16 multiply-adds per Vector core per cycle" in no_cjk(vector.note)
    assert no_cjk(total.label).startswith("Cube + Vector")
    mine = roofline.measured_machine("cpu", 123.0, 45.0)
    assert no_cjk(mine.name) == "this machine, cpu (float32, measured)" and mine.peak.value == 0.123
    assert no_cjk(mine.bandwidth.label) == "on-device copy bandwidth (read + write)" and mine.bandwidth.value == 45.0
    work = [roofline.matmul(64, 64, 64), roofline.elementwise(1000), roofline.softmax(8, 8),
            roofline.conv2d(1, 3, 8, 4, 4, (3, 3), 6, 6)]
    assert [w.group for w in work] == ["matmul", "element-wise", "softmax", "ResNet-50 convolution"]
    assert work[1].name == "element-wise 1,000"
    _, ax = plt.subplots()
    roofline.plot(machines + [mine], work, points=[("n=1", 1.0, 0.1)], ax=ax)
    shown = no_cjk(texts_of(ax))
    assert "arithmetic intensity (FLOP/byte)" in shown and "Ascend 910B3 (ridge 192 FLOP/B)" in shown
    assert "matmul (attainable on Ascend 910B3)" in shown and "measured points" in shown
    assert roofline._markers()["matmul"] == roofline._markers()["矩阵乘"] == "o"  # a group's marker in either language
    plt.close("all")


def test_davinci_and_interconnect_in_english(en):
    import matplotlib.pyplot as plt

    from npulab.ascend_tools.smi.topo import parse_topo
    from npulab.core.paths import DATA_DIR

    _, ax = plt.subplots()
    davinci.draw_datapaths(ax=ax)
    shown = no_cjk(texts_of(ax))
    assert "Cube core (AIC, 20 in all): GM → L1 → L0A/L0B → Cube → L0C → FixPipe → GM" in shown
    assert "Vector core (AIV, 40 in all)" in shown and "UB\n192 KiB" in shown and "MTE2 in" in shown
    assert no_cjk(interconnect.describe("HCCS")).startswith("direct HCCS")
    assert all(no_cjk(interconnect.describe(kind)) for kind in interconnect.LINK_TYPES)
    assert no_cjk(interconnect.describe("FOO")).startswith("FOO: not in the course's table")
    topo = parse_topo((DATA_DIR / "samples" / "topo_910b3_8card.txt").read_text(encoding="utf-8"))
    _, ax = plt.subplots()
    interconnect.draw_topology(topo, ax=ax)
    assert "HCCS (28 pairs)" in no_cjk(texts_of(ax))
    plt.close("all")


def test_model_errors_in_english(en):
    assert no_cjk(message(formats.nz_shape, (3,))) == (
        "the ND array [..., M, N] needs at least 2 dimensions; got the 1-dimensional shape (3,)")
    assert "got complex64" in no_cjk(message(formats.nz_shape, (3, 4), "complex64"))
    assert "C1 = ceil(40/16) = 3 blocks" in no_cjk(
        message(formats.nc1hwc0_to_nchw, np.zeros((1, 1, 2, 2, 16), np.float16), 40))
    assert "(3, 3, 16, 16)" in no_cjk(message(formats.nz_to_nd, np.zeros((1, 2, 16, 16), np.float16), (40, 40)))
    spec = cube.spec_910b3()
    assert no_cjk(message(cube.plan_matmul, 64, 64, 64, spec, cube.Tiling(100, 100, 100))) == (
        "tiling Tiling(mt=100, kt=100, nt=100) needs L0A to hold 10000 fractals; it holds only 64")
    assert "A's columns must equal B's rows" in no_cjk(
        message(cube.simulate_matmul, np.zeros((3, 4), np.float16), np.zeros((3, 3), np.float16)))
    assert "float16, bfloat16, int8" in no_cjk(message(cube.spec_for, "910B3", "float64"))
    assert no_cjk(message(collectives.allreduce_time, 1, 3, 0, 1, "halving_doubling")) == (
        "halving_doubling needs n to be a power of 2; got n=3")
    assert "ring, mesh, halving_doubling" in no_cjk(message(collectives.allreduce_time, 1, 2, 0, 1, "tree"))
    assert "must be positive" in no_cjk(message(collectives.algbw, 1, 0))
    # the models still compute what they computed
    out, plan = cube.simulate_matmul(np.ones((32, 32), np.float16), np.ones((32, 32), np.float16))
    assert float(out[0, 0]) == 32.0 and plan.instructions == 8


def test_benchmark_words_in_english(en, capsys):
    results = [matmul.MatmulResult(n, "float32", timing([n / 1e4, n / 1e4 * 1.01, n / 1e4 * 0.99]))
               for n in (64, 128, 256)]
    assert no_cjk(results[0].figure().label) == "matmul 64×64 (float32) throughput"
    chosen, _ = matmul.show_headline(results)
    shown = no_cjk(capsys.readouterr().out)
    assert chosen.n == 256 and "The headline figure is taken at n=256 (float32)" in shown
    copies = [bandwidth.CopyResult(2**k, timing([2**k / 1e10] * 2)) for k in (12, 16, 20)]
    assert no_cjk(copies[2].figure().label) == "on-device copy bandwidth (1 MiB, read + write)"
    pinned = bandwidth.TransferResult(2**20, "h2d", True, timing([1e-3])).figure().label
    assert no_cjk(pinned) == "h2d bandwidth (1 MiB, pinned memory)"
    swept = bandwidth.Sweep("d2d", "cpu", copies)
    assert no_cjk(swept.saturation_text(2**14)) == (
        "saturation point (counting only sizes of at least the last-level cache, 16 KiB) ≈ 64 KiB, 20.0 GB/s")
    assert "what was measured is cache bandwidth" in no_cjk(swept.saturation_text(2**30))
    from npulab.bench.bandwidth import HOST_DEVICE_ON_CPU

    assert no_cjk(HOST_DEVICE_ON_CPU).startswith("Host↔device bandwidth only means something on an accelerator")
    assert "factor ≥ 2" in no_cjk(message(sweep.geometric_sizes, 0, 1))
    report = {"nproc": 2, "fit": {"alpha_s": 1e-5, "beta_bytes_per_s": 1e9}, "rows": [
        {"nbytes": 1024, "seconds": 2e-5, "busbw": 5e7}, {"nbytes": 4096, "seconds": 2.1e-5, "busbw": 2e8},
        {"nbytes": 16384, "seconds": 3e-4, "busbw": 8e7}, {"nbytes": 65536, "seconds": 8e-5, "busbw": 8e8},
        {"nbytes": 2**21, "seconds": 2e-3, "busbw": 1.2e9}, {"nbytes": 2**24, "seconds": 2e-2, "busbw": 0.9e9}]}
    seen = no_cjk("\n".join(allreduce.observations(report)))
    assert "The median time of 16384 B, 300 µs, is more than 3.7 times that of both neighbouring sizes (21 and 80 µs)" in seen and "knee n·α·β ≈ 20,000 B" in seen
    assert "The bus bandwidth at 2097152 B, 1.200 GB/s" in seen


def test_bench_commands_in_english(en, capsys):
    from npulab.__main__ import main

    assert main(["bench", "matmul", "--sizes", "32,64", "--repeats", "2", "--device", "cpu"]) == 0
    out = no_cjk(capsys.readouterr().out)
    assert out.startswith("Device: cpu") and "saturation point (smallest size reaching 90% of the best)" in out
    assert main(["bench", "allreduce", "--nproc", "1"]) != 0
    # the "Error:" frame around a usage error is npulab.core.cli's; the message itself is this module's
    assert "--nproc must be ≥ 2 (a collective needs at least two processes); got 1" in capsys.readouterr().err


def test_triton_launch_report_in_english(en):
    report = triton_launch.check_launch(triton_launch.vector_add_launch(10**8, 16))
    text = no_cjk(report.describe())
    assert text.startswith("vector_add: grid (6250000,) = 6250000 programs; on Ascend910B3, counted against 40 Vector cores")
    assert "[error] 6250000 programs exceed the coreDim limit 65535" in text
    assert "[warning] 6250000 programs are more than the 40 physical cores" in text
    assert "Suggestion: grid = (40,)" in text and not report.ok
    fine = triton_launch.check_launch(triton_launch.vector_add_launch(1000, 1024)).describe()
    assert no_cjk(fine).endswith("No problems found.")
    matmul_text = triton_launch.check_launch(triton_launch.matmul_launch(100, 100, 100, programs=1)).describe()
    assert "AI Cores (Cube cores)" in no_cjk(matmul_text) and "19 cores sit idle" in matmul_text
    assert "not among them" in no_cjk(message(triton_launch.target_for, "310P3"))


def test_kernel_paths_in_english(en):
    import matplotlib.pyplot as plt

    text = no_cjk(kernel_paths.table(("name", "on_npu", "effort", "sources")))
    assert text.startswith("| route | how it reaches the NPU | effort (qualitative, 1–5) | sources |")
    assert "| Ascend C custom operator (aclnn interface) |" in text and "| 5 |" in text
    fig = kernel_paths.draw()
    shown = no_cjk(texts_of(fig.axes[0]))
    assert "Six routes to a kernel" in shown and "CATLASS" in shown and "effort" in shown
    plt.close("all")
    assert kernel_paths.check() == []


def test_ascendc_in_english(en):
    import matplotlib.pyplot as plt

    tiling = plan_tiling(100000, "float32", core_num=8)
    text = no_cjk(tiling.describe())
    assert text.splitlines()[0] == "100000 × float32 (400000 bytes) shared among blockDim = 8 Vector cores"
    assert "UB use: 2 queues × 2 buffers × 49152 bytes = 196608 / 196608 bytes (100%)" in text
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plan_tiling(10**7, "float16", core_num=100)
    assert "exceeds the 40 Vector cores (AIV) of Ascend910B3" in no_cjk(str(caught[0].message))
    bad = ReluTiling(total_length=1024, dtype="float32", block_dim=4, block_length=256, tile_length=3, buffer_num=2)
    assert "Choose a multiple of 8 (such as 8)" in no_cjk(message(bad.validate))
    big = ReluTiling(total_length=1024, dtype="float32", block_dim=4, block_length=256, tile_length=100000, buffer_num=2)
    assert "The largest tileLength is 12288" in no_cjk(message(big.validate))
    que = emulator.TQue("VECIN")
    assert no_cjk(message(que.alloc_tensor, np.float32)) == "AllocTensor on the VECIN queue before its InitBuffer"
    with pytest.raises(AscendCError, match="only the queue positions VECIN and VECOUT"):
        emulator.TQue("A1")
    cost = CostModel.from_platform_file()
    assert no_cjk(str(cost.rows())).count("B/cycle") == 3
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    run = run_relu(x, plan_tiling(x.size, "float32", core_num=4))
    assert np.array_equal(run.y, np.maximum(x, 0))
    _, ax = plt.subplots()
    plot_timeline(schedule(run.trace, cost), ax)
    shown = no_cjk(texts_of(ax))
    assert "cycles (cost model)" in shown and "MTE2 (GM→UB in)" in shown and re.search(r"core 0: \d+ cycles in all", shown)
    plt.close("all")


def test_chinese_unchanged(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert roofline.measured_machine("cpu", 123.0, 45.0).name == "本机 cpu（float32，实测）"
    assert roofline.machines()[0].note == "峰值为推导值；带宽为原文的 ascend-dmi 实测值"
    assert interconnect.describe("PIX") == "经过同一个 PCIe 交换芯片"
    assert message(collectives.allreduce_time, 1, 3, 0, 1, "halving_doubling") == "halving_doubling 需要 n 为 2 的幂，收到 n=3"
    assert message(formats.nz_shape, (3,)) == "ND 数组 [..., M, N]需要至少 2 维，收到 1 维的形状 (3,)"
    swept = bandwidth.Sweep("d2d", "cpu", [bandwidth.CopyResult(2**k, timing([2**k / 1e10] * 2)) for k in (12, 16, 20)])
    assert swept.saturation_text(2**14) == "饱和点（只看不小于末级缓存 16 KiB 的尺寸） ≈ 64 KiB，20.0 GB/s"
    report = triton_launch.check_launch(triton_launch.vector_add_launch(10**8, 16)).describe()
    assert report.splitlines()[0] == ("vector_add：grid (6250000,) = 6250000 个 program，Ascend910B3 上按 40 个 Vector 核计，"
                                      "分 156250 轮下发；UB 估算 384 / 196608 字节")
    assert "  [错误] 6250000 个 program 超过 coreDim 上限 65535" in report
    assert plan_tiling(100000, "float32", core_num=8).describe().splitlines()[-1] == (
        "UB 占用：2 队列 × 2 buffer × 49152 字节 = 196608 / 196608 字节（100%）")
    assert kernel_paths.table(("name",)).splitlines()[2] == "| PyTorch 算子（含 torch_npu 融合算子） |"
    assert CostModel.from_platform_file().rows()[0] == ("MTE2 搬入速率", "32 B/周期", "平台配置文件 ddr_rate（单位未经确认）")
