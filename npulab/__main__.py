"""``python -m npulab <tool> ...``: the course's command-line tools.

Only the tool that is asked for is imported, so a tool whose dependencies are missing or broken never stops
another one (``doctor`` must work on exactly the machines where something is broken).
"""

from __future__ import annotations

import importlib
import sys

from npulab.core.cli import EXIT_FAIL, EXIT_USAGE, ChineseArgumentParser, UsageError

# sub-command -> (module, one-line Chinese help); each module offers build_parser(subparsers, name) and run(args) -> int
TOOLS = {
    "doctor": ("npulab.env.doctor", "诊断 Python、框架、CANN、驱动与设备"),
    "explain": ("npulab.env.explain", "读昇腾报错日志：说明出了什么错、为什么、怎样修"),
    "llm-plan": ("npulab.llm.plan_cli", "大模型部署规划：权重、KV cache 与保留量对照卡的 HBM，给出最大 batch × 上下文与卡数"),
    "lint-npu": ("npulab.lint.command", "对照发布的 torch_npu、torch、MindSpore 等安装包静态检查 NPU 单元"),
    "record": ("npulab.course.record", "在昇腾主机上录制 NPU 单元的输出"),
    "lab-export": ("npulab.course.labs.export", "由参考答案生成练习笔记本"),
    "bench": ("npulab.bench", "预热、同步、重复、取中位数的基准测试"),
    "migrate": ("npulab.migrate", "找出 CUDA 专用写法并给出 NPU 改法"),
    "smi": ("npulab.ascend_tools.smi", "解析 npu-smi 输出；在昇腾主机上采样与收集诊断信息"),
    "strategy": ("npulab.migrate.strategy", "GPU→NPU 迁移决策"),
    "workshop": ("npulab.workshop.cli", "工作坊：开课前逐座位检查（preflight）与由实测时间生成议程（times）"),
    "trace": ("npulab.ascend_tools.trace_cli", "读 torch.profiler 轨迹或 ASCEND_PROFILER_OUTPUT：热点算子、设备空闲、CPU 回退"),
    "chips": ("npulab.hw.chips_cli", "昇腾芯片对照表：核数、频率、内存、缓冲、峰值与出处（910B1–B4、A3、310P3、310B、950、910A）"),
    "triton-launch": ("npulab.kernels.triton_launch", "检查 Triton 核函数在昇腾芯片上的启动配置（grid、块大小、UB）"),
    "versions": ("npulab.env.versions_cli", "由芯片、驱动与 CANN 版本查该装的 PyTorch、torch_npu、MindSpore 版本与安装命令"),
    "freshness": ("npulab.env.freshness", "对照 PyPI：课程钉住或提到的包是否已有更新的发布"),
    "edition": ("npulab.course.edition", "英文版：由中文笔记本同步代码单元，检查两版是否一致（sync / check）"),
    "kernelspec": ("npulab.env.kernelspec", "为一个软件栈写 Jupyter 内核：启动时先 source 该栈自己的 CANN set_env.sh"),
}


def _requested_tool(argv: list[str]) -> str | None:
    return next((arg for arg in argv if not arg.startswith("-")), None)


def make_parser(argv: list[str] | None = None) -> ChineseArgumentParser:
    """The parser; only the requested tool's module is imported (all of them for ``--help`` listings in tests)."""
    parser = ChineseArgumentParser(prog="python -m npulab", description="昇腾 NPU 编程实战课程的命令行工具。")
    subparsers = parser.add_subparsers(dest="tool", metavar="<tool>", parser_class=ChineseArgumentParser)
    subparsers.required = True
    wanted = None if argv is None else _requested_tool(argv)
    for name, (module_name, help_text) in TOOLS.items():
        if name == wanted:
            importlib.import_module(module_name).build_parser(subparsers, name)
        else:
            subparsers.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = make_parser(argv).parse_args(argv)
    except ImportError as err:
        tool = _requested_tool(argv)
        print(f"错误：工具 {tool} 无法加载（{type(err).__name__}: {err}）。其他工具不受影响；"
              f"先运行 python -m npulab doctor 检查环境。", file=sys.stderr)
        return EXIT_FAIL
    try:
        return int(args.run(args))
    except UsageError as err:
        print(f"错误：{err}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("已中断。", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
