"""The site's build helpers without building the site: NPU-cell notes, path scrubbing, HTML post-processing,
the status page's data."""

from __future__ import annotations

import sys
import tempfile

import nbformat
import pytest

from npulab.core.paths import REPO_ROOT
from npulab.site import postprocess, sphinx_extension, status_page

STAMP = {"device": "Ascend910B3", "driver": "25.3.rc1", "cann": "9.1.0", "torch": "2.12.0",
         "torch_npu": "2.12.0", "date": "2026-12-01"}


# ---- NPU cells ------------------------------------------------------------------------------------------------

def test_npu_note_uses_the_cells_own_pointer_until_recorded():
    note = sphinx_extension.npu_note("%%npu 本节第 3 节的表格\nimport torch_npu", has_output=False, stamp=None)
    assert note.startswith("尚未在昇腾硬件上录制输出") and note.endswith("参考：本节第 3 节的表格。")


def test_npu_note_without_pointer_names_the_surrounding_text():
    assert "参考：本单元前后的正文说明。" in sphinx_extension.npu_note("%%npu\nx = 1", has_output=False, stamp=None)


def test_npu_note_shows_the_stamp_once_recorded():
    note = sphinx_extension.npu_note("%%npu\nx", has_output=True, stamp=STAMP)
    for value in ("Ascend910B3", "驱动 25.3.rc1", "CANN 9.1.0", "torch_npu 2.12.0", "2026-12-01"):
        assert value in note


def test_output_without_stamp_is_not_called_recorded():
    # outputs with no recording stamp did not come from `make record-npu`: never present them as recorded
    assert sphinx_extension.npu_note("%%npu\nx", has_output=True, stamp=None).startswith("尚未")


def test_badges_are_added_to_npu_cell_containers_only():
    from docutils import nodes

    doc = nodes.section()
    for tags in (["tag_npu", "tag_skip-execution"], []):
        cell = nodes.container(classes=["cell", *tags], nb_element="cell_code")
        source = nodes.container(classes=["cell_input"])
        source += nodes.literal_block(text="%%npu 见第 2 节\nprint(1)")
        cell += source
        doc += cell
    assert sphinx_extension.add_npu_badges(doc, None) == 1
    badges = [n for n in doc.findall(nodes.inline) if "npu-badge" in n["classes"]]
    assert len(badges) == 1 and badges[0].astext() == "需要昇腾 NPU"
    assert "参考：见第 2 节。" in doc.astext()


# ---- build-machine paths --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    (f"{sys.prefix}/bin/python", "<Python 环境>/bin/python"),
    (f"已写入 {REPO_ROOT}/npulab/data/x.yaml", "已写入 <课程目录>/npulab/data/x.yaml"),
    (f"{tempfile.gettempdir()}/tmpab12_cd/model.onnx", "<临时目录>/model.onnx"),
    ("/usr/local/Ascend/cann/set_env.sh", "/usr/local/Ascend/cann/set_env.sh"),  # a real, documented path stays
])
def test_scrub_paths(text, expected):
    assert sphinx_extension.scrub_paths(text) == expected


# ---- HTML post-processing -------------------------------------------------------------------------------------

PAGE = """<html><head>
  <script defer src="../_static/scripts/fontawesome.js?digest=1"></script>
  <script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>
    <script src="../_static/searchtools.js"></script>
    <script src="../_static/language_data.js"></script>
    <script src="../searchindex.js"></script>
</head><body><input placeholder="Search this book..."><span class="btn__text-container">Repository</span>
<i class="fa-solid fa-bars"></i>{body}</body></html>"""


def test_rewrite_page_drops_heavy_scripts_and_english_strings():
    out = postprocess.rewrite_page(PAGE.format(body="<p>没有公式</p>").replace(
        "</head>", '<script>window.MathJax = {"options": {}}</script></head>'))
    for gone in ("fontawesome.js", "mathjax", "searchindex.js", "searchtools.js", "Search this book", "Repository"):
        assert gone not in out
    assert "在本课程中搜索" in out and "源代码仓库" in out


