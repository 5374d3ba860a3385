"""Tiling of the ReLU kernel: how many cores, how many elements per core, how many per tile.

These are the parameters that the host-side tiling function of
``chapters/06_advanced/ascendc/relu_custom/op_host/relu_custom.cpp`` computes and hands to the kernel
(``ReluCustomTilingData``: totalLength, blockLength, tileLength; blockDim through ``SetBlockDim``;
BUFFER_NUM is a constant of the kernel). ``plan_tiling`` follows that C++ function step for step, and
``ReluTiling.validate`` rejects settings the kernel cannot run with, saying why in Chinese, and warns
(``TilingWarning``) about settings that run but waste time:

- every per-core slice except the last starts on a 32-byte boundary (``blockLength`` is aligned);
- a tile fills whole 32-byte UB blocks (``tileLength`` × element size is a multiple of 32);
- the buffers of both queues fit into the Unified Buffer: 2 queues × BUFFER_NUM × tile bytes ≤ UB;
- blockDim is a count of *logical* cores in [1, 65535] (``SetBlockDim``, CANN API reference atlasopapi_07_00236);
  for a vector-only kernel more than the chip's vector cores is legal and only warned about (the extra blocks
  wait for a free core); the "no more than the physical cores" rule binds Cube + Vector (MIX) kernels, not this one;
- the buffer count stays within ``InitBuffer``'s limit.

The last core takes what is left (``totalLength − blockLength × (blockDim − 1)``), and the last tile of
a core may be shorter than ``tileLength``; the kernel copies such tails with ``DataCopyPad``.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

from npulab.core.i18n import t
from npulab.kernels.ascendc.errors import AlignmentError, TilingError, TilingWarning, UBOverflowError
from npulab.kernels.ascendc.platform import Platform, ascend910b3, core_label

# element types the kernel is registered for, with their size in bytes: the Relu vector API supports
# half / float / int32_t on Atlas A2 (Ascend C API reference, "Relu")
DTYPE_BYTES = {"float16": 2, "float32": 4, "int32": 4}
QUEUE_COUNT = 2  # inQueueX (VECIN) and outQueueY (VECOUT)
DEFAULT_BUFFER_NUM = 2  # double buffering: InitBuffer(queue, BUFFER_NUM, tileBytes)
# every core but a lone one gets at least this much input, so that a small tensor does not wake 40 cores;
# a tuning choice of this course (MIN_CORE_BYTES in op_host/relu_custom.cpp), not a hardware rule
MIN_CORE_BYTES = 8192
MAX_BLOCK_DIM = 65535  # SetBlockDim: blockDim counts logical cores, range [1, 65535]


def ceil_div(a: int, b: int) -> int:
    """⌈a / b⌉ for non-negative a and positive b."""
    return -(-a // b)


def _is_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def dtype_bytes(dtype: str) -> int:
    """Size in bytes of an element type the kernel supports; TilingError (Chinese) otherwise."""
    try:
        return DTYPE_BYTES[str(dtype)]
    except KeyError:
        supported = t("cube.list_separator").join(DTYPE_BYTES)
        raise TilingError(t("ascendc.dtype", supported=supported, dtype=repr(dtype))) from None


@dataclass(frozen=True)
class ReluTiling:
    """The kernel's tiling parameters; field names are the C++ ones in snake_case."""

    total_length: int  # totalLength: elements of x
    block_dim: int  # blockDim: cores launched (SetBlockDim)
    block_length: int  # blockLength: elements per core (the last core takes the rest)
    tile_length: int  # tileLength: elements per tile (the last tile of a core may be shorter)
    dtype: str = "float16"
    buffer_num: int = DEFAULT_BUFFER_NUM  # BUFFER_NUM: buffers per queue (2 = double buffering)

    @property
    def type_bytes(self) -> int:
        return dtype_bytes(self.dtype)

    def align_elems(self, platform: Platform | None = None) -> int:
        """Elements per 32-byte UB block (16 for float16, 8 for float32)."""
        return (platform or ascend910b3()).block_bytes // self.type_bytes

    @property
    def tile_bytes(self) -> int:
        return self.tile_length * self.type_bytes

    def buffer_bytes(self, platform: Platform | None = None) -> int:
        """Bytes InitBuffer reserves per buffer: the tile rounded up to whole 32-byte blocks."""
        block = (platform or ascend910b3()).block_bytes
        return ceil_div(self.tile_bytes, block) * block

    def ub_bytes_needed(self, platform: Platform | None = None) -> int:
        """UB the kernel reserves on each core: QUEUE_COUNT × BUFFER_NUM × buffer bytes."""
        return QUEUE_COUNT * self.buffer_num * self.buffer_bytes(platform)

    def core_length(self, block_idx: int) -> int:
        """Elements handled by core ``block_idx`` (the last core takes the remainder)."""
        if not 0 <= block_idx < self.block_dim:
            raise TilingError(t("ascendc.block_idx", last=self.block_dim - 1, block_idx=block_idx))
        if block_idx == self.block_dim - 1:
            return self.total_length - self.block_length * (self.block_dim - 1)
        return self.block_length

    def tile_lengths(self, block_idx: int) -> list[int]:
        """Length of every tile of core ``block_idx``, in the order the kernel processes them."""
        length = self.core_length(block_idx)
        if length == 0:
            return []
        count = ceil_div(length, self.tile_length)
        return [self.tile_length] * (count - 1) + [length - self.tile_length * (count - 1)]

    def as_tiling_data(self) -> dict[str, int | str]:
        """The values as the C++ side names them (TilingData fields, blockDim, BUFFER_NUM)."""
        return {
            "totalLength": self.total_length,
            "blockLength": self.block_length,
            "tileLength": self.tile_length,
            "blockDim": self.block_dim,
            "BUFFER_NUM": self.buffer_num,
            "dtype": self.dtype,
        }

    def validate(self, platform: Platform | None = None) -> ReluTiling:
        """Raise TilingError / AlignmentError / UBOverflowError (Chinese) if the kernel cannot run; else self."""
        platform = platform or ascend910b3()
        size = self.type_bytes
        block = platform.block_bytes
        for name in ("total_length", "block_dim", "block_length", "tile_length", "buffer_num"):
            value = getattr(self, name)
            if not _is_int(value):
                raise TilingError(t("ascendc.not_int", name=name, value=repr(value)))
        if self.total_length < 0:
            raise TilingError(t("ascendc.total_negative", total=self.total_length))
        if self.buffer_num < 1:
            raise TilingError(t("ascendc.buffer_num", buffer_num=self.buffer_num))
        if not 1 <= self.block_dim <= MAX_BLOCK_DIM:
            raise TilingError(t("ascendc.block_dim", block_dim=self.block_dim, most=MAX_BLOCK_DIM))
        if self.total_length == 0:
            return self
        if self.tile_length < 1 or self.block_length < 1:
            raise TilingError(t("ascendc.lengths", tile=self.tile_length, block=self.block_length))
        if (self.tile_length * size) % block:
            raise AlignmentError(t("ascendc.tile_align", tile=self.tile_length, dtype=self.dtype,
                                   nbytes=self.tile_length * size, block=block, multiple=block // size,
                                   example=ceil_div(self.tile_length, block // size) * (block // size)))
        if self.block_dim > 1 and (self.block_length * size) % block:
            raise AlignmentError(t("ascendc.block_align", length=self.block_length, dtype=self.dtype,
                                   nbytes=self.block_length * size, block=block))
        if self.block_length * (self.block_dim - 1) >= self.total_length:
            raise TilingError(t("ascendc.idle_last_core", block_dim=self.block_dim, length=self.block_length,
                                before=self.block_dim - 1, covered=self.block_length * (self.block_dim - 1),
                                total=self.total_length, enough=ceil_div(self.total_length, self.block_length)))
        buffers = QUEUE_COUNT * self.buffer_num
        if buffers > platform.max_buffers:
            raise TilingError(t("ascendc.too_many_buffers", queues=QUEUE_COUNT, buffer_num=self.buffer_num, buffers=buffers,
                                  most=platform.max_buffers))
        need = self.ub_bytes_needed(platform)
        if need > platform.ub_bytes:
            largest = platform.ub_bytes // buffers // block * block // size
            raise UBOverflowError(t("ascendc.ub_overflow", queues=QUEUE_COUNT, buffer_num=self.buffer_num,
                                    buffer_bytes=self.buffer_bytes(platform), need=need, platform=platform.name,
                                    ub=platform.ub_bytes, ub_kib=platform.ub_bytes // 1024, largest=largest))
        for message in self.warnings(platform):
            warnings.warn(message, TilingWarning, stacklevel=2)
        return self

    def warnings(self, platform: Platform | None = None) -> list[str]:
        """Chinese notes on settings that run but probably waste time (no exception: the kernel still works)."""
        platform = platform or ascend910b3()
        notes = []
        if _is_int(self.block_dim) and self.block_dim > platform.vector_cores:
            rounds = ceil_div(self.block_dim, platform.vector_cores)
            notes.append(t("ascendc.rounds", block_dim=self.block_dim, platform=platform.name,
                           cores=platform.vector_cores, label=core_label(platform), rounds=rounds))
        return notes

    def describe(self, platform: Platform | None = None) -> str:
        """A few lines in the reader's language: cores, per-core length, tiles, UB use."""
        platform = platform or ascend910b3()
        last = self.block_dim - 1
        lines = [
            t("ascendc.describe_cores", total=self.total_length, dtype=self.dtype,
              nbytes=self.total_length * self.type_bytes, block_dim=self.block_dim),
            t("ascendc.describe_length", length=self.block_length, last=self.core_length(last)),
            t("ascendc.describe_tiles", tile=self.tile_length, tile_bytes=self.tile_bytes,
              first=len(self.tile_lengths(0)), last=len(self.tile_lengths(last)),
              tail=(self.tile_lengths(last) or [0])[-1]),
            t("ascendc.describe_ub", queues=QUEUE_COUNT, buffer_num=self.buffer_num,
              buffer_bytes=self.buffer_bytes(platform), need=self.ub_bytes_needed(platform), ub=platform.ub_bytes,
              share=f"{self.ub_bytes_needed(platform) / platform.ub_bytes:.0%}"),
        ]
        return "\n".join(lines)


def plan_tiling(
    total_length: int,
    dtype: str = "float16",
    *,
    platform: Platform | None = None,
    buffer_num: int = DEFAULT_BUFFER_NUM,
    core_num: int | None = None,
    tile_length: int | None = None,
    min_core_bytes: int = MIN_CORE_BYTES,
) -> ReluTiling:
    """The tiling the host function computes for ``total_length`` elements (validated).

    Same steps as ``TilingFunc`` in ``op_host/relu_custom.cpp``: split the input into 32-byte blocks; use
    one core per whole ``min_core_bytes`` of input (at least one, at most ``core_num``, default: all vector
    cores); give every core the same whole number of blocks (the last core takes the rest); make a tile
    as large as the UB allows (``UB / (2 queues × BUFFER_NUM)``, whole blocks), but no larger than one
    core's share. ``tile_length`` overrides the tile size for experiments.

    >>> t = plan_tiling(1000, "float32", core_num=4, min_core_bytes=32)
    >>> (t.block_dim, t.block_length, t.core_length(3), t.tile_length)
    (4, 256, 232, 256)
    >>> plan_tiling(1000, "float32").block_dim   # 4000 bytes: one core is enough
    1
    """
    platform = platform or ascend910b3()
    size = dtype_bytes(dtype)
    if not _is_int(total_length) or total_length < 0:
        raise TilingError(t("ascendc.total_usage", total=repr(total_length)))
    total_length = int(total_length)
    cores = platform.vector_cores if core_num is None else core_num
    if not _is_int(cores) or cores < 1:
        raise TilingError(t("ascendc.core_num", core_num=repr(core_num)))
    if not _is_int(min_core_bytes) or min_core_bytes < platform.block_bytes:
        raise TilingError(t("ascendc.min_core_bytes", block=platform.block_bytes, value=repr(min_core_bytes)))
    if total_length == 0:  # an empty tensor: one core that does nothing
        return ReluTiling(0, 1, 0, 0, dtype, buffer_num).validate(platform)
    align = platform.block_bytes // size
    blocks = ceil_div(total_length, align)
    cores = max(1, min(cores, blocks // (min_core_bytes // platform.block_bytes)))
    blocks_per_core = ceil_div(blocks, cores)
    block_dim = ceil_div(blocks, blocks_per_core)
    block_length = blocks_per_core * align
    if tile_length is None:
        tile_bytes = platform.ub_bytes // (QUEUE_COUNT * max(buffer_num, 1)) // platform.block_bytes * platform.block_bytes
        tile_length = min(tile_bytes // size, block_length)
    elif not _is_int(tile_length):
        raise TilingError(t("ascendc.not_int", name="tile_length", value=repr(tile_length)))
    return ReluTiling(total_length, block_dim, block_length, int(tile_length), dtype, buffer_num).validate(platform)
