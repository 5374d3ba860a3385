"""Compare two timed calls so that the sentence on the page cannot contradict the numbers beside it.

``benchmark`` times one call; a comparison of two calls timed one after the other on a shared machine can
flip when a neighbour's load starts in between (a page once showed a fix "4.4× slower" at 1063 % dispersion).
``compare`` instead **interleaves** them — each round times A and B back to back, alternating which goes first —
so a load burst hits both sides of the same round, and judges the per-round time ratio A/B:

- it repeats rounds until a distribution-free ~90 % confidence interval of the median ratio (order statistics) is
  decisive — wholly above ``1 + margin`` (B faster), wholly below ``1 / (1 + margin)`` (B slower), or wholly
  inside that band (no difference worth stating) — or until ``budget_s`` / ``max_rounds`` run out;
- a verdict needs at least ``min_rounds`` rounds; the budget stops the rounds even before that (after 3);
- the verdict and its sentence (in npulab's language, ``npulab.core.i18n``) come from that interval; when the budget ran out first the sentence says
  the machine was too noisy to tell, and gives the interval.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from npulab.core.device import Device, synchronize
from npulab.core.display import emit
from npulab.core.i18n import t
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
        """The conclusion in npulab's language, chosen from the verdict, with the numbers it rests on."""
        basis = t("compare.basis", rounds=self.rounds, duration=self.duration, a=a_name, b=b_name,
                  ratio=f"{self.ratio:.2f}", low=f"{self.low:.2f}", high=f"{self.high:.2f}")
        if self.verdict == FASTER:
            return t("compare.faster", b=b_name, ratio=f"{self.ratio:.2f}", basis=basis)
        if self.verdict == SLOWER:
            return t("compare.slower", b=b_name, inverse=f"{1 / self.ratio:.2f}", basis=basis)
        if self.verdict == SAME:
            return t("compare.same", margin=f"{self.margin:.0%}", basis=basis)
        why = (t("compare.few_rounds", rounds=self.rounds, min_rounds=self.min_rounds) if self.rounds < self.min_rounds
               else t("compare.crosses", margin=f"{self.margin:.0%}"))
        return t("compare.noisy", basis=basis, why=why)


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
        raise ValueError(t("compare.bad_arguments", min_rounds=min_rounds, max_rounds=max_rounds, warmup=warmup,
                           budget_s=budget_s))
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


# --- verdicts on numbers already measured --------------------------------------------------------------------------
# Every interpretation of a timing on a page reduces to one ratio with an interval: A/B for two calls, the first
# call against the median of the others, a batch's step time against batch 1's. ``judge`` picks the verdict from
# that interval, a template per verdict words it, and ``Verdict.show`` prints it with a machine-readable copy
# (cell output metadata) so a test can check every published sentence against its numbers. The templates are
# catalogue entries (``verdict.*``), so the sentence is in npulab's language (``npulab.core.i18n``).

VERDICT_KEY = "npulab/verdict"  # key of the structured copy in a display output's metadata


def default_words() -> dict[str, str]:
    """The templates of the four verdicts in npulab's language (a ``words`` argument overrides some of them)."""
    return {FASTER: t("verdict.faster"), SLOWER: t("verdict.slower"), SAME: t("verdict.same"),
            NOISY: t("verdict.noisy")}


@dataclass(frozen=True)
class Verdict:
    """One conclusion about measured numbers: the ratio A/B, its ~90 % interval, the verdict and the sentence."""

    claim: str  # what is judged, e.g. "cold_start" (lets a test find it)
    a: str
    b: str
    ratio: float
    low: float
    high: float
    margin: float
    verdict: str
    text: str
    decisive: bool = True  # False: fewer repeats than a verdict needs (then only NOISY may be said)

    def record(self) -> dict:
        """The structured copy a test reads back from the notebook."""
        return {"claim": self.claim, "a": self.a, "b": self.b, "ratio": self.ratio, "low": self.low,
                "high": self.high, "margin": self.margin, "verdict": self.verdict, "decisive": self.decisive,
                "text": self.text}

    def show(self, prefix: str = "") -> None:
        """Print the sentence; in a notebook also store ``record()`` in the output's metadata (key VERDICT_KEY)."""
        show_verdict(prefix + self.text, {**self.record(), "text": prefix + self.text})

    def __str__(self) -> str:
        return self.text


def show_verdict(text: str, record: dict, key: str = VERDICT_KEY) -> None:
    """Print ``text``; under IPython as a display output carrying ``record`` in its metadata under ``key``."""
    emit(text, metadata={key: record})