def test_rewrite_page_keeps_mathjax_where_there_is_math_and_search_on_the_search_page():
    page = PAGE.format(body='<span class="math notranslate nohighlight">\\(x\\)</span>')
    out = postprocess.rewrite_page(page, search_page=True)
    assert "mathjax" in out and "searchindex.js" in out
    assert postprocess.rewrite_page(out, search_page=True) == out  # idempotent


def test_icon_codepoints_and_usage():
    css = '.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}.fa-moon:before{content:"\\f186"}'
    table = postprocess.icon_codepoints(css)
    assert table == {"bars": 0xF0C9, "navicon": 0xF0C9, "moon": 0xF186}
    assert postprocess.used_icons(['<i class="fa-solid fa-bars">', "x.classList.add('fa-moon')"]) >= {
        "bars", "moon", "solid"}


def test_not_found_page_is_self_contained(tmp_path):
    page = postprocess.write_not_found(tmp_path, "昇腾 NPU 编程实战", "/course").read_text(encoding="utf-8")
    assert "页面不存在" in page and 'href="/course/intro.html"' in page and "_static" not in page


# ---- status page data -----------------------------------------------------------------------------------------

def _notebook(path, npu_cells: int, recorded: int, stamp=None):
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_markdown_cell("# 一节课\n\n正文"))
    for i in range(npu_cells):
        cell = nbformat.v4.new_code_cell("%%npu\nprint(1)", metadata={"tags": ["npu", "skip-execution"]})
        if i < recorded:
            cell.outputs = [nbformat.v4.new_output("stream", text="npu:0\n")]
            cell.metadata["npu_recording"] = True
        nb.cells.append(cell)
    nb.cells.append(nbformat.v4.new_code_cell("x = 1"))
    if stamp:
        nb.metadata["course"] = {"npu_recording": stamp}
    nbformat.write(nb, str(path))
    return path


def test_lesson_status_counts_npu_and_recorded_cells(tmp_path):
    fresh = status_page.lesson_status(_notebook(tmp_path / "a.ipynb", 3, 0), runtime_s=12.34)
    assert (fresh.title, fresh.npu_cells, fresh.recorded_cells, fresh.recorded_on) == ("一节课", 3, 0, "")
    done = status_page.lesson_status(_notebook(tmp_path / "b.ipynb", 2, 2, STAMP))
    assert done.recorded_cells == 2 and done.recorded_on.startswith("Ascend910B3") and "cann 9.1.0" in done.recorded_on


def test_status_tables_label_and_total_the_numbers(tmp_path):
    rows = [status_page.lesson_status(_notebook(tmp_path / "a.ipynb", 1, 0), 10.0),
            status_page.lesson_status(_notebook(tmp_path / "b.ipynb", 0, 0), 2.5)]
    lessons, packages, compat = status_page.tables(rows, {"torch": "2.13.0"}, {"表": "2026-11-29"})
    assert "实测" in lessons[1][1] and lessons[2][-1] == ["合计（推导：各行之和）", "12.5", "1", "0", ""]
    assert lessons[2][0][4] == "尚未录制" and lessons[2][1][4] == "—"  # no npu cells: nothing to record
    assert packages[2] == [["torch", "2.13.0"]] and compat[2] == [["表", "2026-11-29"]]
    assert "| 合计（推导：各行之和） | 12.5 |" in status_page.format_markdown(rows, {}, {})


def test_real_course_data_feeds_the_status_page():
    assert status_page.package_versions(("torch", "no-such-package-xyz")) == {
        "torch": status_page.package_versions(("torch",))["torch"], "no-such-package-xyz": "未安装"}
    snapshot = status_page.compat_snapshot()
    assert snapshot and all(len(date) == 10 for date in snapshot.values())


# ---- quotation marks ------------------------------------------------------------------------------------------

