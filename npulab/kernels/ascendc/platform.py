"""The numbers of one Ascend SoC that a vector kernel depends on, read from the course's data file.

The values come from CANN's platform file ``Ascend910B3.ini`` (``<arch>-linux/data/platform_config/``), kept once
in ``npulab/data/reported_figures.yaml``: 192 KiB of Unified Buffer per vector core, 32-byte UB blocks,
40 vector cores (AIV). ``Platform`` can also describe a made-up chip for experiments.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from npulab.core.provenance import reported

MAX_BUFFERS = 64  # "一个 kernel 中所有使用的 Buffer 数量之和不能超过 64"（TPipe::InitBuffer 文档）


@dataclass(frozen=True)
class Platform:
    """What the tiling and the pipeline model need to know about a chip."""

    name: str
    ub_bytes: int  # Unified Buffer per vector core
    block_bytes: int  # UB access granularity ("ubblock_size")
    vector_cores: int  # AIV cores: the ceiling of blockDim for a vector-only kernel
    max_buffers: int = MAX_BUFFERS

    def __post_init__(self) -> None:
        if self.ub_bytes <= 0 or self.block_bytes <= 0 or self.vector_cores <= 0:
            raise ValueError(f"平台参数须为正数，收到 {self}")


@functools.lru_cache(maxsize=1)
def ascend910b3() -> Platform:
    """Ascend 910B3 as described by its CANN platform file (reported figures)."""
    return Platform(
        name="Ascend910B3",
        ub_bytes=int(reported("ini.910b3.ub_bytes").value),
        block_bytes=int(reported("ini.910b3.ubblock_bytes").value),
        vector_cores=int(reported("ini.910b3.vector_cores").value),
    )
