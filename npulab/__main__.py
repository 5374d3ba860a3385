"""``python -m npulab <tool> ...``: the course's command-line tools.

Only the tool that is asked for is imported, so a tool whose dependencies are missing or broken never stops
another one (``doctor`` must work on exactly the machines where something is broken).
"""

from __future__ import annotations

import importlib
import sys

from npulab.core.cli import EXIT_FAIL, EXIT_USAGE, CourseArgumentParser, UsageError
from npulab.core.i18n import t

# sub-command -> module; each module offers build_parser(subparsers, name) and run(args) -> int; its one-line help is
# the catalogue's cli.tool.<sub-command>
TOOLS = {
    "doctor": "npulab.env.doctor",
    "explain": "npulab.env.explain",
    "llm-plan": "npulab.llm.plan_cli",
    "lint-npu": "npulab.lint.command",
    "record": "npulab.course.record",
    "lab-export": "npulab.course.labs.export",
    "bench": "npulab.bench",
    "migrate": "npulab.migrate",
    "smi": "npulab.ascend_tools.smi",
    "strategy": "npulab.migrate.strategy",
    "workshop": "npulab.workshop.cli",
    "trace": "npulab.ascend_tools.trace_cli",
    "chips": "npulab.hw.chips_cli",
    "triton-launch": "npulab.kernels.triton_launch",
    "versions": "npulab.env.versions_cli",
    "freshness": "npulab.env.freshness",
    "edition": "npulab.course.edition",
    "kernelspec": "npulab.env.kernelspec",
}


def _requested_tool(argv: list[str]) -> str | None:
    return next((arg for arg in argv if not arg.startswith("-")), None)


def make_parser(argv: list[str] | None = None) -> CourseArgumentParser:
    """The parser; only the requested tool's module is imported (all of them for ``--help`` listings in tests)."""
    parser = CourseArgumentParser(prog="python -m npulab", description=t("cli.description"))
    subparsers = parser.add_subparsers(dest="tool", metavar="<tool>", parser_class=CourseArgumentParser)
    subparsers.required = True
    wanted = None if argv is None else _requested_tool(argv)
    for name, module_name in TOOLS.items():
        if name == wanted:
            importlib.import_module(module_name).build_parser(subparsers, name)
        else:
            subparsers.add_parser(name, help=t(f"cli.tool.{name}"), add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = make_parser(argv).parse_args(argv)
    except ImportError as err:
        tool = _requested_tool(argv)
        print(t("cli.tool_unavailable", tool=tool, error=f"{type(err).__name__}: {err}"), file=sys.stderr)
        return EXIT_FAIL
    try:
        return int(args.run(args))
    except UsageError as err:
        print(t("cli.error", message=err), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(t("cli.interrupted"), file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
