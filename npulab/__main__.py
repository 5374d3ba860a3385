"""``python -m npulab <tool> ...``: the course's command-line tools."""

from __future__ import annotations

import importlib
import sys

from npulab.cli import EXIT_USAGE, ChineseArgumentParser, UsageError

# sub-command -> module; each module offers build_parser(subparsers) and run(args) -> int
TOOLS = {
    "doctor": "npulab.doctor",
    "lint-npu": "npulab.lint_npu",
    "record": "npulab.record",
    "lab-export": "npulab.labs.export",
    "bench": "npulab.bench",
    "migrate": "npulab.migrate",
    "smi": "npulab.smi",
    "strategy": "npulab.strategy",
    "llm-plan": "npulab.llm.plan_cli",
}


def make_parser() -> ChineseArgumentParser:
    parser = ChineseArgumentParser(
        prog="python -m npulab",
        description="昇腾 NPU 编程实战课程的命令行工具。",
    )
    subparsers = parser.add_subparsers(dest="tool", metavar="<tool>", parser_class=ChineseArgumentParser)
    subparsers.required = True
    for name, module_name in TOOLS.items():
        module = importlib.import_module(module_name)
        module.build_parser(subparsers, name)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
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
