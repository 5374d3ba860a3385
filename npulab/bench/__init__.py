"""``python -m npulab bench <benchmark> ...``: the course's benchmarks behind one command.

Each benchmark module offers ``add_arguments(parser)`` (its own options; ``--device`` and ``--json``
are added here for all) and ``run(args) -> int``, and follows the
method of ``npulab.core.timing``: warm-up, device synchronisation before reading the clock, repeats,
median. Add a benchmark by adding its module to ``BENCHMARKS``.
"""

from __future__ import annotations

import importlib
import importlib.util

from npulab.core.i18n import t

# name -> (module, one-line Chinese help)
BENCHMARKS = {
    "matmul": ("npulab.bench.matmul", "矩阵乘法吞吐（按数据类型与尺寸扫描）"),
    "bandwidth": ("npulab.bench.bandwidth", "设备内拷贝与主机↔设备带宽（尺寸扫描）"),
    "resnet50": ("npulab.bench.resnet50", "ResNet-50 训练吞吐（FP32 / AMP）"),
    "allreduce": ("npulab.bench.allreduce", "AllReduce 算法带宽与总线带宽"),
    "compile": ("npulab.bench.compile", "训练步：eager 与 torch.compile 的编译耗时和稳态步时"),
}


def available() -> dict[str, tuple[str, str]]:
    """Benchmarks whose module exists (a benchmark is listed once its module is written)."""
    return {name: spec for name, spec in BENCHMARKS.items() if importlib.util.find_spec(spec[0]) is not None}


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help=t(f"cli.tool.{name}"), description="预热、同步、重复、取中位数的基准测试。")
    benches = parser.add_subparsers(dest="benchmark", metavar="<benchmark>", parser_class=type(parser))
    benches.required = True
    for bench_name, (module_name, help_text) in available().items():
        module = importlib.import_module(module_name)
        sub = benches.add_parser(bench_name, help=help_text, description=help_text)
        module.add_arguments(sub)
        sub.add_argument("--device", default="", choices=["", "cpu", "cuda", "npu"], help="指定设备（默认自动选择）")
        sub.add_argument("--json", action="store_true", help="输出 JSON")
        sub.set_defaults(run=module.run)
