"""``npulab.kernels.ascendc``: the Ascend C vector pipeline as a runnable Python model, for the course's ReLU kernel.

- ``tiling``    the kernel's tiling parameters (totalLength, blockDim, blockLength, tileLength, BUFFER_NUM),
                ``plan_tiling`` (the host tiling function's steps) and ``ReluTiling.validate`` (UB budget,
                32-byte alignment, core count) with Chinese errors
- ``emulator``  TPipe / TQue / GlobalTensor / LocalTensor, DataCopy / DataCopyPad / Relu, and
                ``KernelReluCustom``, the twin of ``op_kernel/relu_custom.cpp``; ``run_relu`` runs it
- ``timeline``  when each instruction would run under a stated cost model; the MTE2 / Vector / MTE3 plot
- ``platform``  the SoC numbers (UB size, block size, vector cores) from the course's data file

>>> import numpy as np
>>> from npulab.kernels.ascendc import plan_tiling, run_relu
>>> x = np.linspace(-1, 1, 1000, dtype=np.float32)
>>> bool(np.array_equal(run_relu(x, plan_tiling(x.size, "float32", core_num=4)).y, np.maximum(x, 0)))
True
"""

from npulab.kernels.ascendc.emulator import KernelRun, run_relu
from npulab.kernels.ascendc.errors import (
    AlignmentError,
    AscendCError,
    OutOfBoundsError,
    QueueError,
    TilingError,
    TilingWarning,
    UBOverflowError,
)
from npulab.kernels.ascendc.platform import Platform, ascend910b3, for_chip
from npulab.kernels.ascendc.tiling import ReluTiling, plan_tiling
from npulab.kernels.ascendc.timeline import CostModel, Timeline, plot_timeline, schedule

__all__ = [
    "AlignmentError", "AscendCError", "CostModel", "KernelRun", "OutOfBoundsError", "Platform", "QueueError",
    "ReluTiling", "TilingError", "TilingWarning", "Timeline", "UBOverflowError", "ascend910b3", "for_chip", "plan_tiling",
    "plot_timeline",
    "run_relu", "schedule",
]