def verdict(claim: str, ratio: float, low: float, high: float, *, a: str = "A", b: str = "B", margin: float = 0.1,
            words: dict[str, str] | None = None, decisive: bool = True, **extra: object) -> Verdict:
    """Judge the interval [low, high] of the ratio A/B and word the verdict (``words`` overrides ``default_words()``).

    The templates may use {a} {b} {ratio} {inverse} (= B/A) {low} {high} {margin} {basis} and the ``extra`` names.
    With too few repeats (``decisive=False``) the sentence is ``verdict.few``: it names that reason, not a scatter the
    interval may not show (a page once said "起伏太大" beside an interval of 1.49–2.20 that excludes 1).

    >>> verdict("demo", 2.0, 1.8, 2.2, a="循环", b="向量化").verdict
    'faster'
    """
    found = judge(low, high, margin) if decisive else None
    chosen = found or NOISY
    basis = t("verdict.basis", a=a, b=b, low=f"{low:.2f}", high=f"{high:.2f}")
    template = t("verdict.few") if not decisive else {**default_words(), **(words or {})}[chosen]
    text = template.format(a=a, b=b, ratio=ratio, inverse=1 / ratio if ratio else math.inf, low=low, high=high,
                           margin=margin, basis=basis, **extra)
    return Verdict(claim, a, b, ratio, low, high, margin, chosen, text, decisive)


def ratio_interval(a: list[float] | tuple[float, ...], b: list[float] | tuple[float, ...]) -> tuple[float, float, float]:
    """Median(a)/median(b) with a conservative interval from the two medians' intervals (independent samples)."""
    low_a, high_a = median_interval(a)
    low_b, high_b = median_interval(b)
    return statistics.median(a) / statistics.median(b), low_a / high_b, high_a / low_b


def between(claim: str, times_a: Timing | list[float] | tuple[float, ...],
            times_b: Timing | list[float] | tuple[float, ...], /, **kw: object) -> Verdict:
    """Verdict on two timings measured one after the other (not interleaved): their medians' intervals must part."""
    ta = times_a.times if isinstance(times_a, Timing) else tuple(times_a)
    tb = times_b.times if isinstance(times_b, Timing) else tuple(times_b)
    ratio, low, high = ratio_interval(ta, tb)
    kw.setdefault("decisive", min(len(ta), len(tb)) >= 3)
    return verdict(claim, ratio, low, high, **kw)  # type: ignore[arg-type]


def against_rest(claim: str, first: float, rest: list[float] | tuple[float, ...], /, **kw: object) -> Verdict:
    """Verdict on one value against the median of the others (e.g. a cold start against the warm calls)."""
    low, high = median_interval(rest)
    kw.setdefault("decisive", len(rest) >= 3)
    return verdict(claim, first / statistics.median(rest), first / high, first / low, **kw)  # type: ignore[arg-type]


def of_comparison(claim: str, result: Comparison, a: str, b: str, words: dict[str, str] | None = None) -> Verdict:
    """The verdict of an interleaved ``compare`` as a ``Verdict``: ``Comparison.sentence``, or ``words`` for its cases.

    ``words`` need not cover NOISY: a run the budget cut short keeps the sentence that says why.
    """
    decisive = result.verdict != NOISY
    if words is None or not decisive:
        return Verdict(claim, a, b, result.ratio, result.low, result.high, result.margin, result.verdict,
                       result.sentence(a, b), decisive)
    return verdict(claim, result.ratio, result.low, result.high, a=a, b=b, margin=result.margin, words=words)


@dataclass(frozen=True)
class Best:
    """The headline of a sweep: the point whose throughput is highest even at the low end of its interval."""

    index: int
    value: float  # throughput at the chosen point's median time
    low: float  # throughput at the high end of its median's interval
    high: float
    spread_ok: bool  # the chosen point's interval is narrower than half its value

    def record(self, claim: str, labels: list[str], lows: list[float], text: str) -> dict:
        return {"claim": claim, "kind": "best", "index": self.index, "value": self.value, "low": self.low,
                "high": self.high, "labels": labels, "lows": lows, "spread_ok": self.spread_ok, "text": text}


def robust_best(timings: list[Timing] | tuple[Timing, ...], work: list[float] | tuple[float, ...]) -> Best:
    """Choose the headline point of a sweep by the lower end of each point's rate interval, not by its one median.

    A size whose repeats were hit by a load burst has a wide interval and so a low lower end: it cannot become the
    headline by one lucky (or unlucky) median.
    """
    lows = rate_lows(timings, work)
    index = max(range(len(lows)), key=lows.__getitem__)
    t, w = timings[index], work[index]
    low_t, high_t = median_interval(t.times)
    value = w / t.median
    return Best(index, value, w / high_t, w / low_t, (w / low_t - w / high_t) <= 0.5 * value)


def rate_lows(timings: list[Timing] | tuple[Timing, ...], work: list[float] | tuple[float, ...]) -> list[float]:
    """The lower end of each point's rate interval (what ``robust_best`` ranks by)."""
    return [w / median_interval(t.times)[1] for t, w in zip(timings, work, strict=True)]
