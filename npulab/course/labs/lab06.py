"""Checks of lab 06 (Ascend C tiling and pipeline, migration assessment, collective bandwidth, Triton kernels)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from npulab.core.i18n import t
from npulab.course.labs import Lab

# question 3: the pipeline the learner times (one core, 32 tiles of 2048 float32, a heavier Vector unit)
PIPELINE = {"total_length": 32 * 2048, "dtype": "float32", "tile_length": 2048, "vector_bytes_per_cycle": 64}
# question 4: the project the learner assesses, and the answers its description implies
PROJECT = {"framework": "hf", "kernels": "triton", "compile": "eager", "libraries": "replaceable",
           "distributed": "ddp", "stage": "stable", "latency": "normal"}


def _hints() -> dict[str, str]:
    """What to reread in the project's description, per question of the assessment."""
    return {
        "framework": t("lab06.assessment.hint_framework"),
        "kernels": t("lab06.assessment.hint_kernels"),
        "compile": t("lab06.assessment.hint_compile"),
        "libraries": t("lab06.assessment.hint_libraries"),
        "distributed": t("lab06.assessment.hint_distributed"),
        "stage": t("lab06.assessment.hint_stage"),
        "latency": t("lab06.assessment.hint_latency"),
    }


def _check_tiling(answer) -> tuple[bool, str]:
    from npulab.kernels.ascendc import plan_tiling

    try:
        block_dim, block_length, tile_length = (int(v) for v in answer)
    except (TypeError, ValueError):
        return False, t("lab06.tiling.type")
    expected = plan_tiling(1_000_000, "float16")
    if (block_dim, block_length, tile_length) == (expected.block_dim, expected.block_length, expected.tile_length):
        return True, t("lab06.tiling.right")
    if block_dim != expected.block_dim:
        return False, t("lab06.tiling.block_dim")
    if (block_length * 2) % 32:
        return False, t("lab06.tiling.alignment")
    if block_length != expected.block_length:
        return False, t("lab06.tiling.block_length")
    if tile_length in (2 * expected.tile_length, 4 * expected.tile_length):
        return False, t("lab06.tiling.too_big")
    return False, t("lab06.tiling.tile_length")


class _Unanswered(Exception):
    pass


def _check_copy_out(copy_out: Callable) -> tuple[bool | None, str]:
    from npulab.kernels.ascendc import AlignmentError, OutOfBoundsError, QueueError, plan_tiling, run_relu
    from npulab.kernels.ascendc.emulator import KernelReluCustom

    if not callable(copy_out):
        return False, t("lab06.copy_out.type")

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
                return False, t("lab06.copy_out.unwritten", n=n, dtype=dtype, count=run.unwritten())
            if not np.array_equal(run.y, np.maximum(x, 0)):
                return False, t("lab06.copy_out.mismatch", n=n, dtype=dtype)
    except _Unanswered:
        return None, t("lab06.stub")
    except AlignmentError:
        return False, t("lab06.copy_out.alignment")
    except QueueError as err:
        return False, t("lab06.copy_out.queue", err=err)
    except OutOfBoundsError:
        return False, t("lab06.copy_out.out_of_bounds")
    return True, t("lab06.copy_out.right")


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
        return False, t("lab06.speedup.type")
    expected = pipeline_speedup()
    if math.isclose(value, expected, rel_tol=0.01):
        return True, t("lab06.speedup.right")
    if math.isclose(value, 1 / expected, rel_tol=0.01):
        return False, t("lab06.speedup.inverted")
    if math.isclose(value, 1.0, rel_tol=0.01):
        return False, t("lab06.speedup.same")
    return False, t("lab06.speedup.other")


def _check_answers(answers) -> tuple[bool, str]:
    from npulab.migrate import strategy
    if not isinstance(answers, dict):
        return False, t("lab06.assessment.type")
    try:
        strategy.assess(answers)
    except strategy.StrategyError as err:
        return False, str(err)
    wrong = [q for q, expected in PROJECT.items() if answers.get(q) != expected]
    if not wrong:
        return True, t("lab06.assessment.right")
    first = wrong[0]
    return False, t("lab06.assessment.wrong", count=len(wrong), first=first, hint=_hints()[first])


