"""The command-line frame of ``python -m npulab`` (usage, section titles, usage errors, the tool list) in the reader's
language: English with NPULAB_LANG=en, the Chinese unchanged with zh."""

from __future__ import annotations

import pytest
from english_checks import CJK

from npulab.__main__ import TOOLS, main


def test_tool_list_in_english(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LANG", "en")
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and not CJK.search(out)
    assert out.startswith("usage: python -m npulab") and "positional arguments" in out
    assert all(name in out for name in TOOLS) and "Read an Ascend error log" in out


def test_usage_error_in_english_exits_2(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LANG", "en")
    assert_exit = pytest.raises(SystemExit)
    with assert_exit as done:
        main(["chips", "--no-such-flag"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and not CJK.search(err)
    assert "bad arguments: unrecognized arguments: --no-such-flag" in err and "Traceback" not in err


def test_usage_error_in_chinese_unchanged(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    with pytest.raises(SystemExit) as done:
        main(["chips", "--no-such-flag"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.startswith("用法：") and "参数错误：无法识别的参数: --no-such-flag" in err


def test_unknown_tool_names_the_choices_in_english(monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LANG", "en")
    with pytest.raises(SystemExit) as done:
        main(["no-such-tool"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and "invalid choice: 'no-such-tool'" in err and not CJK.search(err)
