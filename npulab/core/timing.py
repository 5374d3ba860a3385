"""Benchmarks that can be trusted: warm up, synchronise the device, repeat, report the median.

``benchmark`` times a call; ``time_steps`` times a training step the same way in any framework (an explicit
compile alone, the first call alone, warm-up, then the timed median) — PyTorch (``npulab.pytorch.train``),
MindSpore (``npulab.mindspore.timing``) and ``torch.compile`` all use it.

Accelerators run asynchronously: a kernel launch returns before the work is done, so a clock read
right after it measures the launch, not the work. ``benchmark`` synchronises before every clock
read, runs warm-up calls first (one-off costs: kernel selection, caches, lazy initialisation),
and keeps every repeat so the spread can be shown next to the median.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from npulab.core.device import Device, synchronize
from npulab.core.i18n import t
from npulab.core.provenance import Figure, measured


@dataclass(frozen=True)
class Timing:
    """Wall times of the timed repeats of one benchmark, in seconds."""

    times: tuple[float, ...]
    warmup: int
    device: Device | str  # the Device when the caller gave one, so figures can name it
    label: str = ""
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def spread(self) -> float:
        """Relative spread (max − min) / median: how noisy the repeats were."""
        return (max(self.times) - min(self.times)) / self.median if self.median > 0 else 0.0

    def rate(self, work: float) -> float:
        """Work per second at the median time, e.g. FLOP/s for ``work`` in FLOP."""
        return work / self.median

    @property
    def device_name(self) -> str:
        """The torch device string (``"cpu"``, ``"npu:0"`` …)."""
        return self.device.torch if isinstance(self.device, Device) else str(self.device)

    def figure(self, label: str | None = None) -> Figure:
        """The median as a measured figure, in milliseconds, on this timing's device."""
        return measured(label or self.label or t("timing.median_label"), round(self.median * 1e3, 4), "ms", self.device,
                        t("timing.figure_note", repeats=len(self.times), warmup=self.warmup, spread=f"{self.spread:.0%}"))

    def rate_figure(self, label: str, work: float, unit: str, scale: float = 1.0) -> Figure:
        """``work / median / scale`` as a measured figure (e.g. FLOP → GFLOP/s with ``scale=1e9``)."""
        return measured(label, float(f"{self.rate(work) / scale:.4g}"), unit, self.device,
                        t("timing.rate_note", work=f"{work:.4g}", median=f"{self.median:.4g}", repeats=len(self.times),
                          warmup=self.warmup))

    def __str__(self) -> str:
        return t("timing.line", label=self.label or "benchmark", device=self.device_name, ms=f"{self.median * 1e3:.3f}",
                 repeats=len(self.times), warmup=self.warmup, spread=f"{self.spread:.0%}")


def benchmark(
    fn: Callable[[], object],
    device: Device | str = "cpu",
    *,
    warmup: int = 3,
    repeats: int = 10,
    label: str = "",
    clock: Callable[[], float] = time.perf_counter,
    sync: Callable[[], object] | None = None,
) -> Timing:
    """Time ``fn()`` on ``device``: ``warmup`` untimed calls, then ``repeats`` timed calls.

    ``sync`` waits for the device before each clock read (default ``synchronize(device)``; MindSpore
    passes ``mindspore.runtime.synchronize``).

    >>> t = benchmark(lambda: sum(range(1000)), "cpu", warmup=1, repeats=5)
    >>> len(t.times)
    5
    """
    if repeats < 1 or warmup < 0:
        raise ValueError(t("timing.bad_repeats", repeats=repeats, warmup=warmup))
    wait = sync if sync is not None else (lambda: synchronize(device))
    for _ in range(warmup):
        fn()
    wait()
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        wait()  # the work queued by fn() must be finished before the clock is read
        times.append(clock() - start)
    return Timing(tuple(times), warmup, device, label)


def matmul_flop(n: int, m: int | None = None, k: int | None = None) -> int:
    """Floating-point operations of an (n×k) @ (k×m) matrix product: 2·n·m·k (one multiply + one add)."""
    m = n if m is None else m
    k = n if k is None else k
    return 2 * n * m * k


@dataclass(frozen=True)
class StepTimes:
    """Times of one training-step benchmark, in seconds."""

    label: str
    compile_s: float | None  # an explicit compile step, measured on its own (None where the mode has none)
    first_s: float  # the first call (includes the @ms.jit compile, lazy initialisation)
    steady: Timing  # timed calls after warm-up, each synchronised inside the timed region
    losses: tuple[float, ...] = ()  # loss of every call, read after the clock stopped

    @property
    def median(self) -> float:
        return self.steady.median

    @property
    def one_off_s(self) -> float:
        """Derived: the first call's extra time over a steady step (first − median)."""
        return self.first_s - self.steady.median

    def images_per_second(self, batch: int) -> float:
        """Derived: batch / median step time."""
        return batch / self.steady.median


def time_steps(
    step: Callable[[], object],
    *,
    sync: Callable[[], object],
    warmup: int = 1,
    repeats: int = 3,
    compile: Callable[[], object] | None = None,
    label: str = "",
    device: Device | str = "",
    clock: Callable[[], float] = time.perf_counter,
) -> StepTimes:
    """Time ``step()``: optional ``compile()`` alone, the first call alone, ``warmup − 1`` more untimed calls, ``repeats`` timed ones.

    ``sync()`` is called before every clock read that ends a measurement.
    """
    if warmup < 1:
        raise ValueError(t("timing.bad_warmup"))
    compile_s = None
    if compile is not None:
        start = clock()
        compile()
        sync()
        compile_s = clock() - start
    sync()  # work queued earlier must not be billed to the first call
    start = clock()
    step()
    sync()
    first_s = clock() - start
    steady = benchmark(step, device or "device", warmup=warmup - 1, repeats=repeats, label=label, clock=clock, sync=sync)
    return StepTimes(label, compile_s, first_s, steady)
