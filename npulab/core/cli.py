"""Shared command-line plumbing: usage errors in the reader's language (npulab.core.i18n), exit codes, no bare
tracebacks.

Every tool module exposes ``build_parser(subparsers)`` (adds its sub-command) and a
``run(args) -> int`` function. Exit codes across the course's tools:

- 0  the tool did its job (a scan with findings still counts as done)
- 1  the tool ran and found a failure (a failed doctor check, an unknown NPU API name)
- 2  usage error: bad arguments, missing or unreadable input
"""

from __future__ import annotations

import argparse
import copy
import sys
from typing import NoReturn

from npulab.core.i18n import gettext, language, t

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the user; the message (in the reader's language) is shown without a traceback."""


class _CourseHelpFormatter(argparse.HelpFormatter):
    """Usage prefix, help texts, descriptions and epilogs in the reader's language (help texts: i18n.gettext)."""

    def add_usage(self, usage, actions, groups, prefix=None):
        return super().add_usage(usage, actions, groups, t("cli.usage") if prefix is None else prefix)

    def _get_help_string(self, action):
        return gettext(action.help)

    def _format_text(self, text):
        return super()._format_text(gettext(text))

    def _metavar_formatter(self, action, default_metavar):
        if isinstance(action.metavar, str):
            action = copy.copy(action)
            action.metavar = gettext(action.metavar)
        return super()._metavar_formatter(action, default_metavar)


class CourseArgumentParser(argparse.ArgumentParser):
    """ArgumentParser whose frame (usage, section titles, errors) and help texts are in the reader's language; usage
    errors exit with code 2."""

    def __init__(self, *args, **kwargs):
        add_help = kwargs.pop("add_help", True)
        kwargs.setdefault("formatter_class", _CourseHelpFormatter)
        super().__init__(*args, add_help=False, **kwargs)
        self._positionals.title = t("cli.positionals")
        self._optionals.title = t("cli.options")
        if add_help:
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=t("cli.help"))

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: {t('cli.bad_arguments', message=_translate(message))}\n")


# argparse's own English phrases, said in Chinese for a Chinese reader
_ARGPARSE_PHRASES = {
    "the following arguments are required": "缺少必需参数",
    "unrecognized arguments": "无法识别的参数",
    "invalid choice": "无效的选项",
    "expected one argument": "需要一个参数值",
    "invalid int value": "不是有效的整数",
    "invalid float value": "不是有效的数字",
    "argument": "参数",
    "choose from": "可选值",
}


def _translate(message: str) -> str:
    if language() == "en":
        return message
    for english, chinese in _ARGPARSE_PHRASES.items():
        message = message.replace(english, chinese)
    return message


def fail_usage(message: str) -> int:
    """Print a usage error and return exit code 2."""
    print(t("cli.error", message=message), file=sys.stderr)
    return EXIT_USAGE
