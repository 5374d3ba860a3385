"""The course's recurring claims about timings, each worded by code from the numbers (``npulab.core.comparison``).

One function per claim a lesson makes, so that the words live next to the rule that chooses them and unit tests
can feed them the noisy numbers that once contradicted a page (a "cold start" at 0.3× the median, an unsynchronised
timing 12× the synchronised one on a CPU, batch 4 decoding faster per step than batch 1).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from npulab.core.comparison import (
    FASTER,
    NOISY,
    SAME,
    SLOWER,
    Comparison,
    Verdict,
    against_rest,
    between,
    of_comparison,
)
from npulab.core.machine import LoadWatch


def cold_start(first: float, rest: Sequence[float], margin: float = 0.2, *, first_name: str = "第一次",
               rest_name: str = "", claim: str = "cold_start") -> Verdict:
    """Was the first of several timings (a cold start, a first training step) slower than the median of the others?"""
    others = rest_name or f"其余 {len(rest)} 次"
    words = {
        FASTER: f"{first_name}比{others}的中位数慢：{{ratio:.1f}} 倍（{{basis}}）。",
        SLOWER: f"{first_name}反而比{others}的中位数快（{first_name} / {others}的中位数 = {{ratio:.2f}}，{{basis}}）："
                "本次测量里看不出一次性开销的代价，各次计时的起伏比它还大。",
        SAME: f"{first_name}与{others}的中位数相差在 ±{{margin:.0%}} 之内（{{basis}}）：本次测量里看不出一次性开销的代价。",
        NOISY: f"{others}自身起伏太大，判断不了{first_name}是否更慢（{first_name} / {others}的中位数 = {{ratio:.2f}}，{{basis}}）。",
    }
    return against_rest(claim, first, list(rest), a=first_name, b=others, margin=margin, words=words)


def sync_cost(result: Comparison, accelerator: bool) -> Verdict:
    """Unsynchronised (A) against synchronised (B) timing of the same call, interleaved: what the gap means here."""
    if accelerator:
        words = {FASTER: "同步的计时反而更短（不同步 / 同步 = {ratio:.2f}，{basis}）：这不符合异步下发，请检查设备是否真的在计算。",
                 SLOWER: "不同步的计时只有同步的 1/{inverse:.1f}（{basis}）：不同步时测到的主要是下发时间。",
                 SAME: "两种计时相差在 ±{margin:.0%} 之内（{basis}）：这个规模下，运算在下发返回之前就已完成。"}
    else:
        words = {FASTER: "同步的计时比不同步短（不同步 / 同步 = {ratio:.2f}，{basis}）。CPU 上两者做的是同一件事，"
                         "差别来自测量期间机器上的其他负载。",
                 SLOWER: "不同步的计时比同步短（同步 / 不同步 = {inverse:.2f}，{basis}）。CPU 上两者做的是同一件事，"
                         "差别来自测量期间机器上的其他负载。",
                 SAME: "两种计时相差在 ±{margin:.0%} 之内（{basis}）：CPU 上运算同步完成，两者接近，符合预期。"}
    return of_comparison("sync", result, "不同步", "同步", words=words)


def batch_step(batch: int, steps: Sequence[float], base_steps: Sequence[float], base_batch: int = 1,
               margin: float = 0.1) -> Verdict:
    """Decode step time of ``batch`` against that of ``base_batch``: on the ideal line, below it, or noise?

    More sequences per step can only add work, so a step of the larger batch measured *faster* is not a result:
    the verdict says the measurement was disturbed.
    """
    a, b = f"batch {batch}", f"batch {base_batch}"
    words = {
        FASTER: f"{a} 每步比 {b} 慢 {{ratio:.2f}} 倍（{{basis}}）：吞吐只增加到 {b} 的 {batch / base_batch:g} ÷ {{ratio:.2f}} "
                f"= {{gain:.2f}} 倍，实测点在理想线之下。",
        SAME: f"{a} 与 {b} 的每步时间相差在 ±{{margin:.0%}} 之内（{{basis}}）：吞吐几乎随批大小线性增长，实测点贴着理想线。",
        SLOWER: f"{a} 每步反而比 {b} 快（{a}/{b} = {{ratio:.2f}}，{{basis}}）：多算了 {batch / base_batch:g} 倍的 token、"
                "读的权重却一样，这不可能是真实的差别——测量受到了干扰，这一点落在理想线之上不说明任何问题。"
                "请在机器空闲时重新运行本单元。",
        NOISY: f"{a} 与 {b} 的每步时间起伏太大，分不出 {a} 每步是否更慢（{{basis}}）；这一点相对理想线的位置不说明问题。",
    }
    ratio = statistics.median(steps) / statistics.median(base_steps)
    return between(f"batch_{batch}", list(steps), list(base_steps), a=a, b=b, margin=margin, words=words,
                   gain=batch / base_batch / ratio)


def same_direction(part: Verdict, whole: Verdict, part_name: str, whole_name: str) -> str:
    """Does one operation's verdict point the way the whole step's does? Worded from the two verdicts alone.

    Both must compare the same two sides in the same order (B against A); a part that agrees only makes it
    possible that the whole's gap comes from it, one that disagrees rules it out as the explanation.
    """
    decided = (FASTER, SLOWER)
    if part.verdict not in decided or whole.verdict not in decided:
        return f"{part_name}或{whole_name}的判定没有分出快慢：这里不说{whole_name}的差距来自哪里。"
    if part.verdict == whole.verdict:
        way = "快" if part.verdict == FASTER else "慢"
        return (f"{part_name}与{whole_name}的判定方向相同（{part.b} 都更{way}）：{part_name}可能是差距的来源之一，"
                f"但一个算子的比值证明不了这一点，还要看它占{whole_name}时间的比例。")
    return f"{part_name}与{whole_name}的判定方向相反：{whole_name}的差距不能用{part_name}来解释。"


def under_load(v: Verdict, *watches: LoadWatch) -> Verdict:
    """``v`` unless a measurement it rests on shared the CPU: then no direction, and the load is the reason given."""
    reasons = list(dict.fromkeys(r for w in watches if (r := w.busy())))  # two runs may share one reading
    if not reasons:
        return v
    text = (f"测量时 CPU 上有别的负载（{'；'.join(reasons)}）：{v.a} 与 {v.b} 的差别可能来自负载，这里不下快慢的结论"
            f"（{v.a}/{v.b} 的约 90% 置信区间 {v.low:.2f}–{v.high:.2f}）。请在机器空闲时再运行。")
    return Verdict(v.claim, v.a, v.b, v.ratio, v.low, v.high, v.margin, NOISY, text, decisive=False)


def window_steps(precision: str, window: float, steps: Sequence[float], watch: LoadWatch,
                 accelerator: bool) -> Verdict:
    """The per-step time of a back-to-back window (A) against the synchronised steps (B) of the same run.

    On an accelerator the window should be faster (the host queues the next step while the device computes); on
    a CPU both do the same work, so a direction there is the steps' scatter or the load, and the words say so.
    """
    a, b = f"连续窗口每步（{precision}）", "逐步同步各步"
    cpu_note = "CPU 上算子同步执行，两种计时做的是同一件事：这个差别来自步与步之间的起伏或机器上的其他负载，不是同步的代价。"
    words = None if accelerator else {
        FASTER: "{b}更快：{a}/{b} 的中位数 {ratio:.2f}（{basis}）。" + cpu_note,
        SLOWER: "{b}更慢：{b}/{a} 的中位数 {inverse:.2f}（{basis}）。" + cpu_note,
        SAME: "两者相差在 ±{margin:.0%} 之内（{basis}）：CPU 上两种计时做的是同一件事，只差噪声，符合预期。",
    }
    return under_load(against_rest(f"window_{precision}", window, list(steps), a=a, b=b, words=words), watch)
