"""The site's two editions without a build: the language switch, the English words of the site's frame, the
English tools page's runtime and downloads (issue 37). The built site is checked in tests/site/built/test_editions.py."""

from __future__ import annotations

from pathlib import Path

from npulab.course import book_toc
from npulab.site import download_notebooks, postprocess, run_page
from npulab.site.language import EN, ZH, language_of
from npulab.site.paths import path_replacements, scrub_paths
from npulab.site.sphinx_extension import npu_note, stamp_text

HEADER = '<html><head><title>t</title></head><body><div class="article-header-buttons">\n<a>x</a></div></body></html>'


def _sources(tmp_path: Path) -> Path:
    for rel in ("chapters/a/b.ipynb", "intro.md", "en/chapters/a/b.ipynb", "en/intro.md", "chapters/a/only_zh.ipynb"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}", encoding="utf-8")
    return tmp_path


def test_the_edition_of_a_build():
    assert language_of("en") == EN and language_of("en_GB") == EN and language_of("zh_CN") == ZH and language_of(None) == ZH


def test_switch_leads_to_the_twin_or_to_the_other_home(tmp_path):
    root = _sources(tmp_path)
    assert postprocess.twin_href("chapters/a/b.html", ZH, root) == "../../en/chapters/a/b.html"
    assert postprocess.twin_href("chapters/a/b.html", EN, root / "en") == "../../../chapters/a/b.html"
    assert postprocess.twin_href("intro.html", ZH, root) == "en/intro.html"
    assert postprocess.twin_href("chapters/a/only_zh.html", ZH, root) == "../../en/intro.html"
    assert postprocess.twin_href("search.html", EN, root / "en") == "../search.html"


def test_switch_is_first_among_the_header_buttons_once(tmp_path):
    root = _sources(tmp_path)
    once = postprocess.switch_language(HEADER, "chapters/a/b.html", ZH, root)
    twice = postprocess.switch_language(once, "chapters/a/b.html", ZH, root)
    assert once == twice and once.count("course-language") == 1
    assert '<div class="article-header-buttons">\n<a class="btn btn-sm course-language" href="../../en/chapters/a/b.html"' in once
    assert 'hreflang="en" lang="en"' in once and '<link rel="alternate" hreflang="en"' in once
    english = postprocess.switch_language(HEADER, "chapters/a/b.html", EN, root / "en")
    assert ">中文</a>" in english and 'hreflang="zh"' in english


def test_english_pages_use_the_one_tools_runtime():
    html = '<script type="module" src="../_tools/tools.js"></script>'
    once = postprocess.shared_tools(html, depth=1)
    assert once == '<script type="module" src="../../_tools/tools.js"></script>'
    assert postprocess.shared_tools(once, depth=1) == once


def test_theme_strings_stay_english_in_the_english_book():
    page = '<input placeholder="Search this book..." /><a href="_sources/a.ipynb" title="Download source file">'
    assert "在本课程中搜索" in postprocess.rewrite_page(page, lang=ZH)
    english = postprocess.rewrite_page(page, lang=EN)
    assert "Search this book..." in english and 'title="Download the notebook (with outputs' in english


def test_npu_notes_and_paths_in_english():
    stamp = {"device": "Ascend910B3", "driver": "24.1", "date": "2026-11-30"}
    assert stamp_text(stamp, EN) == "device Ascend910B3, driver 24.1, date 2026-11-30"
    assert npu_note("%%npu 见第 3 节\nx", True, stamp, EN).startswith("The output below was recorded on real Ascend hardware")
    assert npu_note("%%npu 见第 3 节\nx", False, None, EN).endswith("Reference: 见第 3 节.")
    assert "（没有 NPU 的机器不执行本单元）" in npu_note("x", False, None, ZH)
    import sys

    assert scrub_paths(f"{sys.prefix}/bin/python", path_replacements(EN)) == "<Python environment>/bin/python"


def test_english_download_installs_npulab_and_answers_in_english():
    source = download_notebooks.install_source("https://x.org/en/_sources/a.ipynb", "w.whl", ["torch==2.13.0"], EN)
    compile(source, "install", "exec")
    assert 'os.environ.setdefault("NPULAB_LANG", "en")' in source
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in source)
    assert download_notebooks.note_text("chapters/a", None, EN).startswith("**This is the version the course site executed")
    chinese = download_notebooks.install_source("https://x.org/_sources/a.ipynb", "w.whl", ["torch==2.13.0"])
    assert "NPULAB_LANG" not in chinese and "npulab 已安装" in chinese


def test_run_page_and_learning_path_in_english():
    unset = run_page.Setting()
    for name in ("buttons", "download", "clone", "binder", "modelarts"):
        text = run_page.part(name, unset, [("T", "chapters/x/a")], "en")
        assert text and not any("\u4e00" <= ch <= "\u9fff" for ch in text), name
    site = run_page.Setting(repository="https://github.com/o/r", site="https://o.github.io/r/")
    assert "Open in CodeLab" in run_page.part("modelarts", site, [("T", "chapters/x/a")], "en")
    toc, part, header = book_toc.LEARNING_PATH["en"]
    path = book_toc.learning_path_markdown(toc, part, header)
    assert path.startswith("| Chapter | Topic | Lessons |") and "chapters/01_environment/index.md" in path


def test_status_tables_in_english():
    from npulab.site import status_page

    row = status_page.LessonStatus("en/chapters/a.ipynb", "A lesson", 12.0, 2, 0, None)
    found = status_page.tables([row], {"torch": "2.13.0", "x": "未安装"}, {"t": "未注明"}, "en")
    text = repr(found)
    assert "CPU run time / s (measured)" in text and "not recorded yet" in text and "not installed" in text
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in text)
    assert "尚未录制" in repr(status_page.tables([row], {}, {}))
