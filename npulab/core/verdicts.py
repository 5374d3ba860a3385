"""The course's recurring claims about timings, each worded by code from the numbers (``npulab.core.comparison``).

One function per claim a lesson makes, so that the words live next to the rule that chooses them and unit tests
can feed them the noisy numbers that once contradicted a page (a "cold start" at 0.3× the median, an unsynchronised
timing 12× the synchronised one on a CPU, batch 4 decoding faster per step than batch 1). The words are catalogue
entries (``verdict.*`` in ``npulab/data/messages/measure.yaml``): the sentences are in npulab's language.
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
from npulab.core.i18n import t
from npulab.core.machine import LoadWatch


def cold_start(first: float, rest: Sequence[float], margin: float = 0.2, *, first_name: str = "",
               rest_name: str = "", claim: str = "cold_start") -> Verdict:
    """Was the first of several timings (a cold start, a first training step) slower than the median of the others?

    ``first_name`` and ``rest_name`` default to "the first run" and "the other N runs" in npulab's language.
    """
    first_name = first_name or t("verdict.first_default")
    others = rest_name or t("verdict.rest_default", n=len(rest))
    words = {FASTER: t("verdict.cold_faster"), SLOWER: t("verdict.cold_slower"), SAME: t("verdict.cold_same"),
             NOISY: t("verdict.cold_noisy")}
    return against_rest(claim, first, list(rest), a=first_name, b=others, margin=margin, words=words)


def sync_cost(result: Comparison, accelerator: bool) -> Verdict:
    """Unsynchronised (A) against synchronised (B) timing of the same call, interleaved: what the gap means here."""
    if accelerator:
        words = {FASTER: t("verdict.sync_device_faster"), SLOWER: t("verdict.sync_device_slower"),
                 SAME: t("verdict.sync_device_same")}
    else:
        words = {FASTER: t("verdict.sync_cpu_faster"), SLOWER: t("verdict.sync_cpu_slower"),
                 SAME: t("verdict.sync_cpu_same")}
    return of_comparison("sync", result, t("verdict.unsynchronised"), t("verdict.synchronised"), words=words)


def batch_step(batch: int, steps: Sequence[float], base_steps: Sequence[float], base_batch: int = 1,
               margin: float = 0.1) -> Verdict:
    """Decode step time of ``batch`` against that of ``base_batch``: on the ideal line, below it, or noise?

    More sequences per step can only add work, so a step of the larger batch measured *faster* is not a result:
    the verdict says the measurement was disturbed.
    """
    a, b = f"batch {batch}", f"batch {base_batch}"
    words = {FASTER: t("verdict.batch_faster"), SAME: t("verdict.batch_same"), SLOWER: t("verdict.batch_slower"),
             NOISY: t("verdict.batch_noisy")}
    ratio = statistics.median(steps) / statistics.median(base_steps)
    return between(f"batch_{batch}", list(steps), list(base_steps), a=a, b=b, margin=margin, words=words,
                   gain=batch / base_batch / ratio, scale=f"{batch / base_batch:g}")


def same_direction(part: Verdict, whole: Verdict, part_name: str, whole_name: str) -> str:
    """Does one operation's verdict point the way the whole step's does? Worded from the two verdicts alone.

    Both must compare the same two sides in the same order (B against A); a part that agrees only makes it
    possible that the whole's gap comes from it, one that disagrees rules it out as the explanation.
    """
    decided = (FASTER, SLOWER)
    if part.verdict not in decided or whole.verdict not in decided:
        return t("verdict.undecided", part=part_name, whole=whole_name)
    if part.verdict == whole.verdict:
        way = t("verdict.way_faster") if part.verdict == FASTER else t("verdict.way_slower")
        return t("verdict.same_way", part=part_name, whole=whole_name, b=part.b, way=way)
    return t("verdict.opposite_way", part=part_name, whole=whole_name)


def under_load(v: Verdict, *watches: LoadWatch) -> Verdict:
    """``v`` unless a measurement it rests on shared the CPU: then no direction, and the load is the reason given."""
    reasons = list(dict.fromkeys(r for w in watches if (r := w.busy())))  # two runs may share one reading
    if not reasons:
        return v
    text = t("verdict.under_load", reasons=t("verdict.reason_separator").join(reasons), a=v.a, b=v.b,
             low=f"{v.low:.2f}", high=f"{v.high:.2f}")
    return Verdict(v.claim, v.a, v.b, v.ratio, v.low, v.high, v.margin, NOISY, text, decisive=False)


def window_steps(precision: str, window: float, steps: Sequence[float], watch: LoadWatch,
                 accelerator: bool) -> Verdict:
    """The per-step time of a back-to-back window (A) against the synchronised steps (B) of the same run.

    On an accelerator the window should be faster (the host queues the next step while the device computes); on
    a CPU both do the same work, so a direction there is the steps' scatter or the load, and the words say so.
    """
    a, b = t("verdict.window_a", precision=precision), t("verdict.window_b")
    faster, slower = t("verdict.window_faster"), t("verdict.window_slower")
    cpu_note = t("verdict.window_cpu_note")
    words = {FASTER: faster, SLOWER: slower} if accelerator else {
        FASTER: faster + cpu_note, SLOWER: slower + cpu_note, SAME: t("verdict.window_cpu_same")}
    return under_load(against_rest(f"window_{precision}", window, list(steps), a=a, b=b, words=words), watch)
