"""The measurement layer in English (issue 37): verdicts, interleaved comparisons, timings, figures with provenance,
peaks, notebook errors, the plot warning, the verdict audit and the lessons' run-time claims speak English when
npulab does (NPULAB_LANG=en), with the same numbers; Chinese stays what it was."""

from __future__ import annotations

import json
import warnings

import pytest
from english_checks import CJK, no_cjk

from npulab.core import comparison, i18n, peaks, plotting, provenance, verdicts
from npulab.core.comparison import FASTER, NOISY, SAME, SLOWER, VERDICT_KEY, Comparison
from npulab.core.device import pick_device
from npulab.core.display import Table
from npulab.core.notebook_cells import NotebookError, find_notebooks, parse_notebook
from npulab.core.paths import REPO_ROOT
from npulab.core.timing import Timing, benchmark, time_steps
from npulab.course import verdict_audit
from npulab.course.measuring import measuring_lessons
from npulab.course.run_claims import run_time_text, stale_lessons, sync_lessons

REST = [1.0, 1.1, 0.9, 1.05, 1.0]


class Quiet:
    def busy(self):
        return None


class Busy:
    def busy(self):
        return "1-minute load average 3.10, above 2 cores"


def interleaved(verdict: str, low: float, high: float, rounds: int = 10, seconds: float = 6.3) -> Comparison:
    return Comparison(Timing((1.0,) * rounds, 2, "cpu", "A"), Timing((0.5,) * rounds, 2, "cpu", "B"),
                      (2.0,) * rounds, low, high, verdict, seconds, 0.1, 5)


def test_interleaved_comparison_sentences(en):
    assert no_cjk(interleaved(FASTER, 1.8, 2.3).sentence("loop", "vectorised")) == (
        "vectorised is faster: about 2.00× (10 interleaved rounds (6.3 s in all), median per-round time ratio "
        "loop/vectorised 2.00, ~90% confidence interval 1.80–2.30).")
    assert no_cjk(interleaved(SLOWER, 0.3, 0.5).sentence("a", "b")).startswith("b is slower, not faster: about 0.50×")
    assert "within ±10% of each other" in no_cjk(interleaved(SAME, 0.95, 1.05).sentence("a", "b"))
    busy = no_cjk(interleaved(NOISY, 0.5, 1.6, rounds=3, seconds=0.5).sentence("a", "b"))
    assert "too busy" in busy and "only 3 rounds fitted in the budget, and a verdict needs at least 5" in busy
    assert "3 interleaved rounds (500 ms in all)" in busy and "0.50–1.60" in busy
    assert "the interval crosses the ±10% line" in no_cjk(interleaved(NOISY, 0.5, 1.6).sentence("a", "b"))


def test_default_words_and_too_few_repeats(en):
    v = comparison.verdict("demo", 2.0, 1.8, 2.2, a="loop", b="vectorised")
    assert no_cjk(v.text) == "vectorised is faster: median loop/vectorised 2.00 (loop/vectorised: ~90% confidence interval 1.80–2.20)."
    assert no_cjk(comparison.verdict("d", 0.5, 0.4, 0.6).text).startswith("B is slower: median B/A 2.00")
    assert "no verdict on which is faster" in no_cjk(comparison.verdict("d", 1.0, 0.5, 1.6).text)
    few = no_cjk(comparison.between("few", [1.0, 1.1], [2.0, 2.1], a="x", b="y").text)
    assert few.startswith("Too few repeats of x and y (at least 3 are needed)")


