"""npulab's language (npulab.core.i18n): the order of decision, the catalogue, and the English it gives the notebooks
of the English book (the %%npu notice, the quizzes)."""

from __future__ import annotations

import re

import pytest

from npulab.__main__ import TOOLS
from npulab.core import i18n
from npulab.core.paths import REPO_ROOT
from npulab.course import npu_magic, quiz
from npulab.lint import op_docs


@pytest.fixture
def no_language(monkeypatch, tmp_path):
    for name in ("NPULAB_LANG", "JPY_SESSION_NAME", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


def test_default_is_chinese(no_language):
    assert i18n.language() == "zh"


def test_order_env_then_notebook_then_locale(no_language):
    no_language.setenv("LANG", "en_US.UTF-8")
    assert i18n.language() == "en"
    no_language.chdir(REPO_ROOT / "chapters" / "01_environment")
    assert i18n.language() == "zh", "a Chinese lesson's kernel speaks Chinese whatever the locale"
    no_language.chdir(REPO_ROOT / "en" / "chapters" / "01_environment")
    no_language.setenv("LANG", "zh_CN.UTF-8")
    assert i18n.language() == "en", "an English lesson's kernel speaks English"
    no_language.setenv("NPULAB_LANG", "zh")
    assert i18n.language() == "zh", "NPULAB_LANG decides first"
    no_language.setenv("NPULAB_LANG", "klingon")
    assert i18n.language() == "en", "an unknown NPULAB_LANG is ignored"


def test_jupyterlab_session_name_and_c_locale(no_language):
    no_language.setenv("LANG", "C.UTF-8")
    assert i18n.language() == "zh"
    no_language.setenv("JPY_SESSION_NAME", str(REPO_ROOT / "en" / "notebooks" / "01_environment_lab.ipynb"))
    assert i18n.language() == "en"


def test_catalogue_has_both_languages_with_the_same_fields():
    for key, words in i18n.catalogue().items():
        assert set(words) == {"zh", "en"}, key
        assert sorted(re.findall(r"{(\w+)}", words["zh"])) == sorted(re.findall(r"{(\w+)}", words["en"])), key
        assert not re.search(r"[\u4e00-\u9fff]", words["en"]), key


def test_every_key_is_used_and_every_used_key_exists():
    code = "".join(p.read_text(encoding="utf-8") for p in (REPO_ROOT / "npulab").rglob("*.py"))
    used = {k for k in re.findall(r"""\bt\(\s*(?:f?["'])([\w.]+)["']""", code) if not k.endswith(".")}
    used |= {f"site.{k}" for k in re.findall(r"""\bsite_text\(\s*["'](\w+)["']""", code)}
    used |= {f"cli.tool.{k}" for k in TOOLS}  # __main__: t(f"cli.tool.{name}") for each sub-command
    used |= {f"quiz.{k}" for k in quiz.FEEDBACK} | {f"quiz.{k}" for k in ("single", "multiple", "numeric")}
    used |= {f"lint.opdoc.{k}" for k in op_docs.KINDS}  # op_docs: t(f"lint.opdoc.{what}") for each kind of limit
    used |= {f"lint.opdoc.{k}" for k in op_docs.SOURCES}  # and t(f"lint.opdoc.{source}") for whose docs it cites
    # meta_run words a refusal with the key the refusal carries (the meta kernel's, the CPU twin's, a forked child's)
    used |= set(re.findall(r"""["'](lint\.(?:meta|cpu|child)\.\w+)["']""", code))
    assert used - set(i18n.catalogue()) == set()
    assert set(i18n.catalogue()) - used == set()


def test_npu_notice_in_english(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    msg = npu_magic.skip_message()
    assert msg.startswith("[skipped] This cell needs an Ascend NPU") and "the text around this cell" in msg


def test_quiz_in_english(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    shown = quiz.show("04")
    html = shown._repr_html_()
    assert shown.language == "en" and ">Check</button>" in html and "Answer and explanation" in html
    assert '"right": "Right."' in html.replace("&quot;", '"')
    q = shown.questions[0]
    assert quiz.grade(q, q.answer, "en")[1] == "Right."
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert ">检查</button>" in quiz.show("04")._repr_html_()


def test_quiz_counts_in_english(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    assert re.fullmatch(r"The question bank \(npulab/data/quizzes\) holds \d+ questions: chapter 01: \d+(, chapter \d\d: \d+)+\.",
                        quiz.counts_text())


def test_environment_summary_in_english(monkeypatch, capsys):
    from npulab.env import environment_summary

    monkeypatch.setenv("NPULAB_LANG", "en")
    environment_summary.summary()
    out = capsys.readouterr().out
    assert "Device of this lesson" in out and "logical cores" in out
    assert not re.search(r"[\u4e00-\u9fff]", out), out


def test_lab_feedback_frame_in_english(monkeypatch, capsys):
    from npulab.course.labs import Lab

    monkeypatch.setenv("NPULAB_LANG", "en")
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    lab = Lab("Lab 00", {"q1": lambda a: (a == 2, "two is right" if a == 2 else "not two")})
    lab.check("q1", ...)
    lab.check("q1", 3)
    lab.report()
    out = capsys.readouterr().out
    assert "… q1: not answered yet — replace ... with your answer" in out and "✗ q1: not two" in out
    assert "Lab 00: 0/1 correct, 1 to correct, 0 not answered." in out


def test_footer_and_problem_size_in_english(monkeypatch, capsys):
    from npulab.core import machine, sizes
    from npulab.core.device import pick_device

    monkeypatch.setenv("NPULAB_LANG", "en")
    assert machine.LoadWatch().footer(print_it=False).startswith("Measured on: ")
    sizes.problem_size("matmul_single", pick_device())
    out = capsys.readouterr().out
    assert out.startswith("Problem size · side of one square matrix multiplication · ") and not re.search(r"[\u4e00-\u9fff]", out)
    assert all(entry.get("what_en") for entry in sizes.SIZES.values())


def test_a_device_chosen_in_chinese_speaks_english_later(monkeypatch):
    """pick_device is cached: the CPU's cores are said in the language of the moment, not of the first call."""
    from npulab.core.device import pick_device

    device = pick_device()
    assert "逻辑核" in str(device) or device.is_accelerator
    monkeypatch.setenv("NPULAB_LANG", "en")
    assert not re.search(r"[\u4e00-\u9fff]", str(device))


def test_a_key_in_two_catalogue_files_is_refused(tmp_path, monkeypatch):
    (tmp_path / "a.yaml").write_text('x.one: {zh: "一", en: "one"}\n', encoding="utf-8")
    (tmp_path / "b.yaml").write_text('x.one: {zh: "壹", en: "one"}\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "CATALOGUE", tmp_path)
    i18n.catalogue.cache_clear()
    try:
        with pytest.raises(ValueError, match="x.one"):
            i18n.catalogue()
    finally:
        i18n.catalogue.cache_clear()


def test_localized_field_falls_back_to_chinese(monkeypatch):
    record = {"what": "矩阵乘", "what_en": "matrix multiplication", "note": "只有中文"}
    assert i18n.localized(record, "what", "en") == "matrix multiplication"
    assert i18n.localized(record, "what", "zh") == "矩阵乘"
    assert i18n.localized(record, "note", "en") == "只有中文"
    monkeypatch.setenv("NPULAB_LANG", "en")
    assert i18n.localized(record, "what") == "matrix multiplication"


def test_in_language_swaps_twins_through_a_tree_and_drops_them():
    tree = {"title": "迁移", "title_en": "Migration", "rows": [{"label": "甲", "label_en": "A", "days": [0, 1]}],
            "only_zh": "只有中文", "orphan_en": "kept: no Chinese field of that name"}
    assert i18n.in_language(tree, "en") == {"title": "Migration", "rows": [{"label": "A", "days": [0, 1]}],
                                            "only_zh": "只有中文", "orphan_en": "kept: no Chinese field of that name"}
    assert i18n.in_language(tree, "zh") == {"title": "迁移", "rows": [{"label": "甲", "days": [0, 1]}],
                                            "only_zh": "只有中文", "orphan_en": "kept: no Chinese field of that name"}
