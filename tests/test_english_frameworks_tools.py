"""Issue 37: what the lessons print through npulab's framework helpers (npulab.pytorch, npulab.mindspore) and
Ascend-tool helpers (npulab.ascend_tools) is English when npulab speaks English, and unchanged Chinese otherwise.

Real calls with real output: parsed npu-smi samples, atc command lines checked against the data file, the trace
CLI on a small Chrome trace, the compile verdict and figures, the MindSpore API pairs executed in both frameworks.
"""

from __future__ import annotations

import json

import pytest
from english_checks import CJK, no_cjk

from npulab.ascend_tools import atc, dmi, profiler_output
from npulab.ascend_tools import smi as smi_pkg
from npulab.ascend_tools.smi import queries, render, report, samples, triage
from npulab.core.device import Device
from npulab.core.timing import StepTimes, Timing
from npulab.pytorch import compile as cc
from npulab.pytorch import msprobe_cpu, precision, profile_trace, train

CPU = Device("cpu", "test cpu")


@pytest.fixture
def chinese(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "zh")


def _chrome_trace() -> dict:
    """Two steps: a host operator that launches a kernel, a host-only one, a 500 µs device gap (as in test_profile_trace)."""
    def x(name, cat, ts, dur, pid=1, tid=1, **args):
        return {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": pid, "tid": tid, "args": args}

    ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
          x("ProfilerStep#1", "user_annotation", 0, 1000), x("ProfilerStep#2", "user_annotation", 1000, 1000)]
    for base in (0, 1000):
        ev += [x("aten::mm", "cpu_op", base + 10, 50, **{"External id": base + 1}),
               x("cudaLaunchKernel", "cuda_runtime", base + 20, 10, correlation=base + 1),
               x("gemm_kernel", "kernel", base + 40, 300, pid=0, tid=7, **{"External id": base + 1}),
               x("aten::nonzero", "cpu_op", base + 100, 600, **{"External id": base + 2}),
               x("aten::relu", "cpu_op", base + 750, 20, **{"External id": base + 3}),
               x("relu_kernel", "kernel", base + 840, 100, pid=0, tid=7)]
    return {"traceEvents": ev}


# --- npu-smi: views, triage, report, CLI ---------------------------------------------------------------------------


def test_smi_views_are_english(en):
    info = smi_pkg.parse_info(samples.text("info_910b3_8card_24.1.rc1.txt"))
    text = no_cjk(render.info_text(info))
    assert "8 NPUs, 8 chips (910B3), 0 processes" in text
    assert "HBM used/total MB" in text and "Health" in text and "driver 24.1.rc1.b030" in text
    topo = no_cjk(render.topo_text(smi_pkg.parse_topo(samples.text("topo_910b3_8card.txt"))))
    assert "CPU affinity" in topo and "8 devices, 56 directed links (HCCS × 56)" in topo and "full mesh" in topo
    a3 = samples.text("info_a3_8npu_16die_25.2.1.txt")
    cut = smi_pkg.parse_info(a3[: a3.index("| 1     3 ")])  # cut inside NPU 1's second die, as the lesson does
    assert cut.partial and all(not CJK.search(w) for w in cut.warnings)
    assert "(incomplete input)" in cut.summary()
    watch = no_cjk(render.render("watch", smi_pkg.parse_watch(samples.text("watch_200ia2_flattened.txt"))))
    assert "NpuID" in watch or "npu_id" in watch.lower()
    groups = queries.groups()
    assert "hardware information" in groups and "health" in groups["health and errors"]
    with pytest.raises(smi_pkg.SmiUnsupported, match="does not support the topology query"):
        smi_pkg.parse_topo(samples.text("topo_unsupported_200ia2.txt"))
    with pytest.raises(smi_pkg.SmiParseError, match="Cannot recognise this text"):
        smi_pkg.parse("hello world")


