"""Shared by the site tests: where the built site is and which pages it has (fixtures: conftest.py).

``COURSE_SITE_DIR`` points the tests at another build (default: ``_build/html`` of this checkout).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT

BUILD = Path(os.environ.get("COURSE_SITE_DIR") or REPO_ROOT / "_build" / "html")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def content_pages() -> list[Path]:
    if not (BUILD / "index.html").exists():
        pytest.fail("还没有生成网站：先运行 `make book`（或 make test 的前几步）")
    skip = {"genindex.html", "search.html", "index.html", "404.html"}  # index.html only redirects to intro.html
    return sorted(p for p in BUILD.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts
                  and "reports" not in p.parts and p.name not in skip)


def rel(p: Path) -> str:
    return str(p.relative_to(BUILD))
