"""``bench compile``: one training step of the course's MLP, eager versus ``torch.compile``.

The compiled step's first call (Dynamo capture + backend compilation) is timed on its own and never enters
the steady-state median; every clock read follows a device sync (``npulab.pytorch.compile`` on top of
``npulab.core.timing``). Sizes are small on a CPU and larger on an accelerator, printed either way.
"""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import dataclass

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
            return BackendChoice("inductor", f"CPU 上 inductor 生成并编译 C++ 代码，本机有 C++ 编译器 {compiler}")
        return BackendChoice("aot_eager", "CPU 上 inductor 要编译 C++，本机找不到 g++/c++，改用只捕获计算图、不生成代码的 aot_eager")
    if device.kind == "npu":
        from npulab.env.triton_ascend import probe

        status = probe()
        if status.importable:
            return BackendChoice("inductor", f"NPU 上 torch_npu 的 inductor 经 Triton-Ascend 生成融合算子；{status.describe()}")
        failure = ("inductor 第一步就会报 No module named 'triton.language.extra.ascend'" if status.community_only else
                   "inductor 在 NPU 上没有代码生成后端，第一步就会失败（torch 报 Unsupported device type: npu 或找不到可用的 triton）")
        return BackendChoice(
            "aot_eager",
            f"NPU 上 torch_npu 的 inductor 生成的代码要导入 Triton-Ascend，本环境{status.describe()}，{failure}；"
            "改用只捕获计算图、不生成代码的 aot_eager（torch_npu 注册的 npugraphs 后端只做图捕获与重放、不需要 Triton，可用 python -m npulab bench compile --backend npugraphs 试）")
    if importlib.util.find_spec("triton") is not None:
        return BackendChoice("inductor", f"{device.kind} 上 inductor 生成 Triton 核函数，本环境装有 triton")
    return BackendChoice("aot_eager", f"{device.kind} 上 inductor 要用 triton，本环境没有，改用只捕获计算图、不生成代码的 aot_eager")


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
        raise UsageError("--repeats 须 ≥ 1")
    device = pick_device(args.device or None)
    size = dict(by_device(device, cpu=CPU_SIZE, accelerator=ACCELERATOR_SIZE))
    for name in size:
        value = getattr(args, name)
        if value < 0:
            raise UsageError(f"--{name} 须为正整数，收到 {value}")
        if value:
            size[name] = value
    if args.backend in NPU_ONLY_BACKENDS and device.kind != "npu":
        raise UsageError(f"--backend {args.backend} 由 torch_npu 注册，只能在 NPU 上用（当前设备 {device}）")
    choice = BackendChoice(args.backend, "命令行指定") if args.backend else choose_backend(device)
    backend = choice.backend
    result = run_compile(device, backend=backend, repeats=args.repeats, **size)
    if args.json:
        print(json.dumps({**as_json(device, size, result, args.repeats), "backend_reason": choice.reason},
                         ensure_ascii=False, indent=2))
        return 0
    print(f"设备：{device}；MLP dim {size['dim']}、hidden {size['hidden']}、{size['depth']} 层，batch {size['batch']}；"
          f"后端 {backend}（第一步单独计时；稳态重复 {args.repeats} 次取中位数，读时钟前同步设备）")
    print(f"  选这个后端的原因：{choice.reason}")
    for name, run_ in (("eager", result.eager), ("compiled", result.compiled)):
        print(f"  {name:>8}: 第一步 {run_.first_s * 1e3:10.1f} ms   稳态中位数 {run_.steady.median * 1e3:9.3f} ms"
              f"（离散度 {run_.steady.spread:.0%}）")
    print(f"  编译耗时（推导：第一步 − 稳态中位数）：{result.compile_time * 1e3:.1f} ms；稳态加速比 {result.speedup:.2f}×")
    steps = result.break_even_steps
    print(f"  回本步数：{steps:.0f}" if steps is not None else "  回本步数：无（编译后的稳态不比 eager 快）")
    return 0