def test_the_course_claims(en):
    slow = verdicts.cold_start(3.0, REST)
    assert slow.verdict == FASTER and no_cjk(slow.text) == (
        "Against the median of the other 5 runs, the first run was slower: 3.0× "
        "(the first run/the other 5 runs: ~90% confidence interval 2.73–3.33).")
    assert "was faster, not slower" in no_cjk(verdicts.cold_start(0.3, REST).text)
    assert "is within ±20%" in no_cjk(verdicts.cold_start(1.0, REST).text)
    assert "vary too much" in no_cjk(verdicts.cold_start(1.5, [0.5, 3.0, 1.0, 2.0, 0.2]).text)
    for accelerator in (True, False):
        for verdict, low, high in ((FASTER, 1.8, 2.3), (SLOWER, 0.3, 0.5), (SAME, 0.98, 1.02), (NOISY, 0.5, 1.6)):
            v = verdicts.sync_cost(interleaved(verdict, low, high), accelerator)
            assert v.a == "unsynchronised" and v.b == "synchronised" and f"{low:.2f}–{high:.2f}" in no_cjk(v.text)
    assert "mostly measures the launch" in verdicts.sync_cost(interleaved(SLOWER, 0.3, 0.5), True).text
    assert "On a CPU both do the same thing" in verdicts.sync_cost(interleaved(FASTER, 1.8, 2.3), False).text
    base = [1.0, 1.01, 0.99, 1.0, 1.0]
    step = no_cjk(verdicts.batch_step(4, [2.0] * 5, base).text)
    assert step.startswith("Per step, batch 4 takes 2.00× as long as batch 1") and "4 ÷ 2.00 = 2.00×" in step
    assert "cannot be a real difference" in no_cjk(verdicts.batch_step(4, [0.5] * 5, base).text)
    assert "lies on the ideal line" in no_cjk(verdicts.batch_step(4, [1.0] * 5, base).text)


def test_same_direction_under_load_and_window(en):
    faster = comparison.verdict("a", 2, 1.5, 2.5, a="x", b="y")
    slower = comparison.verdict("b", 0.5, 0.4, 0.6, a="x", b="y")
    noisy = comparison.verdict("c", 1, 0.5, 1.6)
    assert no_cjk(verdicts.same_direction(faster, faster, "one convolution", "the step")).startswith(
        "The verdicts on one convolution and on the step point the same way (y is faster in both)")
    assert "point opposite ways" in no_cjk(verdicts.same_direction(faster, slower, "p", "w"))
    assert "does not say which side is faster" in no_cjk(verdicts.same_direction(noisy, faster, "p", "w"))
    loaded = verdicts.under_load(faster, Busy(), Busy(), Quiet())
    assert loaded.verdict == NOISY and no_cjk(loaded.text).startswith(
        "Other work shared the CPU while this was measured (1-minute load average 3.10, above 2 cores)")
    assert "1.50–2.50" in loaded.text
    assert verdicts.under_load(faster, Quiet()) is faster
    for accelerator in (True, False):
        for steps in ([1.0] * 5, [2.0, 2.1, 1.9, 2.0, 2.0], [0.5] * 5):
            v = verdicts.window_steps("fp32", 1.0, steps, Quiet(), accelerator)
            assert v.a == "window steps (fp32)" and v.b == "synchronised steps" and no_cjk(v.text)
    cpu = verdicts.window_steps("fp32", 1.0, [0.5] * 5, Quiet(), False).text
    assert cpu.startswith("The synchronised steps are faster: median window steps (fp32)/synchronised steps 2.00")
    assert cpu.endswith("not from the cost of synchronising.")


def test_timings_and_their_errors(en):
    t = Timing((0.001, 0.0012, 0.0011), 3, "cpu", "matmul")
    assert no_cjk(str(t)) == "matmul @ cpu: median 1.100 ms (runs 3, warm-up 3, spread 18%)"
    fig = t.figure()
    assert fig.label == "matmul" and fig.origin == "this machine, cpu" and no_cjk(fig.note) == "median; runs 3, warm-up 3, spread 18%"
    assert Timing((0.002,), 1, "cpu").figure().label == "median"
    rate = t.rate_figure("throughput", 2e9, "GFLOP/s", 1e9)
    assert rate.value == 1818.0 and no_cjk(rate.note) == "work 2e+09 ÷ median 0.0011 s (runs 3, warm-up 3)"
    assert "median" in str(benchmark(lambda: None, warmup=0, repeats=2))
    for call, words in ((lambda: benchmark(lambda: 0, repeats=0), "repeats must be ≥ 1"),
                        (lambda: time_steps(lambda: 0, sync=lambda: 0, warmup=0), "warmup must be at least 1"),
                        (lambda: comparison.compare(lambda: 0, lambda: 0, min_rounds=0), "got min_rounds=0"),
                        (lambda: Table(["a", "b"], [[1]]), "each row should have 2 columns; this one has 1"),
                        (lambda: provenance.evaluate("x + 1"), "uses an input that was not given: 'x'"),
                        (lambda: provenance.evaluate("print(1)"), "a formula may call only min, max"),
                        (lambda: provenance.evaluate("a.b", a=1), "contains Attribute")):
        with pytest.raises(ValueError) as err:
            call()
        assert words in no_cjk(str(err.value))
    with pytest.raises(KeyError, match="no reported figure 'no.such'"):
        provenance.reported("no.such")


