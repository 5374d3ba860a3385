"""``bench compile``: one training step of the course's MLP, eager versus ``torch.compile``.

The compiled step's first call (Dynamo capture + backend compilation) is timed on its own and never enters
the steady-state median; every clock read follows a device sync (``npulab.pytorch.compile`` on top of
``npulab.core.timing``). Sizes are small on a CPU and larger on an accelerator, printed either way.
"""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import dataclass

from npulab.core.i18n import t

CPU_SIZE = {"dim": 256, "hidden": 1024, "depth": 2, "batch": 64}
ACCELERATOR_SIZE = {"dim": 1024, "hidden": 4096, "depth": 4, "batch": 256}
BACKENDS = ("inductor", "aot_eager", "eager", "npugraphs", "npugraph_ex")
# registered by torch_npu 2.12.0 itself (torch_npu/utils/_graph_tree.py, torch_npu/dynamo/__init__.py)
NPU_ONLY_BACKENDS = ("npugraphs", "npugraph_ex")


@dataclass(frozen=True)
class BackendChoice:
    """The ``torch.compile`` backend picked for a device, and why (Chinese, printed by the lesson and the tool)."""

    backend: str
    reason: str

    def __str__(self) -> str:
        return f"{self.backend}：{self.reason}"


def choose_backend(device) -> BackendChoice:
    """inductor where it can generate code on this device, else aot_eager (capture only, no code generation).

    - CPU: inductor writes and compiles C++, so it needs ``g++`` or ``c++``.
    - CUDA: inductor generates Triton kernels; community ``triton`` is what it needs.
    - NPU: torch_npu 2.12's inductor generates Triton-Ascend kernels; community ``triton`` is not enough (it has no
      ``triton.language.extra.cann`` / ``…extra.ascend`` and no Ascend backend), so only an importable Triton-Ascend
      counts (``npulab.env.triton_ascend``).
    """
    if device.kind == "cpu":
        compiler = shutil.which("g++") or shutil.which("c++")
        if compiler:
            return BackendChoice("inductor", t("bench.backend_cpu_cxx", compiler=compiler))
        return BackendChoice("aot_eager", t("bench.backend_cpu_no_cxx"))
    if device.kind == "npu":
        from npulab.env.triton_ascend import probe

        status = probe()
        if status.importable:
            return BackendChoice("inductor", t("bench.backend_npu_triton", status=status.describe()))
        failure = t("bench.backend_npu_community") if status.community_only else t("bench.backend_npu_none")
        return BackendChoice("aot_eager", t("bench.backend_npu_fallback", status=status.describe(), failure=failure))
    if importlib.util.find_spec("triton") is not None:
        return BackendChoice("inductor", t("bench.backend_triton", kind=device.kind))
    return BackendChoice("aot_eager", t("bench.backend_no_triton", kind=device.kind))


def run_compile(device, *, dim: int, hidden: int, depth: int, batch: int, backend: str = "inductor",
                warmup: int = 2, repeats: int = 10, seed: int = 0):
    """Eager versus compiled training step (Adam, MSE loss) of ``mlp_model(dim, hidden, depth)`` on ``device``."""
    import torch

    from npulab.pytorch.compile import compare_compile, mlp_model

    torch.manual_seed(seed)
    model = mlp_model(dim, hidden, depth).to(device.torch)
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, dim, generator=generator).to(device.torch)
    target = torch.randn(batch, dim, generator=generator).to(device.torch)
    return compare_compile(model, x, target, device, backend=backend, warmup=warmup, repeats=repeats)


def as_json(device, size: dict, result, repeats: int) -> dict:
    """The JSON document of ``bench compile --json`` (same shape as the other benchmarks: device, repeats, results)."""
    rows = []
    for mode, run in (("eager", result.eager), ("compiled", result.compiled)):
        rows.append({"mode": mode, "first_call_ms": run.first_s * 1e3, "median_ms": run.steady.median * 1e3,
                     "spread": run.steady.spread})
    return {"device": str(device), "repeats": repeats, "backend": result.backend, "size": size, "results": rows,
            "compile_ms": result.compile_time * 1e3, "speedup": result.speedup,
            "break_even_steps": result.break_even_steps}


def add_arguments(parser) -> None:
    parser.add_argument("--backend", default="", choices=["", *BACKENDS],
                        help="torch.compile 后端（默认按设备选：能生成代码时 inductor，否则 aot_eager，并打印原因；"
                             "npugraphs、npugraph_ex 只在 NPU 上可用）")
    for name in ("dim", "hidden", "depth", "batch"):
        parser.add_argument(f"--{name}", type=int, default=0,
                            help=f"MLP 的 {name}（默认：CPU {CPU_SIZE[name]}，加速器 {ACCELERATOR_SIZE[name]}）")
    parser.add_argument("--repeats", type=int, default=10, help="稳态计时重复次数（取中位数）")


def run(args) -> int:
    import json

    from npulab.core.cli import UsageError
    from npulab.core.device import by_device, pick_device

    if args.repeats < 1:
        raise UsageError(t("bench.repeats_usage"))
    device = pick_device(args.device or None)
    size = dict(by_device(device, cpu=CPU_SIZE, accelerator=ACCELERATOR_SIZE))
    for name in size:
        value = getattr(args, name)
        if value < 0:
            raise UsageError(t("bench.positive_option", name=name, value=value))
        if value:
            size[name] = value
    if args.backend in NPU_ONLY_BACKENDS and device.kind != "npu":
        raise UsageError(t("bench.npu_only_backend", backend=args.backend, device=device))
    choice = BackendChoice(args.backend, t("bench.backend_given")) if args.backend else choose_backend(device)
    backend = choice.backend
    result = run_compile(device, backend=backend, repeats=args.repeats, **size)
    if args.json:
        print(json.dumps({**as_json(device, size, result, args.repeats), "backend_reason": choice.reason},
                         ensure_ascii=False, indent=2))
        return 0
    print(t("bench.compile_head", device=device, dim=size["dim"], hidden=size["hidden"], depth=size["depth"],
            batch=size["batch"], backend=backend, repeats=args.repeats))
    print(t("bench.compile_reason", reason=choice.reason))
    for name, run_ in (("eager", result.eager), ("compiled", result.compiled)):
        print(t("bench.compile_row", name=f"{name:>8}", first=f"{run_.first_s * 1e3:10.1f}",
                median=f"{run_.steady.median * 1e3:9.3f}", spread=f"{run_.steady.spread:.0%}"))
    print(t("bench.compile_time", ms=f"{result.compile_time * 1e3:.1f}", speedup=f"{result.speedup:.2f}"))
    steps = result.break_even_steps
    print(t("bench.break_even", steps=f"{steps:,.0f}") if steps is not None else t("bench.break_even_none"))
    print(t("bench.verdict", text=result.verdict().text))
    return 0