def test_smi_triage_and_report_are_english(en, tmp_path):
    findings = (triage.health_findings(smi_pkg.parse_health(samples.text("health_910_23.0.5.txt")), "card")
                + triage.health_findings({"health_status": "Warning", "error_code": "8C", "npu_id": 1, "chip_id": 0})
                + triage.ecc_findings({"npu_id": 0, "hbm_double_bit_error_count": 2, "hbm_single_bit_error_count": 10**6})
                + triage.pcie_findings({"npu_id": 0, "rx_err_count": 3}))
    text = no_cjk("\n".join(f"{f.where} {f.message}" for f in findings))
    assert "NPU 1 chip 0 minor alarm: 8C" in text and "uncorrectable multi-bit errors" in text
    assert "1000000 correctable errors so far" in text and "the PCIe link has error counts" in text
    summary = report.collect(tmp_path / "snap", environ={"PATH": "/nonexistent"}, root=tmp_path)
    md = no_cjk((tmp_path / "snap" / "summary.md").read_text(encoding="utf-8"))
    assert summary["verdict"] == "ok"
    assert "# Ascend host diagnostic snapshot" in md and "- Verdict: no problems found" in md
    assert "no npu-smi on PATH" in md and "## Steps" in md


def test_smi_cli_is_english(en, tmp_path, capsys):
    from npulab.__main__ import main

    sample = samples.path("info_a3_8npu_16die_25.2.1.txt")
    assert main(["smi", "parse", str(sample)]) == 0
    out = no_cjk(capsys.readouterr().out)
    assert "[info]" in out and "8 NPUs, 16 chips" in out
    cut = tmp_path / "cut.txt"
    text = sample.read_text(encoding="utf-8")
    cut.write_text(text[: text.index("| 1     3 ")], encoding="utf-8")
    assert main(["smi", "parse", str(cut)]) == 1
    captured = capsys.readouterr()
    assert "Note: the input is incomplete" in no_cjk(captured.err)
    assert main(["smi", "parse", str(tmp_path / "missing.txt")]) == 2
    assert "file not found" in capsys.readouterr().err


# --- atc, ascend-dmi, profiler output, trace CLI -------------------------------------------------------------------


def test_atc_command_reasons_and_errors_are_english(en):
    cmd = atc.command("resnet50.pb", soc_version="Ascend910B3", input_shape="x:1,224,224,3", input_format="NHWC",
                      output="resnet50.om")
    text = no_cjk(cmd.explain())
    assert "--soc_version=Ascend910B3" in text and "Atlas A2 training/inference series (Ascend 910B)" in text
    assert "the default applies: ATC docs: default force_fp16" in text
    assert "Note: leave .om off --output" in text
    mixed = atc.command("m.pb", soc_version="Ascend310P3", precision_mode="allow_mix_precision", mode=3).explain()
    assert "automatic mixed precision" in no_cjk(mixed) and "pre-check only" in mixed
    for kwargs, words in [({"soc_version": "910B3"}, "needs the Ascend prefix: write Ascend910B3"),
                          ({"soc_version": "Ascend910B3", "framework": 2}, "there is no 2 or 4"),
                          ({"soc_version": "Ascend310P3", "precision_mode": "allow_mix_precision_bf16"}, "needs a chip with BF16"),
                          ({"soc_version": "Ascend910B3", "input_shape": "x"}, "name:dim,dim")]:
        with pytest.raises(atc.AtcError) as err:
            atc.command("m.onnx", **kwargs)
        assert words in no_cjk(str(err.value))
    value, why = atc.default_precision("Ascend910B3")
    assert value == "force_fp16" and "must_keep_origin_dtype" in no_cjk(why)


