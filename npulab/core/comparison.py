"""Compare two timed calls so that the sentence on the page cannot contradict the numbers beside it.

``benchmark`` times one call; a comparison of two calls timed one after the other on a shared machine can
flip when a neighbour's load starts in between (a page once showed a fix "4.4× slower" at 1063 % dispersion).
``compare`` instead **interleaves** them — each round times A and B back to back, alternating which goes first —
so a load burst hits both sides of the same round, and judges the per-round time ratio A/B:

- it repeats rounds until a distribution-free ~90 % confidence interval of the median ratio (order statistics) is
  decisive — wholly above ``1 + margin`` (B faster), wholly below ``1 / (1 + margin)`` (B slower), or wholly
  inside that band (no difference worth stating) — or until ``budget_s`` / ``max_rounds`` run out;
- a verdict needs at least ``min_rounds`` rounds; the budget stops the rounds even before that (after 3);
- the verdict and its Chinese sentence come from that interval; when the budget ran out first the sentence says
  the machine was too noisy to tell, and gives the interval.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from npulab.core.device import Device, synchronize
from npulab.core.timing import Timing

FASTER, SLOWER, SAME, NOISY = "faster", "slower", "same", "noisy"
MIN_ROUNDS_OVER_BUDGET = 3  # rounds measured even when the budget is spent sooner (the interval needs some)
Z90 = 1.645  # two-sided 90 % normal quantile, for the order-statistic interval of a median


@dataclass(frozen=True)
class Comparison:
    """Interleaved timings of A (before) and B (after), the per-round ratios A/B and the verdict on B."""

    a: Timing
    b: Timing
    ratios: tuple[float, ...]
    low: float  # ~90 % interval of the median ratio A/B
    high: float
    verdict: str  # FASTER / SLOWER / SAME (B relative to A) or NOISY (the budget ran out first)
    seconds: float
    margin: float
    min_rounds: int = 1  # rounds a verdict needs

    @property
    def rounds(self) -> int:
        return len(self.ratios)

    @property
    def ratio(self) -> float:
        """Median of the per-round ratios A/B (> 1: B is faster)."""
        return statistics.median(self.ratios)

    @property
    def duration(self) -> str:
        """The measuring time as a reader wants it: "41 ms" below a second, "6.3 s" above."""
        return f"{self.seconds * 1e3:.0f} ms" if self.seconds < 1 else f"{self.seconds:.1f} s"

    def sentence(self, a_name: str, b_name: str) -> str:
        """The conclusion in Chinese, chosen from the verdict, with the numbers it rests on."""
        basis = (f"{self.rounds} 轮交替测量（共 {self.duration}），每轮时间比 {a_name}/{b_name} 的中位数 "
                 f"{self.ratio:.2f}，约 90% 置信区间 {self.low:.2f}–{self.high:.2f}")
        if self.verdict == FASTER:
            return f"{b_name}更快：约 {self.ratio:.2f} 倍（{basis}）。"
        if self.verdict == SLOWER:
            return f"{b_name}反而更慢：约 {1 / self.ratio:.2f} 倍的时间（{basis}）。"
        if self.verdict == SAME:
            return f"两者的差别在 ±{self.margin:.0%} 之内，本机上分不出值得一提的快慢（{basis}）。"
        why = (f"只来得及测 {self.rounds} 轮，下结论至少要 {self.min_rounds} 轮" if self.rounds < self.min_rounds
               else f"区间跨过了 ±{self.margin:.0%} 的界线")
        return (f"这台机器此刻太忙，在预算内测不出稳定的结论（{basis}；{why}）。"
                "两侧各自的中位数这时也不可比。请在机器空闲时再运行本单元；这里不下快慢的结论。")


def median_interval(values: list[float] | tuple[float, ...]) -> tuple[float, float]:
    """A distribution-free ~90 % confidence interval of the median: the order statistics k and n−1−k."""
    ordered = sorted(values)
    n = len(ordered)
    k = max(0, math.floor((n - Z90 * math.sqrt(n)) / 2))
    return ordered[k], ordered[n - 1 - k]


def judge(low: float, high: float, margin: float) -> str | None:
    """The verdict an interval of the ratio A/B supports, or None when it supports none yet."""
    if low > 1 + margin:
        return FASTER
    if high < 1 / (1 + margin):
        return SLOWER
    if low >= 1 / (1 + margin) and high <= 1 + margin:
        return SAME
    return None


def compare(
    fa: Callable[[], object],
    fb: Callable[[], object],
    device: Device | str = "cpu",
    *,
    warmup: int = 2,
    min_rounds: int = 5,  # [min, max] of 5 ratios covers their median with probability 1 − 2·0.5⁵ ≈ 94 %
    max_rounds: int = 200,
    budget_s: float = 8.0,
    margin: float = 0.1,
    labels: tuple[str, str] = ("A", "B"),
    clock: Callable[[], float] = time.perf_counter,
    sync: Callable[[], object] | None = None,
) -> Comparison:
    """Time ``fa`` and ``fb`` in alternating rounds until the ratio's interval is decisive or the budget is spent."""
    if min_rounds < 1 or max_rounds < min_rounds or warmup < 0 or budget_s <= 0:
        raise ValueError(f"需要 1 ≤ min_rounds ≤ max_rounds、warmup ≥ 0、budget_s > 0，收到 min_rounds={min_rounds}, "
                         f"max_rounds={max_rounds}, warmup={warmup}, budget_s={budget_s}")
    wait = sync if sync is not None else (lambda: synchronize(device))

    def timed(fn: Callable[[], object]) -> float:
        start = clock()
        fn()
        wait()  # the work queued by fn() must be finished before the clock is read
        return clock() - start

    for _ in range(warmup):
        fa()
        fb()
    wait()
    times_a: list[float] = []
    times_b: list[float] = []
    began = clock()
    verdict = None
    while len(times_a) < max_rounds:
        if len(times_a) % 2 == 0:
            ta, tb = timed(fa), timed(fb)
        else:
            tb, ta = timed(fb), timed(fa)
        times_a.append(ta)
        times_b.append(tb)
        if len(times_a) >= min_rounds:
            low, high = median_interval([x / y for x, y in zip(times_a, times_b, strict=True)])
            verdict = judge(low, high, margin)
            if verdict is not None:
                break
        if clock() - began >= budget_s and len(times_a) >= MIN_ROUNDS_OVER_BUDGET:
            break  # the budget bounds the time even on a machine so busy that min_rounds would take long
    ratios = tuple(x / y for x, y in zip(times_a, times_b, strict=True))
    low, high = median_interval(ratios)
    return Comparison(Timing(tuple(times_a), warmup, device, labels[0]), Timing(tuple(times_b), warmup, device, labels[1]),
                      ratios, low, high, verdict or NOISY, clock() - began, margin, min_rounds)


def separated(a: Timing, b: Timing) -> bool:
    """Whether the repeats of two timings do not overlap: the least a page needs before it says which is faster."""
    return max(a.times) < min(b.times) or max(b.times) < min(a.times)
