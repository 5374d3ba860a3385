"""The built site (_build/html, or NPULAB_SITE_DIR): quizzes give feedback, exercises never lead to solutions."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT
from npulab.course import quiz as qz

BUILD = Path(os.environ.get("NPULAB_SITE_DIR", REPO_ROOT / "_build" / "html"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NAV = re.compile(r'<a class="(left-prev|right-next)"\s+href="([^"]+)"')


def _require_build():
    if not (BUILD / "notebooks" / "quizzes.html").exists():
        pytest.fail("还没有生成网站：先运行 `make book`（或 make test 的前几步）")


def test_exercise_pages_never_link_prev_or_next_to_a_solution():
    _require_build()
    exercises = sorted((BUILD / "notebooks").glob("*_lab.html"))
    assert exercises
    for page in exercises:
        links = NAV.findall(page.read_text(encoding="utf-8"))
        assert links, f"{page.name}: no prev/next navigation found"
        assert not [href for _, href in links if "solution" in href], f"{page.name} links to a solution"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_quiz_page_gives_feedback_in_the_browser():
    _require_build()
    if CHROMIUM is None:
        pytest.skip("no chromium here")
    sync_api = pytest.importorskip("playwright.sync_api")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(BUILD)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{httpd.server_address[1]}/notebooks/quizzes.html", wait_until="load")
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
            browser.close()
    finally:
        httpd.shutdown()
