"""Checks of lab 03 (migrating CUDA code, mixed precision, measuring training, torch.compile and memory)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from npulab.core.i18n import t
from npulab.course.labs import Lab

# the lines of question 1; the truth comes from the analyzer itself
SEVERITY_LINES = {
    "a": "torch.cuda.synchronize()",
    "b": "torch.backends.cudnn.benchmark = True",
    "c": "from flash_attn import flash_attn_func",
    "d": 'device = torch.device("cuda:1")',
    "e": 'os.environ["NCCL_DEBUG"] = "INFO"',
    "f": "import bitsandbytes as bnb",
}
SEVERITIES = ("auto", "manual", "blocker")


def expected_severity(line: str) -> str:
    """The most severe finding of one line, as ``npulab.migrate`` reports it (``import torch_npu`` aside)."""
    from npulab.migrate import scan_source

    order = {s: i for i, s in enumerate(SEVERITIES)}
    found = [f.severity for f in scan_source(f"import os\nimport torch\n{line}\n").findings if f.rule != "import-torch-npu"]
    return max(found, key=order.__getitem__)


def _check_severity(answer) -> tuple[bool | None, str]:
    if not isinstance(answer, dict) or set(answer) != set(SEVERITY_LINES):
        return False, t("lab03.severity.type", keys=t("lab03.sep").join(SEVERITY_LINES))
    todo = [k for k, v in answer.items() if v is Ellipsis]
    if todo:
        return None, t("lab03.severity.todo", lines=t("lab03.sep").join(todo))
    bad = [k for k, v in answer.items() if v not in SEVERITIES]
    if bad:
        return False, t("lab03.severity.bad", lines=t("lab03.sep").join(bad))
    wrong = [k for k in SEVERITY_LINES if answer[k] != expected_severity(SEVERITY_LINES[k])]
    if not wrong:
        return True, t("lab03.severity.right")
    hints = {"a": t("lab03.severity.hint_a"), "b": t("lab03.severity.hint_b"),
             "c": t("lab03.severity.hint_c"), "d": t("lab03.severity.hint_d"),
             "e": t("lab03.severity.hint_e"), "f": t("lab03.severity.hint_f")}
    return False, t("lab03.severity.wrong", count=len(wrong),
                    hints=t("lab03.hint_sep").join(t("lab03.severity.hint", line=k, hint=hints[k]) for k in wrong))


def _check_backend(pick_backend) -> tuple[bool | None, str]:
    if not callable(pick_backend):
        return False, t("lab03.need_function")
    expected = {"cuda": "nccl", "npu": "hccl", "cpu": "gloo"}
    got = {kind: pick_backend(kind) for kind in expected}
    if all(v is Ellipsis for v in got.values()):
        return None, t("lab03.stub")
    wrong = [kind for kind in expected if got[kind] != expected[kind]]
    if not wrong:
        return True, t("lab03.backend.right")
    if got.get("npu") == "nccl":
        return False, t("lab03.backend.nccl")
    return False, t("lab03.backend.wrong", devices=t("lab03.sep").join(wrong))


def _real_scales(overflows: list[bool], init_scale: float, growth_interval: int) -> list[float]:
    from npulab.core.device import Device
    from npulab.pytorch.train import gradscaler_demo

    rows = gradscaler_demo(Device("cpu", "lab"), steps=len(overflows),
                           overflow_at=tuple(i for i, o in enumerate(overflows) if o),
                           init_scale=init_scale, growth_interval=growth_interval)
    return [r.scale_after for r in rows]


SCALER_CASES = [([False, True, True, True, False, False, False, False], 65536.0, 3),
                ([True, False, False, True, False, False, False], 1024.0, 2),
                ([False] * 7, 8.0, 3)]


def _check_scales(predict_scales: Callable) -> tuple[bool | None, str]:
    if not callable(predict_scales):
        return False, t("lab03.need_function")
    for overflows, init, interval in SCALER_CASES:
        got = predict_scales(overflows, init, interval)
        if got is Ellipsis:
            return None, t("lab03.stub")
        real = _real_scales(overflows, init, interval)
        if not isinstance(got, (list, tuple)) or len(got) != len(real):
            return False, t("lab03.scales.length", count=len(real))
        if [float(g) for g in got] != real:
            first = next(i for i, (g, r) in enumerate(zip(got, real, strict=True)) if float(g) != r)
            why = t("lab03.scales.overflow_step") if overflows[first] else t("lab03.scales.clean_step")
            return False, t("lab03.scales.wrong", first=first, why=why)
    return True, t("lab03.scales.right")


@functools.lru_cache(maxsize=1)
def _expected_mfu() -> float:
    from npulab.hw.roofline import peak_910b3
    from npulab.pytorch.resnet import forward_flop_per_image

    return 100 * 1254 * 3 * forward_flop_per_image(224) / (peak_910b3().value * 1e12)


def _check_mfu(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab03.mfu.type")
    expected = _expected_mfu()
    if math.isclose(value, expected, rel_tol=0.02):
        return True, t("lab03.mfu.right")
    if math.isclose(value, expected / 100, rel_tol=0.02):
        return False, t("lab03.mfu.ratio")
    if math.isclose(value, expected / 3, rel_tol=0.02):
        return False, t("lab03.mfu.forward_only")
    if math.isclose(value, expected / 2, rel_tol=0.02) or math.isclose(value, expected * 2, rel_tol=0.02):
        return False, t("lab03.mfu.factor_two")
    return False, t("lab03.mfu.other")


def _check_bn(answer) -> tuple[bool, str]:
    if not isinstance(answer, bool):
        return False, t("lab03.bn.type", type=type(answer).__name__)
    if answer:
        return True, t("lab03.bn.right")
    return False, t("lab03.bn.wrong")


RECOMPILE_SIZES = (4, 4, 6, 10, 6)  # batch sizes of question 6, in call order


@functools.lru_cache(maxsize=1)
def expected_recompiles() -> dict[str, tuple[int, ...]]:
    """Cumulative compilations after each call, counted live by ``npulab.pytorch.compile.count_compilations``."""
    import torch

    from npulab.pytorch.compile import MLPBlock, count_compilations

    block = MLPBlock(16, 32)
    return {"default": count_compilations(block, [torch.randn(n, 16) for n in RECOMPILE_SIZES]).graphs_after,
            "static": count_compilations(block, [torch.randn(n, 16) for n in RECOMPILE_SIZES], dynamic=False).graphs_after}


def _check_recompiles(answer) -> tuple[bool | None, str]:
    if not isinstance(answer, dict) or set(answer) != {"default", "static"}:
        return False, t("lab03.recompiles.type")
    if any(v is Ellipsis for v in answer.values()):
        return None, t("lab03.recompiles.todo")
    got = {k: tuple(v) if isinstance(v, (list, tuple)) else v for k, v in answer.items()}
    if any(not isinstance(v, tuple) or len(v) != len(RECOMPILE_SIZES) for v in got.values()):
        return False, t("lab03.recompiles.length", count=len(RECOMPILE_SIZES))
    truth = expected_recompiles()
    if got == truth:
        return True, t("lab03.recompiles.right")
    hints = []
    if got["default"] != truth["default"]:
        hints.append(t("lab03.recompiles.default")
                     if got["default"] != truth["static"] else t("lab03.recompiles.default_like_static"))
    if got["static"] != truth["static"]:
        hints.append(t("lab03.recompiles.static"))
    return False, t("lab03.hint_sep").join(hints)


MEMORY_CASE = {"dim": 512, "hidden": 2048, "depth": 3, "batch": 32}  # question 7: fp32, Adam


def _check_memory(answer) -> tuple[bool | None, str]:
    from npulab.pytorch.compile import mlp_step_memory

    if answer is Ellipsis:
        return None, t("lab03.memory.todo")
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab03.memory.type")
    m = mlp_step_memory(**MEMORY_CASE, optimizer="adam")
    close = lambda target: math.isclose(value, target, rel_tol=0.005)  # noqa: E731  (the Adam step counters may be left out)
    if close(m.total):
        return True, t("lab03.memory.right")
    if close(m.total / 2**20) or close(m.total / 1e6):
        return False, t("lab03.memory.unit")
    if close(m.total - m.optimizer_state):
        return False, t("lab03.memory.no_optimizer")
    if close(m.total - m.gradients):  # the same number as Adam with one state (each is one copy of the weights)
        return False, t("lab03.memory.one_copy_short")
    if close(m.total - m.activations):
        return False, t("lab03.memory.no_activations")
    return False, t("lab03.memory.other")


HOST_CASE = {"per_op_us": 25.0, "ops": 1200, "device_ms": 12.0}  # question 8's (made-up) measurements


def _check_host_bound(answer) -> tuple[bool | None, str]:
    if not isinstance(answer, dict) or set(answer) != {"host_ms", "host_bound"}:
        return False, t("lab03.host_bound.type")
    if answer["host_ms"] is Ellipsis or answer["host_bound"] is Ellipsis:
        return None, t("lab03.host_bound.todo")
    host = HOST_CASE["per_op_us"] * HOST_CASE["ops"] / 1e3
    try:
        value = float(answer["host_ms"])
    except (TypeError, ValueError):
        return False, t("lab03.host_bound.ms_type")
    if math.isclose(value, host * 1e3, rel_tol=1e-6) or math.isclose(value, host / 1e3, rel_tol=1e-6):
        return False, t("lab03.host_bound.unit")
    if not math.isclose(value, host, rel_tol=1e-6):
        return False, t("lab03.host_bound.host_ms")
    if answer["host_bound"] is not (host > HOST_CASE["device_ms"]):
        return False, t("lab03.host_bound.bound")
    return True, t("lab03.host_bound.right")


def make_lab() -> Lab:
    """The checker object of lab 03: ``lab.check("severity", answer)``."""
    return Lab(t("lab03.title"), {"severity": _check_severity, "backend": _check_backend, "scales": _check_scales,
                          "mfu": _check_mfu, "bn": _check_bn, "recompiles": _check_recompiles,
                          "memory": _check_memory, "host_bound": _check_host_bound})
