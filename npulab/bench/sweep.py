"""ascend-dmi's way of reporting a bandwidth or throughput: step the size up, measure each size (warm-up,
repeats, median), and report where the curve stops rising (the saturation point) and the value there."""

from __future__ import annotations

from collections.abc import Sequence

from npulab.core.i18n import t


def geometric_sizes(low: int, high: int, factor: int = 4) -> list[int]:
    """``low``, ``low·factor``, … up to and including ``high`` (``high`` is appended if the steps miss it)."""
    if low <= 0 or high < low or factor < 2:
        raise ValueError(t("bench.sweep_sizes", low=low, high=high, factor=factor))
    sizes = [low]
    while sizes[-1] * factor <= high:
        sizes.append(sizes[-1] * factor)
    if sizes[-1] != high:
        sizes.append(high)
    return sizes


def saturation_point(sizes: Sequence[float], values: Sequence[float], fraction: float = 0.9) -> tuple[float, float]:
    """The smallest size whose value reaches ``fraction`` of the best value, and that value.

    >>> saturation_point([1, 2, 4, 8], [1.0, 5.0, 9.5, 10.0])
    (4, 9.5)
    """
    if not sizes or len(sizes) != len(values):
        raise ValueError(t("bench.sweep_lengths"))
    if not 0 < fraction <= 1:
        raise ValueError(t("bench.sweep_fraction"))
    best = max(values)
    for size, value in sorted(zip(sizes, values, strict=True)):
        if value >= fraction * best:
            return size, value
    raise AssertionError("unreachable: the best value always qualifies")
