"""npulab.core.comparison: interleaved rounds, an interval of the median ratio, and a sentence chosen from it."""

import dataclasses
import itertools

import pytest

from npulab.core import comparison


class FakeClock:
    """A clock that only the timed functions advance."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def work(self, durations):
        it = itertools.cycle(durations)

        def fn():
            self.now += next(it)
        return fn


def run(a, b, **kw):
    clock = FakeClock()
    kw.setdefault("budget_s", 1e9)
    return comparison.compare(clock.work(a), clock.work(b), "cpu", clock=clock, sync=lambda: None, **kw)


def test_clearly_faster_stops_at_min_rounds_and_says_so():
    result = run([0.010], [0.005], min_rounds=9)
    assert result.verdict == comparison.FASTER and result.rounds == 9
    assert result.ratio == pytest.approx(2.0)
    assert result.sentence("逐样本循环", "向量化").startswith("向量化更快：约 2.00 倍")


def test_the_measuring_time_reads_in_ms_below_a_second():
    result = run([0.010], [0.005], min_rounds=9)
    assert result.duration.endswith(" ms") and "共 " + result.duration in result.sentence("A", "B")
    assert dataclasses.replace(result, seconds=6.34).duration == "6.3 s"


def test_slower_and_same():
    assert run([0.005], [0.010]).verdict == comparison.SLOWER
    same = run([0.0100, 0.0102, 0.0099], [0.0101, 0.0100])
    assert same.verdict == comparison.SAME
    assert "分不出" in same.sentence("A", "B") and "更快" not in same.sentence("A", "B")


def test_noise_that_never_settles_is_reported_as_noisy_within_the_round_limit():
    # the ratio alternates between 0.5 and 2: its interval always straddles the band
    result = run([0.010, 0.010], [0.020, 0.005], max_rounds=40)
    assert result.verdict == comparison.NOISY and result.rounds == 40
    text = result.sentence("A", "B")
    assert "太忙" in text and "更快" not in text and "更慢" not in text and "跨过了 ±10% 的界线" in text


def test_budget_bounds_the_time():
    result = run([0.010, 0.010], [0.020, 0.005], budget_s=0.3, max_rounds=10_000)
    assert result.verdict == comparison.NOISY
    assert result.seconds < 0.3 + 0.05  # one round past the budget at most


def test_a_burst_of_load_that_hits_both_sides_of_a_round_does_not_flip_the_verdict():
    # every 5th round is 10x slower for both (a neighbour's burst): the paired ratio stays 2
    a = [0.010] * 8 + [0.100, 0.100]
    b = [0.005] * 8 + [0.050, 0.050]
    assert run(a, b).verdict == comparison.FASTER


def test_rounds_alternate_which_call_goes_first():
    order = []
    comparison.compare(lambda: order.append("a"), lambda: order.append("b"), "cpu", warmup=0, min_rounds=4,
                       max_rounds=4, sync=lambda: None)
    assert order == ["a", "b", "b", "a", "a", "b", "b", "a"]


def test_median_interval_and_judge():
    assert comparison.median_interval([3, 1, 2]) == (1, 3)
    low, high = comparison.median_interval(list(range(100)))
    assert 35 <= low < 50 < high <= 64
    assert comparison.judge(1.2, 1.5, 0.1) == comparison.FASTER
    assert comparison.judge(0.95, 1.05, 0.1) == comparison.SAME
    assert comparison.judge(0.8, 1.3, 0.1) is None


@pytest.mark.parametrize("kw", [{"min_rounds": 0}, {"min_rounds": 5, "max_rounds": 4}, {"budget_s": 0}])
def test_bad_arguments_are_refused_in_chinese(kw):
    with pytest.raises(ValueError, match="需要"):
        comparison.compare(lambda: None, lambda: None, "cpu", **kw)


def test_separated_needs_non_overlapping_repeats():
    from npulab.core.timing import Timing

    assert comparison.separated(Timing((1.0, 1.1), 0, "cpu"), Timing((1.2, 1.3), 0, "cpu"))
    assert not comparison.separated(Timing((1.0, 1.25), 0, "cpu"), Timing((1.2, 1.3), 0, "cpu"))


def test_a_very_busy_machine_is_stopped_by_the_budget_before_min_rounds_and_gets_no_verdict():
    result = run([1.0], [0.5], budget_s=2.0, min_rounds=9)  # 1.5 s a round: the budget is spent after 2 rounds
    assert result.rounds == comparison.MIN_ROUNDS_OVER_BUDGET and result.verdict == comparison.NOISY
    assert "只来得及测 3 轮，下结论至少要 9 轮" in result.sentence("A", "B")
