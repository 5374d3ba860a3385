"""Verdicts on recorded numbers: the noisy cases that once contradicted a published page, and the audit that
reads them back (npulab.core.comparison, npulab.core.verdicts, npulab.course.verdict_audit)."""

import itertools
import statistics

import pytest

from npulab.bench.matmul import MatmulResult, headline
from npulab.core import comparison, machine, verdicts
from npulab.core.comparison import FASTER, NOISY, SAME, SLOWER
from npulab.core.timing import StepTimes, Timing
from npulab.course import verdict_audit
from npulab.pytorch.compile import CompileComparison


def _audit(v: comparison.Verdict) -> list[str]:
    return verdict_audit.problems_of(verdict_audit.Printed(0, v.text, v.record()))


def _interleaved(a, b, **kw):
    """compare() on a fake clock that only the two timed functions advance."""
    now = [0.0]
    cycle_a, cycle_b = itertools.cycle(a), itertools.cycle(b)

    def fa():
        now[0] += next(cycle_a)

    def fb():
        now[0] += next(cycle_b)

    kw.setdefault("budget_s", 1e9)
    return comparison.compare(fa, fb, "cpu", clock=lambda: now[0], sync=lambda: None, **kw)


# --- Hello NPU 4.1: "冷启动是中位数的 0.3 倍" beside "第一次往往最慢" -------------------------------------------------


def test_a_cold_start_at_0_3_times_the_median_is_not_called_slowest():
    rest = [1.0, 1.1, 0.9, 1.3, 1.0, 2.5, 1.0, 0.95, 1.2, 1.05, 1.0, 3.0, 0.9, 1.1]
    v = verdicts.cold_start(0.3 * statistics.median(rest), rest)
    assert v.verdict == SLOWER and v.ratio == pytest.approx(0.3)
    assert "看不出一次性开销的代价" in v.text and "慢：" not in v.text
    assert not _audit(v)


def test_a_cold_start_clearly_above_the_rest_is_called_slower_with_its_factor():
    v = verdicts.cold_start(5.0, [1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03, 0.97])
    assert v.verdict == FASTER and v.text.startswith("第一次比其余 8 次的中位数慢：5.0 倍")
    assert not _audit(v)


def test_a_cold_start_among_scattered_repeats_is_undecidable():
    v = verdicts.cold_start(1.5, [0.5, 3.0, 1.0, 2.2, 0.7, 4.0, 1.4])
    assert v.verdict == NOISY and "判断不了" in v.text and not _audit(v)


# --- Hello NPU 4.1: "不同步 14.0 ms，同步 1.2 ms" beside "两者应当接近" ------------------------------------------


def test_a_load_burst_on_one_side_does_not_decide_the_sync_comparison():
    # one round in four of the unsynchronised timing hit by a burst: 14.0 ms against 1.2 ms
    result = _interleaved([0.0140, 0.0012, 0.0012, 0.0012], [0.0012], max_rounds=200)
    v = verdicts.sync_cost(result, accelerator=False)
    assert v.verdict == SAME and "符合预期" in v.text and not _audit(v)


def test_on_a_cpu_a_real_gap_is_blamed_on_the_load_not_called_close():
    result = _interleaved([0.0140], [0.0012])
    v = verdicts.sync_cost(result, accelerator=False)
    assert v.verdict == FASTER and "其他负载" in v.text and "接近" not in v.text and not _audit(v)


def test_on_an_accelerator_the_unsynchronised_timing_measures_the_launch():
    v = verdicts.sync_cost(_interleaved([0.0001], [0.0050]), accelerator=True)
    assert v.verdict == SLOWER and "下发时间" in v.text and "1/50.0" in v.text


def test_a_sync_comparison_cut_short_by_the_budget_says_so():
    result = _interleaved([0.010, 0.010], [0.020, 0.005], budget_s=0.05)
    v = verdicts.sync_cost(result, accelerator=False)
    assert v.verdict == NOISY and "太忙" in v.text and not v.decisive and not _audit(v)


# --- Hello NPU 4.3: the "占峰值" headline from a size at 2581 % dispersion -------------------------------------------


def _mm(n, times):
    return MatmulResult(n, "float32", Timing(tuple(times), 3, "cpu"))


