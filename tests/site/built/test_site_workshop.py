"""The built site (_build/html, or COURSE_SITE_DIR): quizzes give feedback, exercises never lead to solutions."""

from __future__ import annotations

import re

from sitekit import BUILD

from npulab.course import quiz as qz

NAV = re.compile(r'<a class="(left-prev|right-next)"\s+href="([^"]+)"')


def test_exercise_pages_never_link_prev_or_next_to_a_solution(pages):
    exercises = sorted((BUILD / "notebooks").glob("*_lab.html"))
    assert exercises
    for page in exercises:
        links = NAV.findall(page.read_text(encoding="utf-8"))
        assert links, f"{page.name}: no prev/next navigation found"
        assert not [href for _, href in links if "solution" in href], f"{page.name} links to a solution"


def test_quiz_page_gives_feedback_in_the_browser(server, browser):
    page = browser.new_page()
    page.goto(f"{server}/notebooks/quizzes.html", wait_until="load")
    assert page.locator(".npulab-quiz").count() == len(qz.chapters())
    assert page.locator(".npulab-quiz .q").count() == sum(len(qz.load(c).questions) for c in qz.chapters())
    first = qz.load(qz.chapters()[0]).questions[0]
    block = page.locator(".npulab-quiz .q").first
    assert first.kind == "single"
    block.locator("input").nth((first.answer + 1) % len(first.options)).check()
    block.locator("button.check").click()
    assert block.locator(".fb").inner_text().startswith("✗")
    block.locator("input").nth(first.answer).check()
    block.locator("button.check").click()
    assert block.locator(".fb").inner_text().startswith("✓")
    assert not block.locator("details").evaluate("d => d.open")
    assert "quiz.show" not in page.inner_text("body"), "the code cells are hidden (remove-input)"
    page.close()