def test_figure_table_and_reported_figures(en):
    speedup = provenance.reported("seed.hello.speedup")
    assert speedup.value == 164.6 and no_cjk(speedup.label) == "ratio of the two above (CPU time / NPU time)"
    assert no_cjk(speedup.origin).startswith("Huawei NPU programming primer") and "; hardware: 8 × Ascend 910B3" in speedup.origin
    assert "; versions: CANN 8.0.1" in speedup.origin and "single timings" in no_cjk(speedup.note)
    assert provenance.reported("triton_ascend.coredim_max").unit == ""
    assert provenance.reported("qwen3_32b.params_b").formatted() == "32.8 ×10⁹"
    every = [provenance.reported(k) for k in provenance.figure_entries() if not k.startswith(("chip.", "ini."))]
    assert all(not CJK.search(f.label + f.note + f.origin + f.unit) for f in every)
    derived = provenance.derive("speed-up", "t_cpu / t_npu", "×", t_cpu=351.01, t_npu=2.13)
    assert derived.value == 164.8 and derived.origin == "t_cpu / t_npu (t_cpu = 351.01, t_npu = 2.13)"
    table = provenance.FigureTable([provenance.measured("median", 1.5, "ms", "cpu"), derived, speedup], "Figures")
    text = no_cjk(table.text())
    assert text.splitlines()[1].split() == ["Value", "Kind", "Meaning", "Source", "/", "device", "/", "formula", "Note"]
    assert "measured" in text and "derived" in text and "see note [1]" in text and "Sources:" in text
    assert "<th>Source / device / formula</th>" in no_cjk(table._repr_html_())
    assert [k.label for k in provenance.Kind] == ["measured", "recorded", "reported", "derived"]
    assert provenance.Kind.MEASURED.value == "实测", "the enum's value stays the Chinese name"


def test_cpu_peak_is_worded_in_english(en, monkeypatch):
    info = "processor : 0\nphysical id : 0\ncore id : 0\ncpu MHz : 2600.0\nflags : avx2 fma\n"
    monkeypatch.setattr(peaks, "read_cpuinfo", lambda: info)
    monkeypatch.setattr(peaks.os, "sched_getaffinity", lambda _: {0}, raising=False)
    peak = peaks.fp32_peak(pick_device("cpu"))
    assert peak.value == pytest.approx(83.2) and peak.label == "CPU FP32 theoretical peak"
    assert no_cjk(peak.note).startswith("cores is the number of physical cores; assumes two FMA pipelines")
    assert "cores = 1, ghz = 2.6, flop_per_cycle = 32" in no_cjk(peak.origin)


