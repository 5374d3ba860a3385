"""A Python model of the Ascend C vector pipeline that runs the course's ReLU kernel.

The model mirrors the objects a vector kernel uses (the vector Add sample, Ascend/samples
``cplusplus/level1_single_api/4_op_dev/6_ascendc_custom_op/kernel_invocation/Add``, and the Ascend C API reference): Global Memory tensors (``GlobalTensor`` with ``set_global_buffer``), one ``TPipe`` per core
that carves the core's Unified Buffer into queue buffers (``init_buffer``), ``TQue`` queues with a
declared depth (``alloc_tensor`` / ``en_que`` / ``de_que`` / ``free_tensor``), and the three instructions
the kernel needs: ``data_copy`` (MTE2 GM→UB or MTE3 UB→GM), ``data_copy_pad`` (the same for lengths that
are not whole 32-byte blocks) and ``relu`` (the Vector unit).

It checks what the hardware requires and says so in Chinese instead of silently computing garbage:
UB budget (192 KiB on 910B3) and at most 64 buffers, 32-byte aligned UB addresses, ``DataCopy`` amounts
that are whole 32-byte blocks (the Ascend C docs state only the requirement, not what an unaligned amount does;
``strict=False`` applies the course's model of that undefined behaviour: round *down*, leave the tail uncopied),
``blockLen`` a multiple of the element size for ``DataCopyPad``,
queue depth, buffers allocated before use and freed after, copies inside the range a core was given.

Every instruction is recorded in a ``Trace`` with the unit that executes it and the instructions it must
wait for (data it reads, a buffer it reuses). ``npulab.kernels.ascendc.timeline`` turns the trace into a timeline
under a stated cost model. ``KernelReluCustom`` follows ``op_kernel/relu_custom.cpp`` line by line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from npulab.core.i18n import t
from npulab.kernels.ascendc.errors import (
    AlignmentError,
    AscendCError,
    OutOfBoundsError,
    QueueError,
    TilingError,
    UBOverflowError,
)
from npulab.kernels.ascendc.platform import Platform, ascend910b3
from npulab.kernels.ascendc.tiling import DTYPE_BYTES, ReluTiling, ceil_div, plan_tiling

UNITS = ("MTE2", "V", "MTE3")  # copy-in engine, Vector unit, copy-out engine
UNIT_NAMES = {"MTE2": "MTE2（GM→UB 搬入）", "V": "Vector（计算）", "MTE3": "MTE3（UB→GM 搬出）"}  # Chinese; see unit_name
_UNIT_WORDS = {"MTE2": lambda: t("ascendc.unit_mte2"), "V": lambda: t("ascendc.unit_v"), "MTE3": lambda: t("ascendc.unit_mte3")}


def unit_name(unit: str) -> str:
    """A pipeline unit's name with what it does, in the reader's language."""
    return _UNIT_WORDS[unit]()
UB_FILL = 0xCD  # what a fresh UB holds in the model: a visible "garbage" pattern, not zeros


# --- the trace ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Op:
    """One instruction: which core and unit ran it, how many UB bytes it touched, what it waited for."""

    id: int
    block: int
    unit: str  # "MTE2" | "V" | "MTE3"
    name: str  # "DataCopy" | "DataCopyPad" | "Relu"
    tile: int  # the n-th instruction of this unit on this core (= the tile index in this kernel)
    nbytes: int  # UB bytes moved or computed, in whole 32-byte blocks
    deps: tuple[int, ...]


@dataclass
class Trace:
    """The instructions of a kernel run in program order."""

    ops: list[Op] = field(default_factory=list)
    _count: dict = field(default_factory=dict, repr=False)

    def add(self, block: int, unit: str, name: str, nbytes: int, deps: set[int]) -> Op:
        tile = self._count.get((block, unit), 0)
        self._count[(block, unit)] = tile + 1
        op = Op(len(self.ops), block, unit, name, tile, nbytes, tuple(sorted(d for d in deps if d is not None)))
        self.ops.append(op)
        return op

    def of_block(self, block: int) -> list[Op]:
        return [op for op in self.ops if op.block == block]


# --- memory ------------------------------------------------------------------------------------------


class GlobalTensor:
    """A window onto Global Memory (a numpy array); ``g[i]`` is the window starting ``i`` elements later."""

    def __init__(self) -> None:
        self.array: np.ndarray | None = None
        self.offset = 0
        self.size = 0

    def set_global_buffer(self, array: np.ndarray, offset: int, size: int) -> None:
        """``SetGlobalBuffer((__gm__ T*)addr + offset, size)``: this core may touch ``size`` elements from ``offset``."""
        if offset < 0 or size < 0 or offset + size > array.size:
            raise OutOfBoundsError(t("ascendc.set_global_range", start=offset, end=offset + size, size=array.size))
        self.array, self.offset, self.size = array, offset, size

    def __getitem__(self, index: int) -> GlobalTensor:
        if self.array is None:
            raise AscendCError(t("ascendc.no_global_buffer"))
        view = GlobalTensor()
        view.array, view.offset, view.size = self.array, self.offset + index, self.size - index
        return view

    @property
    def dtype(self) -> np.dtype:
        return self.array.dtype

    def span(self, count: int) -> np.ndarray:
        """The ``count`` elements of this window (OutOfBoundsError past the core's range)."""
        if count > self.size or self.size < 0:
            raise OutOfBoundsError(t("ascendc.gm_out_of_bounds", offset=self.offset, count=count, left=max(self.size, 0)))
        return self.array[self.offset:self.offset + count]


@dataclass
class _Slot:
    """One buffer a queue owns in the UB."""

    addr: int
    nbytes: int
    in_use: bool = False
    last_op: int | None = None  # the last instruction that touched this buffer


class LocalTensor:
    """A tensor in the Unified Buffer, handed out by ``TQue.alloc_tensor``."""

    def __init__(self, queue: TQue, slot: _Slot, dtype: np.dtype):
        self.queue, self.slot, self.dtype = queue, slot, np.dtype(dtype)
        self.wait_for = slot.last_op  # the buffer's previous tenant must be finished before reuse
        self.last_op: int | None = None
        self.freed = False

    @property
    def addr(self) -> int:
        return self.slot.addr

    @property
    def capacity(self) -> int:
        return self.slot.nbytes // self.dtype.itemsize

    @property
    def data(self) -> np.ndarray:
        if self.freed:
            raise QueueError(t("ascendc.freed_local"))
        raw = self.queue.pipe.ub[self.slot.addr:self.slot.addr + self.slot.nbytes]
        return raw.view(self.dtype)


class TPipe:
    """One core's Unified Buffer and the memory manager that hands it out to queues."""

    def __init__(self, platform: Platform | None = None, *, block: int = 0, trace: Trace | None = None):
        self.platform = platform or ascend910b3()
        self.block = block
        self.trace = trace if trace is not None else Trace()
        self.ub = np.full(self.platform.ub_bytes, UB_FILL, dtype=np.uint8)
        self.used = 0
        self.buffers = 0

    def init_buffer(self, que: TQue, num: int, length: int) -> None:
        """``pipe.InitBuffer(que, num, len)``: ``num`` buffers of ``len`` bytes (rounded up to 32) for ``que``."""
        block = self.platform.block_bytes
        if num < 1 or length < 0:
            raise TilingError(t("ascendc.init_buffer_args", num=num, length=length))
        if que.pipe is not None:
            raise QueueError(t("ascendc.init_twice"))
        if self.buffers + num > self.platform.max_buffers:
            raise TilingError(t("ascendc.max_buffers", most=self.platform.max_buffers, after=self.buffers + num))
        size = ceil_div(length, block) * block
        if self.used + num * size > self.platform.ub_bytes:
            raise UBOverflowError(t("ascendc.init_ub", position=que.position, num=num, length=length, size=size,
                                    need=num * size, left=self.platform.ub_bytes - self.used, ub=self.platform.ub_bytes,
                                    used=self.used))
        que.pipe = self
        que.slots = [_Slot(self.used + k * size, size) for k in range(num)]
        self.used += num * size
        self.buffers += num


class TQue:
    """A queue at a logical position (VECIN / VECOUT) of declared depth, with the buffers InitBuffer gave it."""

    def __init__(self, position: str, depth: int = 1):
        if position not in ("VECIN", "VECOUT"):
            raise AscendCError(t("ascendc.position", position=repr(position)))
        if depth < 1:
            raise AscendCError(t("ascendc.depth", depth=depth))
        self.position, self.depth = position, depth
        self.pipe: TPipe | None = None
        self.slots: list[_Slot] = []
        self.queued: list[LocalTensor] = []
        self._next = 0

    def alloc_tensor(self, dtype) -> LocalTensor:
        """``AllocTensor<T>()``: take a free buffer (QueueError when every buffer is still in use)."""
        if self.pipe is None:
            raise QueueError(t("ascendc.alloc_before_init", position=self.position))
        # buffers are handed out in rotation, so that consecutive tiles land in different buffers
        order = self.slots[self._next:] + self.slots[:self._next]
        slot = next((s for s in order if not s.in_use), None)
        if slot is None:
            raise QueueError(t("ascendc.all_in_use", position=self.position, count=len(self.slots)))
        slot.in_use = True
        self._next = (self.slots.index(slot) + 1) % len(self.slots)
        return LocalTensor(self, slot, dtype)

    def en_que(self, tensor: LocalTensor) -> None:
        """``EnQue(tensor)``: hand a filled tensor to the next stage."""
        self._check_owner(tensor, "EnQue")
        if len(self.queued) >= self.depth:
            raise QueueError(t("ascendc.queue_full", position=self.position, depth=self.depth, queued=len(self.queued)))
        self.queued.append(tensor)

    def de_que(self) -> LocalTensor:
        """``DeQue<T>()``: take the oldest tensor handed over (QueueError on an empty queue)."""
        if not self.queued:
            raise QueueError(t("ascendc.queue_empty", position=self.position))
        return self.queued.pop(0)

    def free_tensor(self, tensor: LocalTensor) -> None:
        """``FreeTensor(tensor)``: give the buffer back for the next AllocTensor."""
        self._check_owner(tensor, "FreeTensor")
        if tensor in self.queued:
            raise QueueError(t("ascendc.free_queued"))
        tensor.slot.in_use = False
        tensor.freed = True

    def _check_owner(self, tensor: LocalTensor, what: str) -> None:
        if tensor.queue is not self:
            raise QueueError(t("ascendc.wrong_queue", what=what, owner=tensor.queue.position, position=self.position))
        if tensor.freed or not tensor.slot.in_use:
            raise QueueError(t("ascendc.already_freed", what=what))

    def outstanding(self) -> int:
        """Buffers still allocated (should be 0 when the kernel ends)."""
        return sum(s.in_use for s in self.slots)


# --- instructions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataCopyExtParams:
    """``DataCopyExtParams``: ``block_len`` in bytes (the model implements ``block_count = 1``)."""

    block_count: int = 1
    block_len: int = 0
    src_stride: int = 0
    dst_stride: int = 0
    rsv: int = 0


@dataclass(frozen=True)
class DataCopyPadExtParams:
    """``DataCopyPadExtParams<T>``: what to put into the rest of the last 32-byte block."""

    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: float = 0


def _record(pipe: TPipe, unit: str, name: str, nbytes: int, tensors: list[LocalTensor]) -> Op:
    deps = set()
    for tensor in tensors:
        deps.update((tensor.wait_for, tensor.last_op))
    block = pipe.platform.block_bytes
    op = pipe.trace.add(pipe.block, unit, name, ceil_div(nbytes, block) * block, deps)
    for tensor in tensors:
        tensor.last_op = op.id
        tensor.slot.last_op = op.id
    return op


def _check_local(tensor: LocalTensor, count: int, what: str) -> None:
    block = tensor.queue.pipe.platform.block_bytes
    if tensor.addr % block:
        raise AlignmentError(t("ascendc.ub_unaligned", what=what, addr=tensor.addr, block=block))
    if count < 0:
        raise AscendCError(t("ascendc.negative_count", what=what, count=count))
    if count > tensor.capacity:
        raise AscendCError(t("ascendc.over_capacity", what=what, count=count, capacity=tensor.capacity))


def _endpoints(dst, src, what: str) -> tuple[LocalTensor, GlobalTensor, str]:
    if isinstance(dst, LocalTensor) and isinstance(src, GlobalTensor):
        return dst, src, "MTE2"
    if isinstance(dst, GlobalTensor) and isinstance(src, LocalTensor):
        return src, dst, "MTE3"
    raise AscendCError(t("ascendc.endpoints", what=what))


def data_copy(dst, src, count: int, *, strict: bool = True) -> Op:
    """``DataCopy(dst, src, count)`` between GM and UB; ``count`` × element size must be whole 32-byte blocks.

    The Ascend C documentation (DataCopy API reference; "非对齐场景" in the programming guide) requires the length
    to be 32-byte aligned and does not say what an unaligned one does: it is undefined. ``strict=True`` (default)
    raises AlignmentError; ``strict=False`` applies the course's model of that undefined behaviour — copy the
    rounded-down amount and leave the tail unwritten — so a lesson can show how a tail bug looks. It is a model,
    not a documented hardware rule.
    """
    local, gm, unit = _endpoints(dst, src, "DataCopy")
    _check_local(local, count, "DataCopy")
    size = local.dtype.itemsize
    block = local.queue.pipe.platform.block_bytes
    if (count * size) % block:
        if strict:
            raise AlignmentError(t("ascendc.copy_unaligned", count=count, size=size, nbytes=count * size, block=block,
                                   moved=count * size // block * block, rest=count * size % block))
        count = count * size // block * block // size
    if unit == "MTE2":
        local.data[:count] = gm.span(count)
    else:
        gm.span(count)[:] = local.data[:count]
    return _record(local.queue.pipe, unit, "DataCopy", count * size, [local])


def data_copy_pad(dst, src, params: DataCopyExtParams, pad: DataCopyPadExtParams | None = None) -> Op:
    """``DataCopyPad``: copy ``params.block_len`` bytes (any multiple of the element size) between GM and UB.

    GM→UB fills the rest of the last 32-byte block: with the first copied element when no padding is
    asked for (the documented "dummy" value), with ``padding_value`` when ``is_pad``. UB→GM writes exactly
    ``block_len`` bytes, so neighbouring data in GM is left alone.
    """
    local, gm, unit = _endpoints(dst, src, "DataCopyPad")
    size = local.dtype.itemsize
    if params.block_count != 1:
        raise AscendCError(t("ascendc.pad_block_count", count=params.block_count))
    if params.block_len % size:
        raise AlignmentError(t("ascendc.pad_block_len", length=params.block_len, size=size))
    count = params.block_len // size
    block = local.queue.pipe.platform.block_bytes
    padded = ceil_div(params.block_len, block) * block // size
    _check_local(local, padded if unit == "MTE2" else count, "DataCopyPad")
    if unit == "MTE2":
        pad = pad or DataCopyPadExtParams()
        if pad.left_padding:
            raise AscendCError(t("ascendc.left_padding"))
        values = gm.span(count)
        local.data[:count] = values
        if padded > count:
            if pad.right_padding == 0 and count:
                local.data[count:padded] = values[0]
            elif pad.is_pad:
                local.data[count:padded] = pad.padding_value
    else:
        gm.span(count)[:] = local.data[:count]
    return _record(local.queue.pipe, unit, "DataCopyPad", params.block_len, [local])


def relu(dst: LocalTensor, src: LocalTensor, count: int) -> Op:
    """``Relu(dst, src, count)`` on the Vector unit: dst[i] = max(src[i], 0) for the first ``count`` elements."""
    if not (isinstance(dst, LocalTensor) and isinstance(src, LocalTensor)):
        raise AscendCError(t("ascendc.relu_local"))
    _check_local(src, count, "Relu")
    _check_local(dst, count, "Relu")
    if dst.dtype != src.dtype:
        raise AscendCError(t("ascendc.relu_dtype", src=src.dtype, dst=dst.dtype))
    dst.data[:count] = np.maximum(src.data[:count], src.dtype.type(0))
    return _record(dst.queue.pipe, "V", "Relu", count * src.dtype.itemsize, [src, dst])


# --- the kernel --------------------------------------------------------------------------------------


class KernelReluCustom:
    """The twin of ``class KernelReluCustom`` in ``op_kernel/relu_custom.cpp`` (same members, same steps).

    ``use_pad=False`` turns the tail copies into plain ``DataCopy`` — the mistake the lesson shows.
    """

    def __init__(self, pipe: TPipe, *, block_idx: int, block_num: int, buffer_num: int = 2,
                 use_pad: bool = True, strict: bool = True):
        self.pipe = pipe
        self.block_idx, self.block_num, self.buffer_num = block_idx, block_num, buffer_num
        self.use_pad, self.strict = use_pad, strict
        self.in_queue_x = TQue("VECIN", depth=1)
        self.out_queue_y = TQue("VECOUT", depth=1)
        self.x_gm, self.y_gm = GlobalTensor(), GlobalTensor()
        self.block_length = self.tile_length = self.tile_num = self.last_tile_length = 0
        self.dtype: np.dtype | None = None

    def init(self, x: np.ndarray, y: np.ndarray, total_length: int, block_length: int, tile_length: int) -> None:
        """``Init``: this core's share of GM, its tile count, and its UB buffers."""
        if self.block_idx == self.block_num - 1:  # the last core takes what is left
            self.block_length = total_length - block_length * (self.block_num - 1)
        else:
            self.block_length = block_length
        self.tile_length = tile_length
        self.tile_num = ceil_div(self.block_length, tile_length) if tile_length else 0
        if self.tile_num == 0:
            return
        self.last_tile_length = self.block_length - tile_length * (self.tile_num - 1)
        self.dtype = x.dtype
        self.x_gm.set_global_buffer(x, block_length * self.block_idx, self.block_length)
        self.y_gm.set_global_buffer(y, block_length * self.block_idx, self.block_length)
        self.pipe.init_buffer(self.in_queue_x, self.buffer_num, tile_length * x.dtype.itemsize)
        self.pipe.init_buffer(self.out_queue_y, self.buffer_num, tile_length * y.dtype.itemsize)

    def process(self) -> None:
        """``Process``: CopyIn → Compute → CopyOut for every tile; the last tile may be shorter."""
        for i in range(self.tile_num):
            length = self.last_tile_length if i == self.tile_num - 1 else self.tile_length
            self.copy_in(i, length)
            self.compute(length)
            self.copy_out(i, length)

    def _aligned(self, length: int) -> bool:
        return (length * self.dtype.itemsize) % self.pipe.platform.block_bytes == 0

    def copy_in(self, progress: int, length: int) -> None:
        x_local = self.in_queue_x.alloc_tensor(self.dtype)
        if self._aligned(length) or not self.use_pad:
            data_copy(x_local, self.x_gm[progress * self.tile_length], length, strict=self.strict)
        else:
            params = DataCopyExtParams(1, length * self.dtype.itemsize, 0, 0, 0)
            data_copy_pad(x_local, self.x_gm[progress * self.tile_length], params, DataCopyPadExtParams(False, 0, 0, 0))
        self.in_queue_x.en_que(x_local)

    def compute(self, length: int) -> None:
        x_local = self.in_queue_x.de_que()
        y_local = self.out_queue_y.alloc_tensor(self.dtype)
        relu(y_local, x_local, length)
        self.out_queue_y.en_que(y_local)
        self.in_queue_x.free_tensor(x_local)

    def copy_out(self, progress: int, length: int) -> None:
        y_local = self.out_queue_y.de_que()
        if self._aligned(length) or not self.use_pad:
            data_copy(self.y_gm[progress * self.tile_length], y_local, length, strict=self.strict)
        else:
            params = DataCopyExtParams(1, length * self.dtype.itemsize, 0, 0, 0)
            data_copy_pad(self.y_gm[progress * self.tile_length], y_local, params)
        self.out_queue_y.free_tensor(y_local)

    def check_finished(self) -> None:
        """Every buffer freed and every queue drained (what a correct kernel leaves behind)."""
        for que in (self.in_queue_x, self.out_queue_y):
            if que.outstanding() or que.queued:
                raise QueueError(t("ascendc.unfinished", block=self.block_idx, position=que.position, count=que.outstanding()))


# --- running it --------------------------------------------------------------------------------------


@dataclass
class KernelRun:
    """Result of running the kernel model: the output, the instruction trace and the tiling used."""

    y: np.ndarray
    trace: Trace
    tiling: ReluTiling
    ub_used: list[int]  # UB bytes InitBuffer reserved on each core

    def unwritten(self) -> int:
        """How many output elements no core wrote (still the sentinel)."""
        return int(np.count_nonzero(_is_sentinel(self.y)))


def _dtype_name(x: np.ndarray) -> str:
    name = x.dtype.name
    if name not in DTYPE_BYTES:
        raise TilingError(t("ascendc.relu_supports", supported=t("cube.list_separator").join(DTYPE_BYTES), name=name))
    return name


def _sentinel(dtype: np.dtype):
    return np.nan if dtype.kind == "f" else np.iinfo(dtype).min  # ReLU never produces either


def _is_sentinel(y: np.ndarray) -> np.ndarray:
    return np.isnan(y) if y.dtype.kind == "f" else y == np.iinfo(y.dtype).min


def run_relu(x, tiling: ReluTiling | None = None, *, platform: Platform | None = None, use_pad: bool = True,
             strict: bool = True, check_tiling: bool = True,
             kernel_class: type[KernelReluCustom] = KernelReluCustom) -> KernelRun:
    """Run the ReLU kernel model on ``x``, core by core, tile by tile; return output and trace.

    ``tiling`` defaults to ``plan_tiling(x.size, dtype)``. Output elements no core writes keep a sentinel
    (NaN, or the smallest int32) so that a wrong kernel shows up. ``check_tiling=False`` skips
    ``ReluTiling.validate`` and lets the pipe itself find the problem (InitBuffer, DataCopy). ``kernel_class``
    runs a subclass instead (an exercise that rewrites one stage, say).

    >>> import numpy as np
    >>> x = np.array([-1.5, 2.0, -0.0, 3.25, -7.0], dtype=np.float32)
    >>> run_relu(x).y.tolist()
    [0.0, 2.0, 0.0, 3.25, 0.0]
    """
    platform = platform or ascend910b3()
    x = np.ascontiguousarray(x).reshape(-1)
    dtype = _dtype_name(x)
    if tiling is None:
        tiling = plan_tiling(x.size, dtype, platform=platform)
    if tiling.total_length != x.size or tiling.dtype != dtype:
        raise TilingError(t("ascendc.tiling_mismatch", total=tiling.total_length, dtype=tiling.dtype, size=x.size, got=dtype))
    if check_tiling:
        tiling.validate(platform)
    y = np.full_like(x, _sentinel(x.dtype))
    trace = Trace()
    ub_used = []
    for block_idx in range(tiling.block_dim):  # the cores run in parallel on the chip; here one after another
        pipe = TPipe(platform, block=block_idx, trace=trace)
        kernel = kernel_class(pipe, block_idx=block_idx, block_num=tiling.block_dim,
                              buffer_num=tiling.buffer_num, use_pad=use_pad, strict=strict)
        kernel.init(x, y, tiling.total_length, tiling.block_length, tiling.tile_length)
        kernel.process()
        kernel.check_finished()
        ub_used.append(pipe.used)
    return KernelRun(y, trace, tiling, ub_used)