def _check_busbw(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab06.busbw.type")
    nbytes, seconds, n = 512 * 2**20, 30e-3, 8
    alg = nbytes / seconds / 1e9
    bus = alg * 2 * (n - 1) / n
    if math.isclose(value, bus, rel_tol=0.005):
        return True, t("lab06.busbw.right")
    if math.isclose(value, alg, rel_tol=0.005):
        return False, t("lab06.busbw.algbw")
    if math.isclose(value, 512e6 / seconds / 1e9 * 2 * (n - 1) / n, rel_tol=0.005):
        return False, t("lab06.busbw.mib")
    if math.isclose(value, alg * 2 * n / (n - 1), rel_tol=0.005) or math.isclose(value, alg * 2, rel_tol=0.005):
        return False, t("lab06.busbw.factor")
    return False, t("lab06.busbw.other")


# question 6: a GPU-style softmax launch the learner checks for 910B3
TRITON_LAUNCH = {"n_rows": 8192, "n_cols": 2048, "dtype": "float16"}


def _check_launch(answer) -> tuple[bool, str]:
    from npulab.kernels import triton_launch

    try:
        rounds, programs = (int(v) for v in answer)
    except (TypeError, ValueError):
        return False, t("lab06.launch.type")
    target = triton_launch.ascend910b3_target()
    report = triton_launch.check_launch(triton_launch.softmax_launch(**TRITON_LAUNCH), target)
    cores = target.cores_for("vector")
    if rounds != report.rounds:
        if rounds == report.programs // cores:
            return False, t("lab06.launch.round_up")
        if rounds == -(-report.programs // target.cube_cores):
            return False, t("lab06.launch.cube_cores")
        return False, t("lab06.launch.rounds")
    if programs == target.cube_cores:
        return False, t("lab06.launch.grid_cube")
    if programs != cores:
        return False, t("lab06.launch.grid")
    return True, t("lab06.launch.right")


def _check_bias_gelu(bias_gelu: Callable) -> tuple[bool | None, str]:
    import torch

    from npulab.core.device import pick_device
    from npulab.kernels import triton_kernels

    if not callable(bias_gelu):
        return False, t("lab06.bias_gelu.type")
    dev = pick_device().torch  # the device the learner's kernel was decorated for
    g = torch.Generator().manual_seed(6)
    launches = triton_kernels.CpuKernel.launches
    for rows, cols in [(1, 1), (3, 7), (5, 128), (9, 129), (16, 300)]:
        x, bias = (torch.randn(rows, cols, generator=g) * 3).to(dev), torch.randn(cols, generator=g).to(dev)
        got = bias_gelu(x, bias)
        if got is Ellipsis:
            return None, t("lab06.stub")
        if not isinstance(got, torch.Tensor) or got.shape != x.shape:
            return False, t("lab06.bias_gelu.shape", rows=rows, cols=cols, got=getattr(got, 'shape', type(got).__name__))
        want = torch.nn.functional.gelu(x + bias)
        if not torch.allclose(got, want, atol=1e-5, rtol=1e-5):
            if torch.allclose(got, torch.nn.functional.gelu(x), atol=1e-5, rtol=1e-5):
                return False, t("lab06.bias_gelu.no_bias")
            if torch.allclose(got, torch.nn.functional.gelu(x + bias, approximate="tanh"), atol=1e-5, rtol=1e-5):
                return False, t("lab06.bias_gelu.tanh")
            bad = (got - want).abs()
            return False, t("lab06.bias_gelu.wrong", rows=rows, cols=cols, count=int((bad > 1e-5).sum()))
    if triton_kernels.needs_interpreter(dev) and triton_kernels.CpuKernel.launches == launches:
        return False, t("lab06.bias_gelu.no_kernel")
    return True, t("lab06.bias_gelu.right")


def _check_fullmesh(answer) -> tuple[bool | None, str]:
    if not isinstance(answer, dict) or set(answer) != {"ring", "mesh"}:
        return False, t("lab06.fullmesh.type")
    if Ellipsis in answer.values():
        return None, t("lab06.fullmesh.todo")
    layers, tp = 32, 8
    ring, mesh = 2 * layers * 2 * (tp - 1), 2 * layers * 2
    got = {k: answer[k] for k in ("ring", "mesh")}
    if got == {"ring": ring, "mesh": mesh}:
        return True, t("lab06.fullmesh.right")
    # half the ring's term comes from either slip (one AllReduce per layer, or t−1 steps per AllReduce); the mesh
    # answer tells which: half the mesh's term too means the AllReduces per layer were miscounted
    if got.get("mesh") == layers * 2:
        return False, t("lab06.fullmesh.per_layer")
    if got.get("ring") == ring // 2:
        return False, t("lab06.fullmesh.ring_steps")
    return False, t("lab06.fullmesh.other")


def make_lab() -> Lab:
    """The checker a lab notebook uses: ``lab.check("tiling", answer)``."""
    return Lab(
        t("lab06.title"),
        {"tiling": _check_tiling, "copy_out": _check_copy_out, "speedup": _check_speedup,
         "assessment": _check_answers, "busbw": _check_busbw, "launch": _check_launch, "bias_gelu": _check_bias_gelu,
         "fullmesh": _check_fullmesh},
    )