def test_notebook_errors_and_plot_warning(en, tmp_path):
    (tmp_path / "x.txt").write_text("", encoding="utf-8")
    errors = find_notebooks([tmp_path / "missing", tmp_path / "x.txt"])[1]
    assert [why for _, why in errors] == ["no such path", "not an .ipynb notebook"]
    for data, words in ((b"\xff\xfe", "not UTF-8 text"), ("{", "not valid JSON ("), ("[]", "not a Jupyter notebook (no list of cells)"),
                        ('{"cells": [], "nbformat": 3}', "nbformat 3 is not supported"),
                        ('{"cells": [{"source": 1}]}', "cell 1 is malformed (its source"),
                        ('{"cells": [{"source": "", "metadata": 1}]}', "cell 1 is malformed (its metadata")):
        with pytest.raises(NotebookError) as err:
            parse_notebook(data)
        assert str(err.value).startswith(words)
    en.setattr(plotting, "cjk_font", lambda: None)  # a machine without a CJK font
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plotting.use_course_style()
    message = no_cjk(str(caught[0].message))
    assert message.startswith("No Chinese font found") and "sudo apt-get install -y fonts-noto-cjk" in message


def _notebook(*outputs):
    return {"cells": [{"cell_type": "code", "source": "", "outputs": list(outputs)}]}


def _shown(record, text=None):
    return {"output_type": "display_data", "metadata": {VERDICT_KEY: record}, "data": {"text/plain": text or record["text"]}}


FOOTER = {"output_type": "display_data", "metadata": {verdict_audit.FOOTER_KEY: {"claim": "machine"}},
          "data": {"text/plain": "Measured on: …"}}


def test_the_audit_reads_english_verdicts(en):
    good = [verdicts.cold_start(3.0, REST), verdicts.cold_start(1.0, REST), verdicts.cold_start(0.3, REST),
            verdicts.sync_cost(interleaved(SLOWER, 0.3, 0.5), True), verdicts.sync_cost(interleaved(NOISY, 0.5, 1.6), False),
            verdicts.batch_step(4, [2.0] * 5, [1.0, 1.01, 0.99, 1.0, 1.0]),
            verdicts.under_load(comparison.verdict("a", 2, 1.5, 2.5, a="x", b="y"), Busy()),
            verdicts.window_steps("bf16", 1.0, [0.5] * 5, Quiet(), False)]
    assert verdict_audit.audit(_notebook(*(_shown(v.record()) for v in good), FOOTER)) == []
    wrong = {**verdicts.cold_start(3.0, REST).record(), "verdict": SLOWER}
    problems = verdict_audit.audit(_notebook(_shown(wrong), FOOTER))
    assert problems == ["cell 0 (cold_start): says the other 5 runs is slower, but the interval 2.727–3.333 is not wholly below 1"]
    cut = {**verdicts.cold_start(3.0, REST).record()}
    cut["text"] = cut["text"].replace("2.73–3.33", "…")
    assert verdict_audit.audit(_notebook(_shown(cut))) == [
        "cell 0 (cold_start): the sentence does not show the interval it rests on, 2.73–3.33",
        "verdicts without the footer on the measuring machine (npulab.core.machine.LoadWatch.footer)"]
    best = {"claim": "headline", "kind": "best", "lows": [1, 2], "index": 1, "labels": ["n=1", "n=2"], "value": 2.5,
            "low": 2, "high": 3, "spread_ok": False, "text": "The headline is n=2; its repeats scatter, so it is unreliable."}
    assert verdict_audit.audit(_notebook(_shown(best), FOOTER)) == []
    assert verdict_audit.audit(_notebook(_shown({**best, "text": "The headline is n=2."}), FOOTER)) == [
        "cell 0 (headline): the headline size's interval is wide, yet the sentence does not say it is unreliable"]
    zero = {"output_type": "stream", "name": "stdout", "text": "MindSpore/PyTorch ratio: 0\nratio 0.18\n"}
    assert verdict_audit.zero_ratios(_notebook(zero)) == [
        'cell 0: a ratio printed as 0 ("ratio: 0"): use a significant-digit format (such as .2g)']
    assert all(not CJK.search(p) for p in problems)


