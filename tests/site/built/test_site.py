"""Checks of the built site (_build/html): clean pages, and a headless Chromium pass over every page."""

from __future__ import annotations

import re

import pytest
from sitekit import BUILD, broken_code, broken_words, rel

# Console messages that are known, harmless and not ours (documented in docs/DECISIONS.md):
CONSOLE_ALLOW = (
    "Identifier 'THEBE_JS_URL' has already been declared",  # sphinx-thebe 0.3.1 injects its inline script twice
)
INTERNAL_NOTES = re.compile(r"ascend_facts|seed_digest|toolchain_notes|calibration\.md|course_anchors")
LOG_NOISE = re.compile(r"\[(?:WARNING|ERROR|INFO|DEBUG|CRITICAL)\] [A-Z_]+\(\d+|GetRealPath|ReadSectionDebugInfo")


def test_every_toc_page_was_built(pages):
    assert (BUILD / "index.html").exists()
    built = {rel(p) for p in pages}
    for expected in ("intro.html", "chapters/01_environment/01_environment_setup.html",
                     "chapters/01_environment/02_hello_npu.html", "notebooks/01_environment_lab.html"):
        assert expected in built


def test_pages_are_clean(pages):
    problems = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        if "missing from font" in text:
            problems.append(f"{rel(page)}: a CJK glyph is missing from the plot font (install fonts-noto-cjk)")
        if "Traceback (most recent call last)" in text:
            problems.append(f"{rel(page)}: a Python traceback is shown")
        if LOG_NOISE.search(text):
            problems.append(f"{rel(page)}: MindSpore/C++ log lines (set GLOG_v=4 before importing mindspore)")
        if INTERNAL_NOTES.search(text):
            problems.append(f"{rel(page)}: cites the team's internal notes; name the public source instead")
        if "|---|" in text:
            problems.append(f"{rel(page)}: a Markdown table is shown as raw text (render markdown outputs as MyST)")
        if 'class="output stderr"' in text:
            problems.append(f"{rel(page)}: a cell writes to stderr (warnings belong fixed, not on the page)")
    assert not problems, "\n".join(problems)


def test_every_page_loads_without_console_errors_and_images_load(server, browser, pages):
    """…and, at 1280 px, no table cell breaks a word or an inline code span (the 375 px measures are in
    test_reader.py and test_phone_layout.py)."""
    problems = []
    page = browser.new_page(viewport={"width": 1280, "height": 800})  # issue 22: broken words measured at 1280 px
    errors: list[str] = []
    # a failed request is reported by URL (the console only says "404"); the console message itself is then dropped
    page.on("response", lambda r: errors.append(f"HTTP {r.status} {r.url}") if r.status >= 400 else None)
    page.on("console", lambda m: errors.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    for path in pages:
        errors.clear()
        response = page.goto(f"{server}/{rel(path)}", wait_until="load")
        if response is None or response.status != 200:
            problems.append(f"{rel(path)}: HTTP {response.status if response else 'no response'}")
        broken = page.evaluate("Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)")
        problems += [f"{rel(path)}: image did not load: {src}" for src in broken]
        problems += [f"{rel(path)}: console: {e}" for e in errors if not any(a in e for a in CONSOLE_ALLOW)]
        tables = page.locator(".bd-article table").count()
        broken, code = (broken_words(page), broken_code(page)) if tables else ([], [])
        problems += [f"{rel(path)} at 1280 px: {len(broken)} words broken in table cells: {broken[:8]}"] if broken else []
        problems += [f"{rel(path)} at 1280 px: code broken across lines: {c}" for c in code[:5]]
    page.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("query", ["昇腾", "矩阵乘法", "中位数"])
def test_chinese_search_finds_a_chapter_page(server, browser, query):
    page = browser.new_page()
    page.goto(f"{server}/search.html?q={query}", wait_until="load")
    page.wait_for_function(
        "() => document.querySelectorAll('#search-results li').length > 0"
        " || /完成|finished/i.test(document.querySelector('#search-results')?.innerText || '')",
        timeout=20_000,
    )
    links = page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.getAttribute('href'))")
    page.close()
    assert any(href and "chapters/" in href for href in links), f"search for {query!r} found no chapter page: {links}"
