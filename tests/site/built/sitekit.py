"""Shared by the site tests: where the built site is and which pages it has (fixtures: conftest.py).

``COURSE_SITE_DIR`` points the tests at another build (default: ``_build/html`` of this checkout);
``COURSE_SITE_REPO_DIR`` at the build with the repository setting (tests/site/built/test_route.py).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT

BUILD = Path(os.environ.get("COURSE_SITE_DIR") or REPO_ROOT / "_build" / "html")
# the same book built with the repository setting (`make book-with-repository`; make test sets this)
REPO_BUILD = Path(os.environ["COURSE_SITE_REPO_DIR"]) if os.environ.get("COURSE_SITE_REPO_DIR") else None
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


EDITION = "en"  # the English book's folder in the site (tests/site/built/test_editions.py checks its pages)


def content_pages(edition: str = "zh") -> list[Path]:
    """The pages of one edition: the Chinese book (the site's root) or the English one (``en/``)."""
    if not (BUILD / "index.html").exists():
        pytest.fail("还没有生成网站：先运行 `make book`（或 make test 的前几步）")
    root = BUILD / EDITION if edition == EDITION else BUILD
    skip = {"genindex.html", "search.html", "index.html", "404.html"}  # index.html only redirects to intro.html
    return sorted(p for p in root.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts
                  and "reports" not in p.parts and p.name not in skip
                  and (edition == EDITION or p.relative_to(BUILD).parts[0] != EDITION))


def rel(p: Path) -> str:
    return str(p.relative_to(BUILD))


# A Latin word, number, version or identifier: letters, digits and _ joined by . , : (9.0.0, torch.npu, 1,024) or
# a numeric fraction (0/1). Breaking after a hyphen or a slash between words is ordinary line breaking.
BROKEN_WORDS_JS = r"""() => {
  const WORD = /[A-Za-z0-9_]+(?:[.,:][A-Za-z0-9_]+|\/[0-9]+)*/g;
  const found = [];
  for (const cell of document.querySelectorAll('.bd-article td, .bd-article th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest('pre')) continue;  // preformatted text scrolls, it never wraps a word
      WORD.lastIndex = 0;
      for (let m = WORD.exec(node.data); m; m = WORD.exec(node.data)) {
        if (m[0].length < 2) continue;
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0.5);
        if (rects.length < 2) continue;
        const tops = rects.map((r) => r.top), height = Math.min(...rects.map((r) => r.height));
        if (Math.max(...tops) - Math.min(...tops) > height / 2) found.push(m[0]);
      }
    }
  }
  return found;
}"""
SHOW_ALL_CELLS = ".bd-article div.cell { content-visibility: visible !important; }"


def broken_words(page) -> list[str]:
    """Latin words, numbers, versions and identifiers that a table cell of the loaded page breaks across lines."""
    page.add_style_tag(content=SHOW_ALL_CELLS)  # lay out every cell, also those content-visibility skips
    return page.evaluate(BROKEN_WORDS_JS)


# an inline code span in a table cell that wraps onto a second line (a command or a name cut in two)
BROKEN_CODE_JS = r"""() => Array.from(document.querySelectorAll('.bd-article td code, .bd-article th code'))
  .filter((code) => {
    const rects = Array.from(code.getClientRects()).filter((r) => r.width > 0.5);
    return rects.length > 1 && new Set(rects.map((r) => Math.round(r.top))).size > 1;
  })
  .map((code) => code.innerText)"""


def broken_code(page) -> list[str]:
    """The inline code spans that a table cell of the loaded page breaks across lines."""
    page.add_style_tag(content=SHOW_ALL_CELLS)
    return page.evaluate(BROKEN_CODE_JS)
