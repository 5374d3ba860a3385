"""``python -m npulab record`` and ``python -m npulab edition`` in English (issue 37): usage errors, the sync and
check reports and the quiz parity problems carry no Chinese; in Chinese they carry no English parentheses."""

from __future__ import annotations

import nbformat
import pytest
import yaml
from english_checks import CJK, no_cjk
from test_edition import _book

from npulab.__main__ import main
from npulab.core.cli import UsageError
from npulab.course import edition, edition_quiz, quiz, record


def test_record_usage_errors_in_english(capsys, en):
    assert main(["record", "/nonexistent"]) == 2
    err = no_cjk(capsys.readouterr().err)
    assert "no such path: /nonexistent" in err
    with pytest.raises(UsageError, match="No Ascend NPU is available: recording works only on an Ascend host"):
        record.ascend_environment()  # no NPU on the machines that run the tests


def test_record_usage_error_in_chinese(capsys, monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert main(["record", "/nonexistent"]) == 2
    assert "路径不存在：/nonexistent" in capsys.readouterr().err


def test_record_report_line_in_english(tmp_path, monkeypatch, capsys, en):
    stamp = {"device": "Ascend910B1", "cann": "9.1.0"}
    monkeypatch.setattr(record, "ascend_environment", lambda: stamp)
    monkeypatch.setattr(record, "iter_notebooks", lambda paths: [tmp_path / "a.ipynb"])
    monkeypatch.setattr(record, "record", lambda path, stamp: 2)
    assert main(["record"]) == 0
    out = no_cjk(capsys.readouterr().out)
    assert f"✓ {tmp_path / 'a.ipynb'}: kept the outputs of 2 NPU cells (Ascend910B1, CANN 9.1.0)" in out


@pytest.mark.parametrize("argv", [
    ["edition", "check", "no/such/page.ipynb"],
    ["edition", "sync", "README.txt"],
    ["edition", "check", "/tmp"],
])
def test_edition_usage_errors_in_english(capsys, argv, en):
    assert main(argv) == 2
    err = no_cjk(capsys.readouterr().err)
    assert err.startswith("error: ") and "Traceback" not in err


def test_edition_check_in_english(tmp_path, monkeypatch, capsys, en):
    """sync lists what to translate, check every violation, both in English; the facts (ids, counts) stay."""
    zh, en_page = _book(tmp_path)
    monkeypatch.setattr(edition, "REPO_ROOT", tmp_path)
    monkeypatch.setattr(edition, "pairs", lambda paths: [(zh, en_page)])
    monkeypatch.setattr(edition, "sync", lambda zh, en, sync=edition.sync: sync(zh, en, tmp_path))
    assert main(["edition", "sync"]) == 0
    out = no_cjk(capsys.readouterr().out)
    assert "synced 1 pages." in out and "[c00] to translate" in out and "2 to translate." in out
    nb = nbformat.read(en_page, as_version=4)
    nb.cells[1].source = "print(2)"
    nb.cells[1].metadata["tags"] = ["npu"]
    nbformat.write(nb, en_page)
    assert main(["edition", "check"]) == 1
    out = no_cjk(capsys.readouterr().out)
    assert "[c00] missing translation" in out and "[c01] code cell source differs from the Chinese" in out
    assert "[c01] code cell metadata differs from the Chinese" in out
    assert "4 parity violations. Run python -m npulab edition sync first" in out
    edition.apply_translation(en_page, {"c00": "# Title", "c02": "## Summary"}, tmp_path)
    problems = edition.check(zh, en_page)
    assert "[c00] inline code missing: `torch.npu`" in problems and "[c00] links missing: a.ipynb" in problems
    with pytest.raises(UsageError, match=r"^\[c01\] is a code cell: code cells come from the Chinese source$"):
        edition.apply_translation(en_page, {"c01": "print(3)"}, tmp_path)
    for problem in problems:
        no_cjk(problem)


def test_edition_check_in_chinese_has_no_english_parentheses(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    zh, en_page = _book(tmp_path)
    monkeypatch.setattr(edition, "REPO_ROOT", tmp_path)
    monkeypatch.setattr(edition, "pairs", lambda paths: [(zh, en_page)])
    monkeypatch.setattr(edition, "sync", lambda zh, en, sync=edition.sync: sync(zh, en, tmp_path))
    assert main(["edition", "sync"]) == 0
    assert main(["edition", "check"]) == 1
    out = capsys.readouterr().out
    assert "已同步 1 个页面。" in out and "[c00] 待翻译" in out and "待翻译 2 处。" in out
    assert "en/ch/x.ipynb: [c00] 未翻译" in out and "共 2 处不一致。" in out
    assert "(" not in out.replace("（", "") and "missing translation" not in out


def test_quiz_parity_in_english(monkeypatch, en):
    data = yaml.safe_load(quiz.path_for("04").read_text(encoding="utf-8"))
    data["questions"][0]["prompt"] += "（改）"
    data["questions"][1]["en"]["answer"] = 0
    data["questions"][2].pop("en")
    monkeypatch.setattr(edition_quiz, "_raw", lambda chapter: data)
    found = edition_quiz.problems("04")
    assert found and not any(CJK.search(p) for p in found)
    assert any("stale translation" in p for p in found) and any("keys are shared, not translated" in p for p in found)