def test_straight_quotes_become_chinese_pairs_outside_code():
    from docutils import nodes

    para = nodes.paragraph()
    para += nodes.Text('本节从"让 PyTorch 认出 NPU"开始，把 "')
    para += nodes.literal(text='"cuda"')
    para += nodes.Text('" 换成 "npu"。')
    odd = nodes.paragraph(text='只有一个 " 的段落')
    code = nodes.literal_block(text='print("x")')
    doc = nodes.section()
    doc += [para, odd, code]
    sphinx_extension.pair_quotes(doc)
    assert para.astext() == '本节从“让 PyTorch 认出 NPU”开始，把 “"cuda"” 换成 “npu”。'
    assert odd.astext() == '只有一个 " 的段落' and code.astext() == 'print("x")'


def test_pdf_link_follows_page_depth_and_disappears_without_a_pdf():
    footer = '<p>来源说明 <a class="course-pdf" href="course.pdf">下载全书 PDF</a></p>'
    assert 'href="../../course.pdf"' in postprocess.link_pdf(footer, 2, has_pdf=True)
    assert "course-pdf" not in postprocess.link_pdf(footer, 0, has_pdf=False)


# ---- publishing -----------------------------------------------------------------------------------------------

def test_publish_workflow_builds_from_cache_checks_links_and_deploys():
    import yaml

    flow = yaml.safe_load((REPO_ROOT / ".github" / "workflows" / "publish.yml").read_text(encoding="utf-8"))
    triggers = flow[True]  # YAML 1.1 reads the key `on` as True
    assert "push" in triggers and triggers["schedule"][0]["cron"]
    steps = flow["jobs"]["build"]["steps"]
    by_name = {s.get("name", s.get("uses", "")): s for s in steps}
    assert by_name["Execution cache"]["if"] == "github.event_name != 'schedule'"  # weekly: full rebuild
    assert by_name["Check external links (reported, never fatal)"]["continue-on-error"] is True
    assert flow["jobs"]["build"]["env"]["COURSE_PUBLISH"] == "1"
    assert any("deploy-pages" in s.get("uses", "") for s in flow["jobs"]["deploy"]["steps"])


def test_publishing_refuses_the_placeholder_repository(monkeypatch):
    from types import SimpleNamespace

    from sphinx.errors import ConfigError

    config = SimpleNamespace(html_theme_options={"repository_url": "https://github.com/ascend-npu-course/ascend-npu-course"})
    monkeypatch.setenv("COURSE_PUBLISH", "1")
    with pytest.raises(ConfigError, match="repository.url"):
        sphinx_extension.check_repository(None, config)
    config.html_theme_options["repository_url"] = "https://github.com/someone/ascend-course"
    sphinx_extension.check_repository(None, config)
    monkeypatch.delenv("COURSE_PUBLISH")
    config.html_theme_options["repository_url"] = "https://github.com/ascend-npu-course/ascend-npu-course"
    sphinx_extension.check_repository(None, config)  # local builds are not publishing builds


def test_figures_open_at_full_size_on_click():
    page = '<p><img alt="图" src="../_images/tree.png" /></p><a href="x"><img src="../_images/logo.png" /></a>'
    out = postprocess.zoomable_images(page)
    assert out.count('class="course-zoom"') == 1 and 'href="../_images/tree.png"' in out
    assert postprocess.zoomable_images(out) == out  # idempotent: the wrapped image is now inside a link


def test_head_scripts_are_deferred_in_order():
    head = ('<head><script data-cfasync="false">document.documentElement.dataset.mode = "light";</script>'
            '<script src="a.js"></script><script>A.page = "x";</script><script>let hint = \'点击\';</script>'
            '<script async="async" src="t.js"></script>'
            '<script type="text/x-thebe-config">{}</script></head><body><script>late()</script></body>')
    out = postprocess.defer_head_scripts(head)
    assert '<script data-cfasync="false">document' in out  # before any deferred script: stays inline, runs first
    assert '<script defer src="a.js">' in out
    assert '<script defer src="data:text/javascript;charset=utf-8,A.page%20%3D%20%22x%22%3B"></script>' in out
    assert "<script>let hint = '点击';</script>" in out  # a constant stays inline: deferred scripts read it
    assert '<script async="async" src="t.js">' in out and 'x-thebe-config">{}' in out and "<script>late()" in out
    assert postprocess.defer_head_scripts(out) == out


