"""The English book's PDF (`make pdf EDITION=en`): every chapter present, English text extractable, the Chinese of
code outputs typeset (not dropped), figures included. ``COURSE_PDF_EN`` points at another PDF."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from npulab.core.paths import REPO_ROOT

PDF = Path(os.environ.get("COURSE_PDF_EN") or REPO_ROOT / "_build" / "en" / "_build" / "latex" / "course.pdf")


@pytest.fixture(scope="module")
def text() -> str:
    if not PDF.exists():
        pytest.fail(f"{PDF} not found: run make pdf EDITION=en first")
    if shutil.which("pdftotext") is None:
        pytest.fail("pdftotext is missing: sudo apt-get install -y poppler-utils")
    return subprocess.run(["pdftotext", "-layout", str(PDF), "-"], capture_output=True, text=True, check=True).stdout


def _chapter_titles() -> list[str]:
    toc = yaml.safe_load((REPO_ROOT / "en" / "_toc.yml").read_text(encoding="utf-8"))
    titles = []
    for part in toc["parts"]:
        for chapter in part["chapters"]:
            index = REPO_ROOT / "en" / f"{chapter['file']}.md"
            if index.exists():
                first = next(line for line in index.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
                titles.append(first[2:].strip())
    return titles


def test_every_chapter_is_in_the_pdf(text):
    flat = re.sub(r"\s+", "", text)
    missing = [t for t in _chapter_titles() if re.sub(r"\s+", "", t) not in flat]
    assert not missing, f"chapters missing from the PDF: {missing}"


def test_english_text_and_the_outputs_chinese_are_real_text(text):
    assert "Ascend" in text and "Learning objectives" in text and "Da Vinci" in text
    assert re.search(r"[\u4e00-\u9fff]", text), "Chinese in code cells and outputs was dropped (xeCJK fonts?)"


def test_figures_are_included(text):
    listing = subprocess.run(["pdfimages", "-list", str(PDF)], capture_output=True, text=True, check=True).stdout
    assert len(listing.strip().splitlines()) > 2, "the PDF contains no images (were the notebooks executed?)"
