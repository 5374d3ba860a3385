"""A bare URL must not run into Chinese punctuation: the book's linkifier (and most Markdown viewers) end a bare URL
only at whitespace, so in 「见 https://x.org/a.html）」 the link becomes ``…/a.html%EF%BC%89`` and is broken (the
English reader pass, docs/english_reader_pass.md, item 6). Write a space before the punctuation, or a Markdown link
``[text](url)`` or an autolink ``<url>``.

Scanned: the Markdown cells of every notebook of both books, the Markdown files of the repository's text folders,
and the data YAML (its notes and sources are printed into the book as Markdown tables)."""

import re
from pathlib import Path

import nbformat
import pytest

from npulab.core.paths import REPO_ROOT

TEXT_DIRS = ("chapters", "notebooks", "en", "about", "docs", "workshop")
TOP_FILES = ("intro.md", "README.md")
SKIP_PARTS = {"_build", ".ipynb_checkpoints", "node_modules", ".venv"}

_FENCE = re.compile(r"^(`{3,}|~{3,}).*?^\1", re.S | re.M)
_INLINE_CODE = re.compile(r"`+[^`\n]*`+")
_AUTOLINK = re.compile(r"<https?://[^>\s]*>")
_LINK_TARGET = re.compile(r"\]\(\s*<?https?://[^)\s]*>?(?:\s+\"[^\"]*\")?\)")
_BARE_URL = re.compile(r"https?://\S+")
# what a linkifier would swallow: CJK punctuation, full-width forms, curly quotes (a CJK letter may be part of a path)
_WIDE = re.compile(r"[\u2018-\u201f\u3000-\u303f\uff00-\uffef]")


def url_runs_into_punctuation(text: str) -> list[str]:
    """The bare URLs in a Markdown text that run straight into a full-width character (code and links skipped)."""
    text = _FENCE.sub("", text)
    text = _INLINE_CODE.sub("", text)
    text = _AUTOLINK.sub("", text)
    text = _LINK_TARGET.sub("]()", text)
    return [m.group(0) for m in _BARE_URL.finditer(text) if _WIDE.search(m.group(0))]


def _skipped(path: Path) -> bool:
    return bool(SKIP_PARTS & set(path.relative_to(REPO_ROOT).parts))


def _notebooks() -> list[Path]:
    return sorted(p for d in ("chapters", "notebooks", "en") for p in (REPO_ROOT / d).rglob("*.ipynb")
                  if not _skipped(p) and p.resolve().is_relative_to(REPO_ROOT.resolve() / d))


def _markdown_files() -> list[Path]:
    found = [REPO_ROOT / name for name in TOP_FILES if (REPO_ROOT / name).is_file()]
    for folder in TEXT_DIRS:
        found += [p for p in (REPO_ROOT / folder).rglob("*.md")
                  if not _skipped(p) and p.resolve().is_relative_to((REPO_ROOT / folder).resolve())]
    return sorted(found)


def _data_yaml() -> list[Path]:
    data = REPO_ROOT / "npulab" / "data"
    return sorted(p for suffix in ("*.yaml", "*.yml") for p in data.rglob(suffix))


def test_the_pattern_is_caught_and_the_fixes_pass():
    bad = "2.7.2 发布说明（https://www.mindspore.cn/docs/en/r2.7.2/RELEASE.html）"
    assert url_runs_into_punctuation(bad) == ["https://www.mindspore.cn/docs/en/r2.7.2/RELEASE.html）"]
    for end in ("。", "，", "；", "、", "：", "」", "（", "）"):
        assert url_runs_into_punctuation(f"见 https://example.org/a{end}下文"), end
    for good in ("2.7.2 发布说明（https://www.mindspore.cn/docs/en/r2.7.2/RELEASE.html ）",
                 "2.7.2 [发布说明](https://www.mindspore.cn/docs/en/r2.7.2/RELEASE.html)）。",
                 "发布说明：<https://www.mindspore.cn/docs/en/r2.7.2/RELEASE.html>。",
                 "源 `https://repo.huaweicloud.com/ascend/repos/conda/`）",
                 "```\ncurl https://example.org/a，\n```\n"):
        assert url_runs_into_punctuation(good) == [], good


def test_the_scan_covers_both_books_and_the_data():
    names = {str(p.relative_to(REPO_ROOT)) for p in _notebooks() + _markdown_files() + _data_yaml()}
    for expected in ("chapters/01_environment/01_environment_setup.ipynb",
                     "en/chapters/01_environment/01_environment_setup.ipynb", "intro.md", "en/intro.md",
                     "about/run_on_npu.md", "npulab/data/compatibility.yaml"):
        assert expected in names, expected


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: str(p.relative_to(REPO_ROOT)))
def test_notebook_markdown_urls_end_before_punctuation(path):
    found = {cell.get("id"): runs for cell in nbformat.read(path, as_version=4).cells
             if cell.cell_type == "markdown" and (runs := url_runs_into_punctuation(cell.source))}
    assert not found, f"{path.relative_to(REPO_ROOT)}: a space or a Markdown link before the punctuation: {found}"


def test_markdown_files_and_data_yaml_urls_end_before_punctuation():
    found = {}
    for path in _markdown_files() + _data_yaml():
        runs = url_runs_into_punctuation(path.read_text(encoding="utf-8"))
        if runs:
            found[str(path.relative_to(REPO_ROOT))] = runs
    assert not found, f"a space or a Markdown link before the punctuation: {found}"