def test_dmi_and_profiler_output_errors_are_english(en, tmp_path):
    with pytest.raises(ValueError, match="appears only in the seed article") as err:
        dmi.diagnosis_command(["p2p"])
    no_cjk(str(err.value))
    modes = {m["key"]: m for m in dmi.modes()}
    assert modes["flops"]["what"].startswith("compute test: loads every AI Core")
    assert modes["diagnosis"]["cuda"] == "part of nvidia-smi -q" and modes["bandwidth"]["needs"] == "driver + CANN (AscendCL)"
    items = dmi.diagnosis_items("seed")
    assert len(items) == 12 and all(not CJK.search(i["what"] + i["kind"]) for i in dmi.diagnosis_items())
    with pytest.raises(ValueError, match="not the output of ascend-dmi --dg"):
        dmi.parse_diagnosis("nothing here")
    with pytest.raises(profiler_output.ProfilerOutputError) as err:
        profiler_output.find_output_dir(tmp_path)
    assert "no ASCEND_PROFILER_OUTPUT folder" in no_cjk(str(err.value))


def test_trace_cli_and_timeline_are_english(en, tmp_path, capsys):
    import matplotlib

    matplotlib.use("Agg")
    from npulab.__main__ import main

    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_chrome_trace()), encoding="utf-8")
    assert main(["trace", str(path)]) == 0
    out = no_cjk(capsys.readouterr().out)
    assert "2 steps, capture window 2.00 ms" in out
    assert "Busy according to: device kernels; idle ratio 60.0%" in out
    assert "Top-level operators that ran on the host only" in out and "Self time (ms)" in out
    assert main(["trace", str(tmp_path / "missing.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    trace = profile_trace.load(path)
    gaps = profile_trace.utilisation(trace, min_gap_us=100).gaps
    assert gaps[-1].after == "(window end)" or all(not CJK.search(g.before + g.after) for g in gaps)
    ax = profile_trace.plot_timeline(trace)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["steps / annotations", "host operators (top level)", "device kernels"]
    assert no_cjk(ax.get_title()) == "Timeline of the first 2 steps (red: idle gaps)"


# --- PyTorch helpers -----------------------------------------------------------------------------------------------


def _times(first, times):
    return StepTimes("x", None, first, Timing(tuple(times), 2, "cpu"))


def test_compile_verdict_and_figures_are_english(en):
    faster = cc.CompileComparison(_times(0.05, [0.010] * 3), _times(2.004, [0.004] * 3))
    sentence = str(faster.verdict())
    assert sentence.startswith("The compiled step is faster: eager / compiled = 2.50")
    assert "paid back after about 333 steps" in sentence
    figures = faster.figures(CPU)
    labels = [f.label for f in figures]
    assert labels[0] == "eager: first step" and "Steps to pay back" in labels
    assert all(not CJK.search(f.label + f.note + f.unit) for f in figures)
    slower = cc.CompileComparison(_times(0.05, [0.010] * 3), _times(2.0, [0.020] * 3))
    assert "never paid back" in str(slower.verdict())
    with pytest.raises(ValueError, match="exceeds the largest bucket 16"):
        cc.bucket_size(100, [8, 16])


def test_training_figures_and_tables_are_english(en):
    flop = train.training_flop_per_image(64)
    assert flop.label == "ResNet-50 training FLOP/image (64×64)" and not CJK.search(flop.note)
    mfu = train.mfu(100.0, train.training_flop_per_image(224), 300.0)
    assert mfu.label == "Model FLOPs utilisation (MFU)" and "TFLOPS achieved" in mfu.note
    run = msprobe_cpu.CompareRun([{"NPU Name": "Module.fc.Linear.forward.0.output.0", "NPU Dtype": "torch.float16",
                                   "Bench Dtype": "torch.float32", "MaxRelativeErr": "0.0123456%",
                                   "NormRelativeErr": "0.5%", "Result": "warning"}], 1.0, [], [])
    html = no_cjk(run.compare_table("msprobe")._repr_html_())
    assert "Norm relative error" in html and "warning (warning)" in html and "0.0123%" in html
    support = precision.dtype_support()
    names = [p["name"] for p in support["product_lines"] if "chip" not in p and "dtypes" not in p]
    assert names[2] == "Atlas A2 training/inference series (Ascend 910B)" and all(not CJK.search(n) for n in names)
    assert support["hf32"]["what"].startswith("FP32 matrix multiplications") and not CJK.search(support["float64"]["what"])
    assert not CJK.search(support["sources"]["atc_precision_mode"]["title"])


# --- MindSpore helpers ---------------------------------------------------------------------------------------------


def test_mindspore_pairs_and_timing_are_english(en):
    pytest.importorskip("mindspore")
    from npulab.mindspore import api_pairs as ms_pairs
    from npulab.mindspore import timing as ms_timing

    table = no_cjk(ms_pairs.table()._repr_html_())
    assert "batch normalisation" in table and "(added by the course)" in table and "MindSpore (today&#x27;s form)" in table
    sgd = ms_pairs.check("sgd")
    text = no_cjk(str(sgd))
    assert text.startswith("✓ sgd: losses of 5 steps max difference") and "copied as is: nn.SGD" in text
    html = no_cjk(ms_pairs.results_table([sgd])._repr_html_())
    assert "Literal translation gives (measured)" in html
    assert ms_timing.MODES["graph"].startswith("GRAPH_MODE (the whole training step")
    assert all(not CJK.search(title) for title in ms_timing.MODES.values())
    verdict = ms_timing.compare(Timing((1.0, 1.0, 1.0), 1, "cpu"), "A", Timing((0.5, 0.5, 0.5), 1, "cpu"), "B")
    assert str(verdict).startswith("B is faster than A: the medians' ratio is 2.0×")


# --- Chinese stays as it was ---------------------------------------------------------------------------------------


def test_chinese_output_is_unchanged(chinese, tmp_path):
    info = smi_pkg.parse_info(samples.text("info_910b3_8card_24.1.rc1.txt"))
    assert render.info_text(info).startswith("npu-smi 24.1.rc1.b030，驱动 24.1.rc1.b030：8 个 NPU、8 个芯片（910B3），0 个进程")
    topo = smi_pkg.parse_topo(samples.text("topo_910b3_8card.txt"))
    assert topo.summary() == "8 个设备，56 个有向链路（HCCS × 56），两两之间都是 HCCS 直连（全互联）"
    assert "硬件信息" in queries.groups()
    assert dmi.modes()[0]["needs"] == "驱动（DCMI）" and dmi.diagnosis_items()[0]["kind"] == "软件"
    cmd = atc.command("m.pb", soc_version="Ascend910B3", output="o.om")
    assert "  --model=m.pb" in cmd.explain() and "要转换的模型文件" in cmd.explain()
    assert "注意：--output 不要带 .om" in cmd.explain()
    with pytest.raises(atc.AtcError, match="--soc_version 要带 Ascend 前缀：应写 Ascend910B3（npu-smi 的 Name 列前加 Ascend）"):
        atc.command("m.onnx", soc_version="910B3")
    faster = cc.CompileComparison(_times(0.05, [0.010] * 3), _times(2.004, [0.004] * 3))
    assert str(faster.verdict()).startswith("编译后每步更快：eager / 编译后 = 2.50（")
    assert [f.label for f in faster.figures(CPU)][:2] == ["eager：第一步", "eager：稳态中位步时"]
    assert train.mfu(100.0, train.training_flop_per_image(224), 300.0).label == "模型 FLOPs 利用率（MFU）"
    assert msprobe_cpu.result_text("pass") == "通过（pass）"
    assert precision.dtype_support()["product_lines"][0]["name"] == "Atlas 训练系列（第一代 Ascend 910 / 910A）"
    report.collect(tmp_path, environ={"PATH": "/nonexistent"}, root=tmp_path)
    md = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert md.startswith("# 昇腾主机诊断快照（") and "- 结论：未发现问题" in md
