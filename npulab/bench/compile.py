"""``bench compile``: one training step of the course's MLP, eager versus ``torch.compile``.

The compiled step's first call (Dynamo capture + backend compilation) is timed on its own and never enters
the steady-state median; every clock read follows a device sync (``npulab.pytorch.compile`` on top of
``npulab.core.timing``). Sizes are small on a CPU and larger on an accelerator, printed either way.
"""

from __future__ import annotations

import importlib.util
import shutil

CPU_SIZE = {"dim": 256, "hidden": 1024, "depth": 2, "batch": 64}
ACCELERATOR_SIZE = {"dim": 1024, "hidden": 4096, "depth": 4, "batch": 256}
BACKENDS = ("inductor", "aot_eager", "eager")


def default_backend(device) -> str:
    """inductor where it can generate code, else aot_eager (capture only, no code generation).

    On a CPU inductor writes and compiles C++ (needs ``g++``); on a GPU or an NPU it generates Triton kernels, which
    needs the ``triton`` package (on the NPU the Triton-Ascend build that matches torch_npu).
    """
    if device.kind == "cpu":
        return "inductor" if shutil.which("g++") or shutil.which("c++") else "aot_eager"
    return "inductor" if importlib.util.find_spec("triton") is not None else "aot_eager"


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
                        help="torch.compile 后端（默认 inductor；CPU 上没有 C++ 编译器、加速器上没有 triton 时用 aot_eager）")
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
    backend = args.backend or default_backend(device)
    result = run_compile(device, backend=backend, repeats=args.repeats, **size)
    if args.json:
        print(json.dumps(as_json(device, size, result, args.repeats), ensure_ascii=False, indent=2))
        return 0
    print(f"设备：{device}；MLP dim {size['dim']}、hidden {size['hidden']}、{size['depth']} 层，batch {size['batch']}；"
          f"后端 {backend}（第一步单独计时；稳态重复 {args.repeats} 次取中位数，读时钟前同步设备）")
    for name, run_ in (("eager", result.eager), ("compiled", result.compiled)):
        print(f"  {name:>8}: 第一步 {run_.first_s * 1e3:10.1f} ms   稳态中位数 {run_.steady.median * 1e3:9.3f} ms"
              f"（离散度 {run_.steady.spread:.0%}）")
    print(f"  编译耗时（推导：第一步 − 稳态中位数）：{result.compile_time * 1e3:.1f} ms；稳态加速比 {result.speedup:.2f}×")
    steps = result.break_even_steps
    print(f"  回本步数：{steps:,.0f}" if steps is not None else "  回本步数：不计算（见下一行的判定）")
    print(f"  判定：{result.verdict().text}")
    return 0
