"""Every tool's own help texts in English (issue 37): descriptions, arguments, sub-commands and metavars of every
``python -m npulab <tool> [<command>] --help`` have no Chinese with NPULAB_LANG=en; the English comes from
``npulab/data/messages/help/*.yaml`` (the Chinese text in the code is the message id, npulab.core.i18n.gettext), and
that table holds exactly the Chinese texts the parsers use, each with an English that keeps its flags, numbers and
%-placeholders."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

import pytest
from english_checks import CJK, no_cjk

from npulab.__main__ import TOOLS, make_parser
from npulab.core.i18n import help_texts
from npulab.core.paths import REPO_ROOT


def _parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """``(path, parser)`` for the parser and every sub-command below it."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


def _tool_parsers():
    for tool in TOOLS:
        (top,) = [a for a in make_parser([tool])._actions if isinstance(a, argparse._SubParsersAction)]
        yield from _parsers(top.choices[tool], (tool,))


def _source_texts() -> set[str]:
    """Every Chinese help text, description, epilog and string metavar the tools' parsers are given in the code (the
    message ids); called in English, so that the texts the keyed catalogue gives (npulab.core.i18n.t) are English."""
    texts = set()
    for _, parser in _tool_parsers():
        texts |= {parser.description, parser.epilog}
        for action in parser._actions:
            texts |= {action.help, action.metavar if isinstance(action.metavar, str) else None}
            if isinstance(action, argparse._SubParsersAction):
                texts |= {choice.help for choice in action._choices_actions}
    return {text for text in texts if isinstance(text, str) and CJK.search(text)}


@pytest.mark.parametrize("tool", list(TOOLS))
def test_every_help_page_of_a_tool_is_english(en, tool):
    pages = [(path, parser) for path, parser in _tool_parsers() if path[0] == tool]
    assert pages
    for path, parser in pages:
        text = no_cjk(parser.format_help())
        assert text.startswith(f"usage: python -m npulab {' '.join(path)}"), text


def test_chinese_help_is_unchanged(monkeypatch):
    """In Chinese every help text is shown as the code gives it (whitespace aside: argparse wraps lines)."""
    monkeypatch.setenv("NPULAB_LANG", "zh")
    for _, parser in _tool_parsers():
        shown = re.sub(r"\s+", "", parser.format_help())
        assert shown.startswith("用法：") and "showthishelp" not in shown
        given = [parser.description] + [a.help for a in parser._actions if a.help != argparse.SUPPRESS]
        for text in filter(None, given):
            assert "%" in text or re.sub(r"\s+", "", text) in shown, text


def test_the_table_holds_exactly_the_texts_the_parsers_use(en):
    used, table = _source_texts(), set(help_texts())
    assert not used - table, f"help texts without English: {sorted(used - table)}"
    assert not table - used, f"English for help texts no parser uses any more: {sorted(table - used)}"


TOKENS = re.compile(r"--[a-z][a-z0-9-]*|\$[A-Z_]+|%\([a-z_]+\)s|\b[A-Z][A-Z_]{3,}\b|\d+(?:\.\d+)*")


@pytest.mark.parametrize("chinese", sorted(help_texts()))
def test_english_keeps_flags_numbers_and_placeholders(chinese):
    english = no_cjk(help_texts()[chinese])
    assert english.strip() and english == english.strip()
    missing = [token for token in TOKENS.findall(chinese) if token not in english]
    assert not missing, f"{chinese!r} → {english!r} lost {missing}"


def test_a_real_process_shows_english_help():
    """The path a reader takes: a shell with NPULAB_LANG=en and ``python -m npulab workshop seats move --help``."""
    env = {**os.environ, "NPULAB_LANG": "en"}
    done = subprocess.run([sys.executable, "-m", "npulab", "workshop", "seats", "move", "--help"], cwd=REPO_ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "move a learner to another NPU" not in done.stdout  # the sub-command's one-line help is the parent's
    assert "learner name" in no_cjk(done.stdout) and "target NPU number" in done.stdout