def test_the_headline_is_not_a_size_with_a_lucky_median():
    burst = _mm(1024, [0.05, 0.05, 0.05, 0.05, 1.34, 1.34, 1.34])  # dispersion (1.34 − 0.05) / 0.05 = 2580 %
    assert burst.timing.spread == pytest.approx(25.8)
    steady = _mm(2048, [0.50, 0.51, 0.49, 0.50, 0.50, 0.52, 0.50])
    results = [_mm(512, [0.02] * 7), burst, steady]
    assert max(results, key=lambda r: r.gflops) is burst  # what "best size" used to pick
    chosen, best = headline(results)
    assert chosen is steady and best.spread_ok
    assert best.value == pytest.approx(steady.gflops * 1e9)


def test_a_headline_with_a_wide_interval_says_it_is_unreliable(capsys):
    from npulab.bench.matmul import show_headline

    chosen, best = show_headline([_mm(256, [0.001, 0.001, 0.004, 0.004, 0.0011, 0.004, 0.001])])
    assert not best.spread_ok and "不可靠" in capsys.readouterr().out


# --- LLM lesson 4.1: batch 4 faster per step than batch 1, the curve above the "ideal" line ---------------------


def test_a_larger_batch_faster_per_step_is_called_a_disturbed_measurement():
    v = verdicts.batch_step(4, [0.080] * 8, [0.120, 0.119, 0.121, 0.120, 0.122, 0.118, 0.120, 0.120])
    assert v.verdict == SLOWER and "不可能是真实的差别" in v.text and "重新运行" in v.text and not _audit(v)


def test_a_batch_step_that_grew_is_below_the_ideal_line_by_the_measured_factor():
    v = verdicts.batch_step(16, [0.200] * 8, [0.100] * 8)
    assert v.verdict == FASTER and "理想线之下" in v.text and "8.00 倍" in v.text and not _audit(v)
    same = verdicts.batch_step(4, [0.101] * 8, [0.100] * 8)
    assert same.verdict == SAME and "贴着理想线" in same.text


# --- chapter 03: "inf 步 … 编译永远收不回成本" beside "分不出快慢" -------------------------------------------------


def _steps(first, times):
    return StepTimes("x", None, first, Timing(tuple(times), 2, "cpu"))


def test_overlapping_step_times_give_no_payback_row_and_no_infinite_one():
    eager = _steps(0.05, [0.010, 0.012, 0.009, 0.020, 0.011, 0.010, 0.013, 0.010, 0.009, 0.030])
    compiled = _steps(2.0, [0.011, 0.010, 0.019, 0.009, 0.012, 0.010, 0.025, 0.011, 0.010, 0.009])
    c = CompileComparison(eager, compiled)
    assert c.saving > 0 or c.saving <= 0  # either sign: the medians alone decide nothing
    v = c.verdict()
    assert v.verdict in (NOISY, SAME) and "不计算回本步数" in v.text
    assert c.break_even_steps is None
    assert all(f.label != "回本步数" for f in c.figures("cpu"))
    assert not _audit(v)


def test_an_infinite_payback_only_when_the_compiled_step_is_slower():
    slower = CompileComparison(_steps(0.05, [0.010] * 5), _steps(2.0, [0.020] * 5))
    assert slower.verdict().verdict == SLOWER and "收不回来" in slower.verdict().text
    assert slower.figures("cpu")[-1].value == float("inf")
    faster = CompileComparison(_steps(0.05, [0.010] * 5), _steps(2.004, [0.004] * 5))
    assert faster.verdict().verdict == FASTER and "约 333 步之后回本" in faster.verdict().text


# --- the audit: words that contradict their numbers are found ----------------------------------------------------


def _printed(**changes):
    v = verdicts.cold_start(5.0, [1.0, 1.02, 0.98, 1.01, 0.99, 1.0, 1.03, 0.97])
    record = {**v.record(), **changes}
    return verdict_audit.Printed(3, record["text"], record)


def test_the_audit_finds_a_direction_the_interval_does_not_support():
    assert verdict_audit.problems_of(_printed(verdict=SLOWER))
    assert verdict_audit.problems_of(_printed(verdict=SAME))
    assert verdict_audit.problems_of(_printed(low=0.9))  # "faster" with an interval that reaches below 1


def test_the_audit_finds_a_sentence_without_its_interval_and_a_display_that_differs():
    assert verdict_audit.problems_of(_printed(text="第一次最慢。"))
    p = _printed()
    assert verdict_audit.problems_of(verdict_audit.Printed(3, "别的句子", p.record))


def test_noisy_is_never_a_contradiction_unless_enough_repeats_were_decisive():
    assert not verdict_audit.problems_of(_printed(verdict=NOISY, decisive=False))
    assert verdict_audit.problems_of(_printed(verdict=NOISY, decisive=True))


