"""The two editions in one built site (issue 37): every page links its twin, the switch works in a real browser on
a desktop and a phone screen, the English book is English (frame, search) and as clean as the Chinese one."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from sitekit import BUILD, EDITION, content_pages, rel

from npulab.core.paths import REPO_ROOT

# three lessons of three chapters, switched both ways in Chromium
LESSONS = ("chapters/01_environment/02_hello_npu.html", "chapters/03_pytorch_npu/01_cuda_to_npu_migration.html",
           "chapters/06_advanced/04_multi_card_hccl.html")
SCREENS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
CJK = re.compile(r"[\u4e00-\u9fff]")
# this build machine's own paths (a lesson's /tmp/npulab_msprof or the word .venv in prose are the course's text)
BUILD_PATHS = re.compile("|".join(re.escape(p) for p in {str(REPO_ROOT), sys.prefix, str(Path.home()) + "/"}))


@pytest.fixture(scope="module")
def english():
    pages = content_pages(EDITION)
    if not pages:
        pytest.fail("the site has no English book: make book builds it into _build/html/en")
    return pages


def _switch(html: str) -> str | None:
    m = re.search(r'<a class="btn btn-sm course-language" href="([^"]+)"', html)
    return m.group(1) if m else None


def test_every_page_of_both_books_links_its_twin(pages, english):
    missing, broken = [], []
    for page in [*pages, *english]:
        href = _switch(page.read_text(encoding="utf-8"))
        if href is None:
            missing.append(rel(page))
            continue
        target = (page.parent / href).resolve()
        if not target.is_file():
            broken.append(f"{rel(page)} -> {href}")
    assert not missing, f"pages without the language switch: {missing[:10]}"
    assert not broken, f"switches that lead nowhere: {broken[:10]}"


def test_a_translated_page_switches_to_its_own_twin(english):
    twins = [p for p in english if (REPO_ROOT / "en" / rel(p)[len(EDITION) + 1:]).with_suffix(".ipynb").exists()]
    assert len(twins) >= len(LESSONS)
    for page in twins:
        href = _switch(page.read_text(encoding="utf-8"))
        assert (page.parent / href).resolve() == (BUILD / rel(page)[len(EDITION) + 1:]).resolve(), rel(page)


@pytest.mark.parametrize("screen", SCREENS)
def test_switching_languages_in_a_browser(browser, server, screen):
    context = browser.new_context(viewport=SCREENS[screen])
    page = context.new_page()
    try:
        for lesson in LESSONS:
            page.goto(f"{server}/{lesson}", wait_until="load")
            assert page.evaluate("document.documentElement.lang").startswith("zh")
            switch = page.locator("a.course-language").first
            assert switch.is_visible(), f"{lesson}: no visible switch on the {screen} screen"
            box = switch.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= SCREENS[screen]["width"]
            with page.expect_navigation(wait_until="load"):
                switch.click()
            assert page.url == f"{server}/{EDITION}/{lesson}", page.url
            assert page.evaluate("document.documentElement.lang") == "en"
            title = page.locator("h1").first.inner_text()
            assert title and not CJK.search(title), title
            with page.expect_navigation(wait_until="load"):
                page.locator("a.course-language").first.click()
            assert page.url == f"{server}/{lesson}"
    finally:
        context.close()


def test_english_search_finds_english_words(browser, server):
    context = browser.new_context(viewport=SCREENS["desktop"])
    page = context.new_page()
    try:
        page.goto(f"{server}/{EDITION}/search.html?q=operator", wait_until="load")
        page.wait_for_selector("#search-results li, #search-results p", timeout=30_000)
        page.wait_for_function("document.querySelectorAll('#search-results li').length > 0", timeout=30_000)
        links = page.eval_on_selector_all("#search-results li a", "as => as.map(a => a.href)")
        assert links and all(f"/{EDITION}/" in link for link in links), links[:5]
    finally:
        context.close()


def test_english_pages_are_english_framed_and_clean(english):
    problems = []
    for page in english:
        html = page.read_text(encoding="utf-8")
        if '<html lang="en"' not in html:
            problems.append(f"{rel(page)}: not lang=en")
        for zh_frame in ("在本课程中搜索", "需要昇腾 NPU", "<课程目录>", "<Python 环境>", "下载全书 PDF"):
            if zh_frame in html:
                problems.append(f"{rel(page)}: {zh_frame}")
        text = re.sub(r"<script.*?</script>|<style.*?</style>", "", html, flags=re.S)
        if BUILD_PATHS.search(re.sub(r"<[^>]+>", "", text)):
            problems.append(f"{rel(page)}: build path {BUILD_PATHS.search(re.sub(r'<[^>]+>', '', text)).group(0)}")
        if "Traceback (most recent call last)" in text:
            problems.append(f"{rel(page)}: traceback")
    assert not problems, problems[:20]


def test_english_downloads_answer_in_english(english):
    sources = sorted((BUILD / EDITION / "_sources").rglob("*.ipynb"))
    assert sources
    import json

    for path in sources:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        assert cells[0]["source"].startswith("**This is the version the course site executed"), path
        install = "".join(cells[1]["source"]) if cells[1]["cell_type"] == "code" else ""
        assert 'os.environ.setdefault("NPULAB_LANG", "en")' in install or not install, path
