"""Checks of lab 06 (Ascend C tiling and pipeline, migration assessment, collective bandwidth, Triton kernels)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from npulab.course.labs import Lab

# question 3: the pipeline the learner times (one core, 32 tiles of 2048 float32, a heavier Vector unit)
PIPELINE = {"total_length": 32 * 2048, "dtype": "float32", "tile_length": 2048, "vector_bytes_per_cycle": 64}
# question 4: the project the learner assesses, and the answers its description implies
PROJECT = {"framework": "hf", "kernels": "triton", "compile": "eager", "libraries": "replaceable",
           "distributed": "ddp", "stage": "stable", "latency": "normal"}
_HINTS = {
    "framework": "训练由哪个库的 Trainer 驱动？",
    "kernels": "描述里的自定义内核是用什么写的？",
    "compile": "描述说没有用 torch.compile。",
    "libraries": "apex 在昇腾上有没有替代品？",
    "distributed": "单机 8 卡、NCCL 后端的数据并行是哪一种？",
    "stage": "模型已经定型。",
    "latency": "描述里没有延迟要求。",
}


def _check_tiling(answer) -> tuple[bool, str]:
    from npulab.kernels.ascendc import plan_tiling

    try:
        block_dim, block_length, tile_length = (int(v) for v in answer)
    except (TypeError, ValueError):
        return False, "请给出三个整数组成的元组：(blockDim, blockLength, tileLength)。"
    expected = plan_tiling(1_000_000, "float16")
    if (block_dim, block_length, tile_length) == (expected.block_dim, expected.block_length, expected.tile_length):
        return True, "核数、每核长度（整块）和 UB 允许的最大 tile 都对。"
    if block_dim != expected.block_dim:
        return False, "blockDim 不对：每满 8 KiB 输入一个核，但不超过 Vector 核的数量。"
    if (block_length * 2) % 32:
        return False, "blockLength 须是 32 字节的整数倍（float16 即 16 个元素的倍数）：先按 32 字节块平分，再换算成元素。"
    if block_length != expected.block_length:
        return False, "blockLength 不对：把输入按 32 字节块数平分给各核（向上取整），再换算成元素个数。"
    if tile_length in (2 * expected.tile_length, 4 * expected.tile_length):
        return False, "tileLength 太大：UB 要同时放下输入、输出两个队列，每个队列有 BUFFER_NUM 块 buffer。"
    return False, "tileLength 不对：UB 容量按 2 个队列 × BUFFER_NUM 块平分，再换算成 float16 元素，且不超过 blockLength。"


class _Unanswered(Exception):
    pass


def _check_copy_out(copy_out: Callable) -> tuple[bool | None, str]:
    from npulab.kernels.ascendc import AlignmentError, OutOfBoundsError, QueueError, plan_tiling, run_relu
    from npulab.kernels.ascendc.emulator import KernelReluCustom

    if not callable(copy_out):
        return False, "请给出一个函数 copy_out(kernel, progress, length)。"

    class LearnerKernel(KernelReluCustom):
        def copy_out(self, progress: int, length: int) -> None:
            if copy_out(self, progress, length) is Ellipsis:
                raise _Unanswered

    rng = np.random.default_rng(6)
    cases = [(64, "float32", 16), (21, "float32", 8), (1000, "float16", 96), (4097, "int32", 512), (5, "float16", 16)]
    try:
        for n, dtype, tile in cases:
            x = (rng.standard_normal(n) * 10).astype(dtype)
            run = run_relu(x, plan_tiling(n, dtype, tile_length=tile, min_core_bytes=64), kernel_class=LearnerKernel)
            if run.unwritten():
                return False, (f"{n} 个 {dtype} 时有 {run.unwritten()} 个输出元素没有被写到：检查每个 tile 写回的 GM 偏移"
                               f"（progress × tileLength）与长度是否覆盖了整个 tile。")
            if not np.array_equal(run.y, np.maximum(x, 0)):
                return False, f"{n} 个 {dtype} 时结果与 numpy 不一致：检查 GM 偏移（progress × tileLength）。"
    except _Unanswered:
        return None, "函数还没有实现（仍然返回 ...）。"
    except AlignmentError:
        return False, "有一次搬出的字节数不是 32 的整数倍：DataCopy 要求整块（不满足时的结果文档没有写），尾块要换成 DataCopyPad。"
    except QueueError as err:
        return False, f"队列用法有误：{err}"
    except OutOfBoundsError:
        return False, "写出越界了：检查 GM 偏移与搬运长度。"
    return True, "整块用 DataCopy、尾块用 DataCopyPad，各种长度都与 numpy 一致。"


def pipeline_speedup() -> float:
    """The answer to question 3, computed with the model (for the check; the learner computes it themselves)."""
    from npulab.kernels.ascendc import CostModel, ReluTiling, run_relu, schedule

    cost = CostModel.from_platform_file(vector_bytes_per_cycle=PIPELINE["vector_bytes_per_cycle"])
    n, dtype, tile = PIPELINE["total_length"], PIPELINE["dtype"], PIPELINE["tile_length"]
    cycles = []
    for buffers in (1, 2):
        tiling = ReluTiling(n, 1, n, tile, dtype, buffers)
        cycles.append(schedule(run_relu(np.ones(n, dtype), tiling).trace, cost).total_cycles)
    return cycles[0] / cycles[1]


def _check_speedup(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字：单缓冲周期数 ÷ 双缓冲周期数。"
    expected = pipeline_speedup()
    if math.isclose(value, expected, rel_tol=0.01):
        return True, "双缓冲让搬入和计算重叠；收益受最忙的单元（这里是 MTE2）限制。"
    if math.isclose(value, 1 / expected, rel_tol=0.01):
        return False, "比值倒过来了：加速比 = 单缓冲的周期数 ÷ 双缓冲的周期数。"
    if math.isclose(value, 1.0, rel_tol=0.01):
        return False, "两次的周期数一样：两次运行用的 BUFFER_NUM 真的不同吗？"
    return False, "与模型的结果不符：检查 tile 长度、数据类型和代价模型的 Vector 速率是否按题目设置。"


def _check_answers(answers) -> tuple[bool, str]:
    from npulab.migrate import strategy
    if not isinstance(answers, dict):
        return False, "请给出一个字典：{问题 id: 选项 id}。"
    try:
        strategy.assess(answers)
    except strategy.StrategyError as err:
        return False, str(err)
    wrong = [q for q, expected in PROJECT.items() if answers.get(q) != expected]
    if not wrong:
        return True, "七个回答都与描述一致。"
    first = wrong[0]
    return False, f"{len(wrong)} 个回答与描述不符，先看 {first}：{_HINTS[first]}"


def _check_busbw(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（单位 GB/s）。"
    nbytes, seconds, n = 512 * 2**20, 30e-3, 8
    alg = nbytes / seconds / 1e9
    bus = alg * 2 * (n - 1) / n
    if math.isclose(value, bus, rel_tol=0.005):
        return True, "busbw = 数据量 / 时间 × 2(n−1)/n。"
    if math.isclose(value, alg, rel_tol=0.005):
        return False, "这是算法带宽 algbw；总线带宽还要乘上 AllReduce 的因子。"
    if math.isclose(value, 512e6 / seconds / 1e9 * 2 * (n - 1) / n, rel_tol=0.005):
        return False, "MiB 与 MB 不同：1 MiB = 2^20 字节。"
    if math.isclose(value, alg * 2 * n / (n - 1), rel_tol=0.005) or math.isclose(value, alg * 2, rel_tol=0.005):
        return False, "因子不对：AllReduce 的 busbw 因子是 2(n−1)/n。"
    return False, "与预期不符：先算 algbw（字节 / 秒），再乘因子，最后换算成 GB/s（10^9 字节每秒）。"


# question 6: a GPU-style softmax launch the learner checks for 910B3
TRITON_LAUNCH = {"n_rows": 8192, "n_cols": 2048, "dtype": "float16"}


def _check_launch(answer) -> tuple[bool, str]:
    from npulab.kernels import triton_launch

    try:
        rounds, programs = (int(v) for v in answer)
    except (TypeError, ValueError):
        return False, "请给出两个整数组成的元组：(按行启动时的轮数, 改写后的 grid 大小)。"
    target = triton_launch.ascend910b3_target()
    report = triton_launch.check_launch(triton_launch.softmax_launch(**TRITON_LAUNCH), target)
    cores = target.cores_for("vector")
    if rounds != report.rounds:
        if rounds == report.programs // cores:
            return False, "轮数要向上取整：最后一轮哪怕只有几个 program 也要单独下发。"
        if rounds == -(-report.programs // target.cube_cores):
            return False, "softmax 没有 tl.dot，是纯 Vector 核函数：按 Vector 核的数量算，不是 AI Core（Cube 核）。"
        return False, "轮数不对：program 数（grid 等于行数）除以物理核数，向上取整。"
    if programs == target.cube_cores:
        return False, "改写后的 grid 要等于纯 Vector 核函数可用的核数；softmax 不用 Cube。"
    if programs != cores:
        return False, "改写后的 grid 应当让每个物理核恰好一个 program，其余行在核内循环处理。"
    return True, "GPU 习惯的一行一个 program 要分很多轮下发；grid 固定为 Vector 核数、核内循环即可。"


def _check_bias_gelu(bias_gelu: Callable) -> tuple[bool | None, str]:
    import torch

    from npulab.core.device import pick_device
    from npulab.kernels import triton_kernels

    if not callable(bias_gelu):
        return False, "请给出一个函数 bias_gelu(x, bias)。"
    dev = pick_device().torch  # the device the learner's kernel was decorated for
    g = torch.Generator().manual_seed(6)
    launches = triton_kernels.CpuKernel.launches
    for rows, cols in [(1, 1), (3, 7), (5, 128), (9, 129), (16, 300)]:
        x, bias = (torch.randn(rows, cols, generator=g) * 3).to(dev), torch.randn(cols, generator=g).to(dev)
        got = bias_gelu(x, bias)
        if got is Ellipsis:
            return None, "函数还没有实现（仍然返回 ...）。"
        if not isinstance(got, torch.Tensor) or got.shape != x.shape:
            return False, f"对 {rows}×{cols} 的输入应返回同形状的张量，收到 {getattr(got, 'shape', type(got).__name__)}。"
        want = torch.nn.functional.gelu(x + bias)
        if not torch.allclose(got, want, atol=1e-5, rtol=1e-5):
            if torch.allclose(got, torch.nn.functional.gelu(x), atol=1e-5, rtol=1e-5):
                return False, "结果里没有加上偏置：每一行都要加同一个 bias（按列下标读取）。"
            if torch.allclose(got, torch.nn.functional.gelu(x + bias, approximate="tanh"), atol=1e-5, rtol=1e-5):
                return False, "这是 GELU 的 tanh 近似；题目要的是 erf 形式 0.5·v·(1 + erf(v/√2))。"
            bad = (got - want).abs()
            return False, (f"{rows}×{cols} 时有 {int((bad > 1e-5).sum())} 个元素不对：检查列掩码、行偏移"
                           f"（row × n_cols）和块宽是否覆盖整行。")
    if triton_kernels.needs_interpreter(dev) and triton_kernels.CpuKernel.launches == launches:
        return False, "结果正确，但没有启动 Triton 核函数：用 @tk.jit_for(dev) 装饰核函数，再用 kernel[grid](...) 启动。"
    return True, "融合的 bias + GELU 在各种形状上与 torch 一致：一次读、一次写。"


def _check_fullmesh(answer) -> tuple[bool | None, str]:
    if not isinstance(answer, dict) or set(answer) != {"ring", "mesh"}:
        return False, "请给出 {\"ring\": 整数, \"mesh\": 整数}（都是 α 的倍数）。"
    if Ellipsis in answer.values():
        return None, "还有一项是 ...。"
    layers, t = 32, 8
    ring, mesh = 2 * layers * 2 * (t - 1), 2 * layers * 2
    got = {k: answer[k] for k in ("ring", "mesh")}
    if got == {"ring": ring, "mesh": mesh}:
        return True, "全互联只有 reduce-scatter 与 all-gather 两步，延迟项是环形的 1/(t−1)：环形模型给出的是最坏情况。"
    if got.get("ring") == layers * 2 * (t - 1) or got.get("mesh") == layers * 2:
        return False, "每层有 2 次 AllReduce（注意力之后、前馈之后）。"
    if got.get("ring") == 2 * layers * (t - 1):
        return False, "环形 AllReduce 每次要走 2(t−1) 步：reduce-scatter 与 all-gather 各 t−1 步。"
    return False, "一步的延迟项 = 每层 AllReduce 次数 × 层数 × 每次的步数；环形每次 2(t−1) 步，全互联每次 2 步。"


def make_lab() -> Lab:
    """The checker a lab notebook uses: ``lab.check("tiling", answer)``."""
    return Lab(
        "实验 06",
        {"tiling": _check_tiling, "copy_out": _check_copy_out, "speedup": _check_speedup,
         "assessment": _check_answers, "busbw": _check_busbw, "launch": _check_launch, "bias_gelu": _check_bias_gelu,
         "fullmesh": _check_fullmesh},
    )
