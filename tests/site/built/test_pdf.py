"""The book's PDF (`make pdf`, `make pdf EDITION=en`): every chapter present, the text extractable, figures and
tables included, no glyph missing.

Run by `make pdf` only (TeX Live takes minutes to install; docs/site.md). ``COURSE_PDF_EDITION=en`` checks the English
book's PDF; ``COURSE_PDF`` points at another PDF of that edition.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from npulab.core.paths import REPO_ROOT

EDITION = os.environ.get("COURSE_PDF_EDITION", "zh")
BOOK = REPO_ROOT / "en" if EDITION == "en" else REPO_ROOT
BUILT = REPO_ROOT / "_build" / "en" / "_build" if EDITION == "en" else REPO_ROOT / "_build"
PDF = Path(os.environ.get("COURSE_PDF") or BUILT / "latex" / "course.pdf")
CJK = r"[\u4e00-\u9fff]"


@pytest.fixture(scope="module")
def text() -> str:
    if not PDF.exists():
        pytest.fail(f"没有找到 {PDF}：先运行 make pdf" + (" EDITION=en" if EDITION == "en" else ""))
    if shutil.which("pdftotext") is None:
        pytest.fail("没有 pdftotext：sudo apt-get install -y poppler-utils")
    return subprocess.run(["pdftotext", "-layout", str(PDF), "-"], capture_output=True, text=True, check=True).stdout


def _chapter_titles() -> list[str]:
    toc = yaml.safe_load((BOOK / "_toc.yml").read_text(encoding="utf-8"))
    titles = []
    for part in toc["parts"]:
        for chapter in part["chapters"]:
            index = BOOK / f"{chapter['file']}.md"
            if index.exists():
                first = next(line for line in index.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
                titles.append(first[2:].strip())
    return titles


def _flat(words: str) -> str:
    """Without spaces, and with LaTeX's typographic quotes (course’s) as the source's straight ones (course's)."""
    return re.sub(r"\s+", "", words).translate(str.maketrans("‘’“”", "''\"\""))


def test_every_chapter_is_in_the_pdf(text):
    flat = _flat(text)
    missing = [t for t in _chapter_titles() if _flat(t) not in flat]
    assert not missing, f"chapters missing from the PDF: {missing}"


def test_the_text_is_real_text(text):
    if EDITION == "en":
        assert "Ascend" in text and "Learning objectives" in text and "Da Vinci" in text
        # code cells are the Chinese book's: their comments must be typeset, not dropped (xeCJK fonts)
        assert re.search(CJK, text), "Chinese in code cells was dropped"
    else:
        cjk = len(re.findall(CJK, text))
        assert cjk > 10_000, f"only {cjk} Chinese characters could be extracted"
        assert "昇腾" in text and "达芬奇" in text


def test_figures_and_tables_are_included(text):
    listing = subprocess.run(["pdfimages", "-list", str(PDF)], capture_output=True, text=True, check=True).stdout
    assert len(listing.strip().splitlines()) > 2, "the PDF contains no images (were the notebooks executed?)"
    header = ("Prerequisites", "Time", "Hardware") if EDITION == "en" else ("预备知识", "预计用时")
    assert all(word in text for word in header)  # the lesson header table of every lesson


def test_no_chinese_glyph_is_missing():
    log = PDF.with_suffix(".log")
    if not log.exists():
        pytest.skip("no LaTeX log next to the PDF")
    missing = re.findall(r"Missing character: There is no (.)", log.read_text(encoding="utf-8", errors="ignore"))
    cjk = sorted({ch for ch in missing if re.match(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", ch)})
    assert not cjk, f"Chinese characters without a glyph in the PDF: {cjk}"