def test_css_icon_code_points_outside_the_class_table():
    css = ('.fa-bars:before{content:"\\f0c9"}:root{--pst-icon-info:"\uf05a"}'
           '.admonition-title:after{content:"\\f06a";font:var(--fa-font-solid)}')
    assert postprocess.css_codepoints(css) == {0xF05A, 0xF06A}


# ---- issue 22: one repository setting, 404 base, quiz sources, staged results -------------------------------

def test_unset_repository_removes_every_button_that_would_lead_nowhere(monkeypatch):
    from types import SimpleNamespace

    monkeypatch.delenv("COURSE_PUBLISH", raising=False)
    options = {"repository_url": "https://github.com/<owner>/<repo>", "use_repository_button": True,
               "use_issues_button": True, "launch_buttons": {"binderhub_url": "https://mybinder.org",
                                                             "notebook_interface": "jupyterlab"}}
    config = SimpleNamespace(html_theme_options=options)
    assert sphinx_extension.repository_url(config) == ""
    sphinx_extension.check_repository(None, config)
    assert options["repository_url"] == "" and not options["use_repository_button"] and not options["use_issues_button"]
    assert options["launch_buttons"]["binderhub_url"] == "" and options["launch_buttons"]["notebook_interface"] == "jupyterlab"
    kept = {"repository_url": "https://github.com/someone/ascend-course", "use_repository_button": True}
    sphinx_extension.check_repository(None, SimpleNamespace(html_theme_options=kept))
    assert kept["use_repository_button"] and kept["repository_url"].endswith("ascend-course")


def test_repository_address_is_filled_in_where_a_page_asks_for_it():
    from docutils import nodes

    block = nodes.literal_block("git clone <课程仓库地址>", "git clone <课程仓库地址>")
    doc = nodes.section("", block)
    assert sphinx_extension.fill_repository(doc, "") == 0 and "<课程仓库地址>" in block.astext()
    assert sphinx_extension.fill_repository(doc, "https://github.com/a/b") == 1
    assert block.astext() == block.rawsource == "git clone https://github.com/a/b"  # still highlighted


def test_pages_base_follows_the_repository(monkeypatch):
    monkeypatch.delenv("COURSE_BASE_PATH", raising=False)
    assert postprocess.pages_base("https://github.com/someone/ascend-course") == "/ascend-course/"
    assert postprocess.pages_base("https://github.com/someone/someone.github.io") == "/"
    assert postprocess.pages_base("") == "/"
    monkeypatch.setenv("COURSE_BASE_PATH", "/x/")
    assert postprocess.pages_base("https://github.com/someone/ascend-course") == "/x/"


def test_notebook_links_lead_to_built_pages(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "a.html").write_text("", encoding="utf-8")
    page = tmp_path / "notebooks" / "quizzes.html"
    html = '<a href="../chapters/a.ipynb#s">x</a><a href="../chapters/b.ipynb">y</a><a href="https://e.org/c.ipynb">z</a>'
    out = postprocess.link_notebooks(html, page)
    assert 'href="../chapters/a.html#s"' in out and 'href="../chapters/b.ipynb"' in out and "https://e.org/c.ipynb" in out


def test_quiz_source_is_a_link_named_after_the_lesson():
    from npulab.course import quiz

    out = quiz._source_html("chapters/01_environment/02_hello_npu.ipynb")
    assert out.startswith('<a class="quiz-source" href="../chapters/01_environment/02_hello_npu.ipynb">')
    assert "Hello NPU" in out and "chapters/" not in out.split(">", 1)[1]


def test_staged_notebooks_drop_results_hidden_by_a_semicolon():
    import importlib.util

    spec = importlib.util.spec_from_file_location("root_conftest", REPO_ROOT / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)

    cell = nbformat.v4.new_code_cell('lab.check("visible", device_id);')
    result = {"output_type": "execute_result", "data": {"text/plain": "False"}}
    assert conftest._hidden_by_semicolon(cell, result)
    assert not conftest._hidden_by_semicolon(cell, {"output_type": "stream", "text": "✓ visible"})
    assert not conftest._hidden_by_semicolon(nbformat.v4.new_code_cell("lab.report()"), result)
