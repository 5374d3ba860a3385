"""Chapter quizzes: every question has exactly its intended answer, in Python and in the browser script."""

import itertools
import json
import math
import os
import re
import shutil

import pytest

from npulab.course import quiz as qz

QUIZZES = [qz.load(ch) for ch in qz.chapters()]
QUESTIONS = [(q_, quiz.chapter) for quiz in QUIZZES for q_ in quiz.questions]


def test_every_chapter_has_a_quiz_of_five_to_eight_questions():
    assert qz.chapters() == ["01", "02", "03", "04", "05", "06"]
    kinds = {q.kind for q, _ in QUESTIONS}
    assert kinds == set(qz.KINDS)
    for quiz in QUIZZES:
        assert 5 <= len(quiz.questions) <= 8 and qz.validate(quiz) == []


def test_the_quiz_page_counts_the_questions_instead_of_typing_a_number():
    from npulab.core.paths import REPO_ROOT

    text = qz.counts_text()
    assert all(f"第 {quiz.chapter} 章 {len(quiz.questions)} 题" in text for quiz in QUIZZES)
    cells = json.loads((REPO_ROOT / "notebooks" / "quizzes.ipynb").read_text(encoding="utf-8"))["cells"]
    assert "counts_text()" in "".join(cells[1]["source"])
    assert not re.search(r"每章\s*\d+\s*道", "".join(cells[0]["source"]))


@pytest.mark.parametrize(("question", "chapter"), QUESTIONS, ids=[f"ch{c}-{q.id}" for q, c in QUESTIONS])
def test_exactly_the_intended_answer_is_right(question, chapter):
    q = question
    if q.kind == "single":
        right = [i for i in range(len(q.options)) if qz.grade(q, i)[0]]
        assert right == [q.answer]
    elif q.kind == "multiple":
        n = len(q.options)
        right = [set(c) for r in range(n + 1) for c in itertools.combinations(range(n), r) if qz.grade(q, c)[0]]
        assert right == [set(q.answer)]
    else:
        assert qz.grade(q, q.answer)[0] and qz.grade(q, str(q.answer))[0]
        step = q.tolerance + max(abs(q.answer) * 1e-3, 1e-3)
        assert not qz.grade(q, q.answer + step)[0] and not qz.grade(q, q.answer - step)[0]
        assert qz.grade(q, q.answer + step)[1] == "偏大了。" and qz.grade(q, "abc") == (False, "请输入一个数。")
        if q.derive:
            value = eval(q.derive, {"__builtins__": {}, "math": math})  # formulas from our own data files
            assert abs(value - q.answer) <= q.tolerance, f"derive gives {value}"
    # the folded answer states the same answer, and the explanation is not empty
    assert q.answer_text() and len(q.explanation) > 10


def test_validate_and_load_report_problems_in_chinese(tmp_path, monkeypatch):
    good = QUIZZES[0]
    broken = qz.Quiz(good.chapter, good.title, (good.questions[0], good.questions[0]))
    problems = qz.validate(broken)
    assert any("重复" in p for p in problems) and any("5–8" in p for p in problems)
    bad = qz.Question("x", "single", "?", 5, "解析解析解析解析解析", "chapters/none.ipynb", options=("a", "b"))
    text = "；".join(qz.validate(qz.Quiz("01", "t", (bad,) * 5)))
    assert "超出选项范围" in text and "不存在" in text
    with pytest.raises(qz.QuizError, match="没有小测文件"):
        qz.load("09")
    with pytest.raises(qz.QuizError, match="编号"):
        qz.path_for("abc")


def test_html_has_one_block_per_question_with_its_key_and_a_folded_answer():
    for quiz in QUIZZES:
        page = qz.to_html(quiz)
        keys = re.findall(r"data-key='([^']*)'", page)
        assert len(keys) == len(quiz.questions) == page.count("<details>")
        for key, q in zip(keys, quiz.questions, strict=True):
            key = json.loads(key.replace("&quot;", '"'))
            assert key["kind"] == q.kind
        assert "答案与解析" in page and "<script>" in page and "```" not in page
    assert qz.show("01")._repr_html_() == qz.to_html(qz.load("01"))
    assert "A." in repr(qz.show("02")) and "答案" not in repr(qz.show("02"))


def _wrong(q):
    if q.kind == "single":
        return (q.answer + 1) % len(q.options)
    if q.kind == "multiple":
        return sorted(set(range(len(q.options))) - set(q.answer))
    return q.answer + q.tolerance + 1


def test_browser_script_grades_like_python():
    browser_path = shutil.which("chromium")
    if browser_path is None:
        if os.environ.get("NPULAB_REQUIRE_HUB") == "1" and os.environ.get("NPULAB_SKIP_BROWSER") != "1":
            pytest.fail("no chromium (scripts/system_packages.sh installs it)")
        pytest.skip("no chromium here")
    sync_api = pytest.importorskip("playwright.sync_api")
    page_html = "<html><body>" + "".join(qz.to_html(quiz) for quiz in QUIZZES) + "</body></html>"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.set_content(page_html)
            blocks = page.locator(".npulab-quiz .q")
            assert blocks.count() == len(QUESTIONS)
            for i, (q, _) in enumerate(QUESTIONS):
                block = blocks.nth(i)
                for response, expected in ((_wrong(q), "✗"), (q.answer, "✓")):
                    inputs = block.locator("input")
                    if q.kind == "numeric":
                        inputs.fill(str(response))
                    else:
                        chosen = {response} if q.kind == "single" else set(response)
                        for j in range(inputs.count()):
                            if q.kind == "multiple":
                                inputs.nth(j).set_checked(j in chosen)
                            elif j in chosen:
                                inputs.nth(j).check()
                    block.locator("button.check").click()
                    feedback = block.locator(".fb").inner_text()
                    assert feedback.startswith(expected), f"{q.id}: {response!r} → {feedback}"
                    python_ok, python_msg = qz.grade(q, response)
                    assert python_ok == (expected == "✓") and python_msg in feedback
        finally:
            browser.close()