def test_run_time_claims_of_the_english_book(en, tmp_path):
    times = {"machine": "AMD EPYC，2 核", "date": "2026-12-02", "seconds": {"chapters/a.ipynb": 47.8}}
    assert run_time_text(47.8, times, "en") == "(all cells measured at 48 s on a CPU, AMD EPYC, 2 cores, 2026-12-02)"
    assert run_time_text(5.5, {}, "en") == "(all cells measured at 5.5 s on a CPU)"
    assert run_time_text(None, times, "en") == "(all cells on a CPU: not measured yet)"
    assert run_time_text(47.8, times) == "（CPU 上运行全部单元实测 48 s，AMD EPYC，2 核，2026-12-02）", "the book decides, not NPULAB_LANG"
    lesson = tmp_path / "en" / "chapters" / "a.ipynb"
    lesson.parent.mkdir(parents=True)
    cells = [{"cell_type": "markdown", "metadata": {},
              "source": ["| 40 minutes (all cells on the CPU: 1 min measured, AMD EPYC, 2 cores, 2026-12-01) |"]}]
    lesson.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    assert stale_lessons(times, tmp_path) == [] and stale_lessons(times, tmp_path, books=("en",)) == ["en/chapters/a.ipynb"]
    assert sync_lessons(times, tmp_path, books=("zh", "en")) == ["en/chapters/a.ipynb"]
    source = "".join(json.loads(lesson.read_text(encoding="utf-8"))["cells"][0]["source"])
    assert source == "| 40 minutes (all cells measured at 48 s on a CPU, AMD EPYC, 2 cores, 2026-12-02) |"
    assert stale_lessons(times, tmp_path, books=("en",)) == []


def test_english_lessons_state_the_measured_times():
    """An English lesson's claim may still use the older wording, but never another number than the measured one."""
    from npulab.workshop import load_times

    times = load_times()
    for rel in stale_lessons(times, books=("en",)):
        seconds = times["seconds"].get(rel.removeprefix("en/"))
        shown = f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
        assert f"all cells on the CPU: {shown} measured" in (REPO_ROOT / rel).read_text(encoding="utf-8"), rel


def test_the_english_book_marks_the_same_measuring_lessons():
    assert [f"en/{p}" for p in measuring_lessons(REPO_ROOT)] == measuring_lessons(REPO_ROOT, books=("en",))


def test_chinese_is_unchanged(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert verdicts.cold_start(3.0, REST).text == "第一次比其余 5 次的中位数慢：3.0 倍（第一次/其余 5 次 的约 90% 置信区间 2.73–3.33）。"
    assert interleaved(FASTER, 1.8, 2.3).sentence("循环", "向量化") == (
        "向量化更快：约 2.00 倍（10 轮交替测量（共 6.3 s），每轮时间比 循环/向量化 的中位数 2.00，约 90% 置信区间 1.80–2.30）。")
    assert verdicts.window_steps("fp32", 1.0, [0.5] * 5, Quiet(), False).text.startswith(
        "逐步同步各步更快：连续窗口每步（fp32）/逐步同步各步 的中位数 2.00")
    assert str(Timing((0.001, 0.0012, 0.0011), 3, "cpu", "matmul")) == "matmul @ cpu: 中位数 1.100 ms （3 次重复，预热 3 次，离散度 18%）"
    fig = provenance.reported("seed.hello.speedup")
    assert fig.label == "上面两项之比（CPU 时间 / NPU 时间）" and fig.origin.startswith("华为 NPU 编程入门")
    assert provenance.reported("triton_ascend.coredim_max").unit == "个"
    assert provenance.FigureTable([fig]).headers == ["数值", "类型", "含义", "出处 / 设备 / 公式", "说明"]
    wrong = {**verdicts.cold_start(3.0, REST).record(), "verdict": SLOWER}
    assert verdict_audit.audit(_notebook(_shown(wrong), FOOTER)) == [
        "单元 0（cold_start）：说 其余 5 次 更慢，但区间 2.727–3.333 不全在 1 之下"]


def test_measure_messages_keep_to_their_prefixes():
    from npulab.core.paths import load_yaml

    keys = load_yaml(i18n.CATALOGUE / "measure.yaml")
    prefixes = ("verdict.", "compare.", "timing.", "provenance.", "display.", "peaks.", "cells.", "plot.", "audit.")
    assert keys and all(k.startswith(prefixes) for k in keys)