def test_the_machine_footer_names_cpu_device_load_and_date():
    text = machine.LoadWatch("cpu", start_load=0.5).footer(print_it=False)
    assert text.startswith("测量环境：") and "设备 cpu" in text and "开始 0.50" in text and "UTC" in text


def test_too_few_repeats_are_said_to_be_too_few():
    v = comparison.between("demo", [1.0, 1.1], [2.0, 2.1], a="A", b="B")
    assert v.verdict == NOISY and not v.decisive and "重复次数太少" in v.text and not _audit(v)


def test_too_few_repeats_are_not_called_scatter():
    """04/02: "起伏太大" beside an interval of 1.49–2.20 that excludes 1; the real reason was two repeats."""
    from npulab.mindspore.timing import compare

    v = compare(Timing((0.27, 0.28), 1, "cpu"), "O2", Timing((0.15, 0.16), 1, "cpu"), "FP32")
    assert not v.decisive and v.low > 1 and "重复次数太少" in v.text and "起伏" not in v.text and not _audit(v)
    assert "起伏" in verdicts.cold_start(1.0, [0.5, 3.0, 1.0, 2.2, 0.7, 4.0, 1.4]).text  # enough repeats: scatter


def test_one_operator_and_the_whole_step_are_compared_by_direction_only():
    """04/02: "两边的差距主要来自卷积" was typed beside a convolution measured 5.5× the other way."""
    faster = comparison.verdict("conv", 5.5, 4.0, 7.0, a="PyTorch", b="MindSpore")
    slower = comparison.verdict("step", 0.2, 0.1, 0.3, a="PyTorch", b="MindSpore")
    noisy = comparison.verdict("step", 1.0, 0.5, 2.0, a="PyTorch", b="MindSpore")
    assert "方向相反" in verdicts.same_direction(faster, slower, "单个卷积", "整个训练步")
    assert "方向相同（MindSpore 都更快）" in verdicts.same_direction(faster, faster, "单个卷积", "整个训练步")
    assert "没有分出快慢" in verdicts.same_direction(faster, noisy, "单个卷积", "整个训练步")


def test_a_window_verdict_on_a_loaded_machine_names_the_load():
    """03/02: "逐步同步各步更快 … 12.43" on two cores at a load of 2.67–3.01, where the text expects noise."""
    steps = [0.521, 2.276, 0.545]
    quiet = machine.LoadWatch("cpu", start_load=0.1, end_load=0.2)
    busy = machine.LoadWatch("cpu", start_load=(machine.os.cpu_count() or 1) + 1.0, end_load=0.5)
    loaded = verdicts.window_steps("fp32", 12.43 * 0.545, steps, busy, accelerator=False)
    assert loaded.verdict == NOISY and not loaded.decisive and "负载" in loaded.text and "更快" not in loaded.text
    assert not _audit(loaded)
    calm = verdicts.window_steps("fp32", 0.53, [0.52, 0.53, 0.54, 0.52, 0.55], quiet, accelerator=False)
    assert calm.verdict == SAME and "符合预期" in calm.text and not _audit(calm)
    assert busy.busy() and quiet.busy() is None


def test_one_busy_reading_shared_by_two_runs_is_named_once():
    cores = machine.os.cpu_count() or 1
    first = machine.LoadWatch("cpu", start_load=0.5, end_load=cores + 1.0)
    second = machine.LoadWatch("cpu", start_load=cores + 1.0, end_load=0.5)  # started when the first ended
    v = verdicts.under_load(comparison.verdict("amp", 3.0, 2.0, 4.0, a="FP32", b="AMP"), first, second)
    assert v.verdict == NOISY and v.text.count("高于") == 1 and not _audit(v)


def test_a_ratio_printed_as_zero_is_found():
    """04/02: "比值 {t_ms / t_pt:.0f}" printed MindSpore/PyTorch = 0.18 as "比值 0"."""
    import nbformat

    cell = nbformat.v4.new_code_cell("print(...)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="3×3 卷积前向：MindSpore 5.82 ms，PyTorch 31.99 ms，比值 0\n")]
    nb = nbformat.v4.new_notebook(cells=[cell])
    assert verdict_audit.zero_ratios(nb) and verdict_audit.audit(nb)
    cell.outputs[0]["text"] = "MindSpore / PyTorch 的中位数之比 0.18；比值 0.5；之比 10\n"
    assert not verdict_audit.zero_ratios(nb)
