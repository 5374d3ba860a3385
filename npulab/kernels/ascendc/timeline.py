"""When each instruction of a kernel trace would run, under a simple cost model — a model, not a measurement.

Each unit of a vector core (MTE2 copy-in, Vector, MTE3 copy-out) runs its own instructions one after
another, in program order. An instruction starts when its unit is free and every instruction it depends on
has finished: the copy that filled the data it reads, and the last user of the buffer it reuses
(``FreeTensor`` → ``AllocTensor``). With one buffer per queue the three stages of successive tiles cannot
overlap; with two (double buffering) the copy of tile i+1 runs while tile i is computed.

``CostModel`` gives each instruction ``startup + bytes / (bytes per cycle)`` cycles. Its numbers are
assumptions stated on the page: the copy rates are the ``ddr_rate`` / ``ub_to_ddr_rate`` entries of the
910B3 platform file, whose unit the file does not state; the Vector rate assumes one 256-byte repeat per
cycle; the start-up costs are round guesses. What the model shows — which unit is the bottleneck, how
much overlap double buffering can buy — follows from the structure, not from these values. It ignores
contention for GM bandwidth between cores, the scalar unit, caches and the kernel launch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from npulab.core.i18n import t
from npulab.kernels.ascendc.emulator import UNITS, Op, Trace, unit_name


@dataclass(frozen=True)
class CostModel:
    """Cycles per instruction: a fixed start-up plus bytes divided by the unit's bytes per cycle."""

    mte2_bytes_per_cycle: float = 32.0
    mte3_bytes_per_cycle: float = 64.0
    vector_bytes_per_cycle: float = 256.0
    mte2_startup: int = 150
    mte3_startup: int = 150
    vector_startup: int = 30
    clock_ghz: float = 1.8  # only to print microseconds; the 910B3 platform file's cube_freq

    def cycles(self, op: Op) -> int:
        """Duration of ``op`` in cycles."""
        rate, startup = {
            "MTE2": (self.mte2_bytes_per_cycle, self.mte2_startup),
            "V": (self.vector_bytes_per_cycle, self.vector_startup),
            "MTE3": (self.mte3_bytes_per_cycle, self.mte3_startup),
        }[op.unit]
        return startup + math.ceil(op.nbytes / rate)

    @classmethod
    def from_platform_file(cls, chip=None, **overrides) -> CostModel:
        """The default model with the copy rates and clock of ``chip`` (default 910B3) from its platform file."""
        from npulab.hw.chips import Chip, get_chip

        chip = chip if isinstance(chip, Chip) else get_chip(chip)
        purpose = t("ascendc.purpose_cost")
        values = {
            "mte2_bytes_per_cycle": float(chip.require("ddr_rate", purpose).value),
            "mte3_bytes_per_cycle": float(chip.require("ub_to_ddr_rate", purpose).value),
            "clock_ghz": chip.require("cube_freq_mhz", purpose).value / 1000,
        }
        values.update(overrides)
        return cls(**values)

    def rows(self) -> list[tuple[str, str, str]]:
        """(parameter, value, where it comes from) for the page."""
        return [
            (t("ascendc.cost_mte2"), t("ascendc.per_cycle", value=f"{self.mte2_bytes_per_cycle:g}"),
             t("ascendc.src_ddr_rate")),
            (t("ascendc.cost_mte3"), t("ascendc.per_cycle", value=f"{self.mte3_bytes_per_cycle:g}"),
             t("ascendc.src_ub_to_ddr")),
            (t("ascendc.cost_vector"), t("ascendc.per_cycle", value=f"{self.vector_bytes_per_cycle:g}"),
             t("ascendc.src_repeat")),
            (t("ascendc.cost_startup"),
             t("ascendc.cycles", value=f"{self.mte2_startup} / {self.vector_startup} / {self.mte3_startup}"),
             t("ascendc.src_startup")),
            (t("ascendc.cost_clock"), f"{self.clock_ghz:g} GHz", t("ascendc.src_clock")),
        ]


@dataclass(frozen=True)
class Span:
    """An instruction placed on the timeline."""

    op: Op
    start: int
    end: int


@dataclass(frozen=True)
class Timeline:
    """All instructions of a trace with start and end cycles."""

    spans: tuple[Span, ...]
    cost: CostModel

    def of_block(self, block: int) -> list[Span]:
        return [s for s in self.spans if s.op.block == block]

    @property
    def total_cycles(self) -> int:
        """Kernel duration: the slowest core (cores run in parallel)."""
        return max((s.end for s in self.spans), default=0)

    def busy_cycles(self, unit: str, block: int = 0) -> int:
        """Cycles a unit of one core spends working."""
        return sum(s.end - s.start for s in self.of_block(block) if s.op.unit == unit)

    def bottleneck(self, block: int = 0) -> str:
        """The unit of ``block`` with the most work: double buffering cannot beat its busy time."""
        return max(UNITS, key=lambda u: self.busy_cycles(u, block))

    def microseconds(self, cycles: int | None = None) -> float:
        return (self.total_cycles if cycles is None else cycles) / (self.cost.clock_ghz * 1e3)


def schedule(trace: Trace, cost: CostModel | None = None) -> Timeline:
    """Place every instruction of ``trace`` as early as its unit and its dependencies allow."""
    cost = cost or CostModel()
    ends: dict[int, int] = {}
    unit_free: dict[tuple[int, str], int] = {}
    spans = []
    for op in trace.ops:  # program order: the order in which the scalar unit issues them
        start = max([unit_free.get((op.block, op.unit), 0)] + [ends[d] for d in op.deps])
        end = start + cost.cycles(op)
        ends[op.id] = end
        unit_free[(op.block, op.unit)] = end
        spans.append(Span(op, start, end))
    return Timeline(tuple(spans), cost)


def plot_timeline(timeline: Timeline, ax, *, block: int = 0, title: str = "") -> None:
    """Draw the three units of one core as rows of bars, one bar per instruction, labelled with its tile."""
    colors = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860")
    spans = timeline.of_block(block)
    end = max((s.end for s in spans), default=1)
    for row, unit in enumerate(reversed(UNITS)):
        for s in (s for s in spans if s.op.unit == unit):
            ax.broken_barh([(s.start, s.end - s.start)], (row - 0.35, 0.7), facecolors=colors[s.op.tile % len(colors)],
                           edgecolor="white", linewidth=0.5)
            if (s.end - s.start) > end * 0.03:
                ax.text((s.start + s.end) / 2, row, str(s.op.tile), ha="center", va="center", fontsize=7, color="white")
    ax.set_yticks(range(len(UNITS)), [unit_name(u) for u in reversed(UNITS)])
    ax.set_xlim(0, end * 1.02)
    ax.set_xlabel(t("ascendc.xlabel"))
    ax.set_title(title or t("ascendc.title", block=block, end=end))
    ax.grid(axis="y", visible=False)
