"""The numbers of one Ascend SoC that a vector kernel depends on, read from the course's data file.

The values come from CANN's platform files (``<arch>-linux/data/platform_config/<SoC>.ini``), kept once in the
course's chip table (``npulab/data/chips.yaml``, ``npulab.hw.chips``): on the 910B3 192 KiB of Unified Buffer per
vector core, 32-byte UB blocks, 40 vector cores (AIV). ``for_chip`` gives any chip of the table; ``Platform`` can
also describe a made-up chip for experiments.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from npulab.core.i18n import t
from npulab.hw.chips import Chip, get_chip

MAX_BUFFERS = 64  # "一个 kernel 中所有使用的 Buffer 数量之和不能超过 64"（TPipe::InitBuffer 文档）


@dataclass(frozen=True)
class Platform:
    """What the tiling and the pipeline model need to know about a chip."""

    name: str
    ub_bytes: int  # Unified Buffer per vector core
    block_bytes: int  # UB access granularity ("ubblock_size")
    vector_cores: int  # GetCoreNumAiv: AIV cores (AI Cores on a coupled chip), the blockDim of a vector-only kernel
    max_buffers: int = MAX_BUFFERS
    core_label: str = "Vector 核（AIV）"  # what vector_cores counts, for messages

    def __post_init__(self) -> None:
        if self.ub_bytes <= 0 or self.block_bytes <= 0 or self.vector_cores <= 0:
            raise ValueError(t("ascendc.platform_positive", platform=self))


@functools.cache
def for_chip(chip: str | Chip | None = None) -> Platform:
    """A chip of the course's table (default 910B3) as its CANN platform file describes it (reported figures).

    Raises ``npulab.hw.chips.NotApplicable`` (Chinese message) for a chip whose UB figures are not published.
    """
    chip = chip if isinstance(chip, Chip) else get_chip(chip)
    purpose = t("ascendc.purpose_tiling")
    cores = aiv_field(chip)
    return Platform(
        name=chip.soc_version,
        ub_bytes=int(chip.require("ub_bytes", purpose).value),
        block_bytes=int(chip.require("ubblock_bytes", purpose).value),
        vector_cores=int(chip.require(cores, purpose).value),
        core_label=CORE_LABELS[cores],
    )


# what a vector kernel's cores are called, by the chip-table field aiv_field picks
CORE_LABELS = {"vector_cores": "Vector 核（AIV）", "cube_cores": "AI Core（耦合架构，各带 Vector 单元）"}


_CORE_WORDS = {CORE_LABELS["vector_cores"]: lambda: t("ascendc.core_aiv"),
               CORE_LABELS["cube_cores"]: lambda: t("ascendc.core_coupled")}


def core_label(platform: Platform) -> str:
    """What ``platform.vector_cores`` counts, in the reader's language (a made-up label is shown as given)."""
    words = _CORE_WORDS.get(platform.core_label)
    return words() if words else platform.core_label


def aiv_field(chip: Chip) -> str:
    """The chip-table field a vector-only kernel's host tiling gets from ``GetCoreNumAiv``.

    Split (AIC/AIV) chips: their Vector cores; coupled ones (310P3): their AI Cores, each with its own Vector unit
    (Ascend C API reference, GetCoreNumAiv: "耦合模式返回AI Core的核数"). The 310P3's standalone Vector Cores
    (``GetCoreNumVector``) are not counted: the course's TilingFunc reads GetCoreNumAiv only. (The 310B has one
    AI Core and one Vector core: the same either way.)
    """
    return "vector_cores" if chip.is_split() else "cube_cores"


def ascend910b3() -> Platform:
    """Ascend 910B3 as described by its CANN platform file (reported figures): the course's default chip."""
    return for_chip("910B3")
