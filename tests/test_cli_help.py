"""Every `python -m npulab <tool> --help` speaks Chinese (issue 18: one language in the interface)."""

import re

import pytest

from npulab.__main__ import TOOLS, main

ENGLISH = re.compile(r"usage:|positional arguments|options:|show this help message")


def _help(capsys, argv):
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("tool", [None, *TOOLS])
def test_help_is_chinese(capsys, tool):
    text = _help(capsys, [tool, "--help"] if tool else ["--help"])
    assert text.startswith("用法：") and "显示本帮助并退出" in text
    assert not ENGLISH.search(text), text
    description = [line for line in text.splitlines()[1:] if line and not line.startswith(" ")]
    assert any(re.search(r"[\u4e00-\u9fff]", line) for line in description), text
