"""Issue 30: the repository setting, the run-on-NPU page written from it, downloads that install npulab, the
learning path, measured run times, full-width digits, favicon and figure text sizes (unit level; the built site is
checked in tests/site)."""

import base64
import json
import re
from types import SimpleNamespace

import pytest

from npulab.course import book_toc, quiz
from npulab.env import torch_install
from npulab.site import download_notebooks as dl
from npulab.site import postprocess, run_page, settings, sphinx_extension
from npulab.site.paths import path_replacements


@pytest.fixture
def no_setting(monkeypatch):
    for name in (settings.REPOSITORY_ENV, settings.HUB_ENV, settings.SITE_URL_ENV, "COURSE_PUBLISH"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_one_setting_holds_the_repository(no_setting):
    assert settings.repository("https://github.com/<owner>/<repo>") == ""
    assert settings.repository("https://github.com/a/b/") == "https://github.com/a/b"
    no_setting.setenv(settings.REPOSITORY_ENV, "https://github.com/org/course")
    assert settings.repository("https://github.com/<owner>/<repo>") == "https://github.com/org/course"
    assert settings.site_url("https://github.com/Org/course") == "https://org.github.io/course/"
    assert settings.site_url("https://github.com/org/org.github.io") == "https://org.github.io/"
    assert settings.site_url("https://gitee.com/org/course") == ""
    no_setting.setenv(settings.SITE_URL_ENV, "https://course.example.cn/npu")
    assert settings.site_url("") == "https://course.example.cn/npu/"


def test_modelarts_link_carries_the_notebook_address_in_base64():
    link = settings.modelarts_link("https://org.github.io/c/_sources/a.ipynb")
    assert link.startswith(settings.MODELARTS_LAB)
    assert base64.b64decode(link.split("share-url-b64=")[1]).decode() == "https://org.github.io/c/_sources/a.ipynb"


def test_setting_the_repository_turns_buttons_and_hub_on(no_setting):
    options = {"repository_url": "https://github.com/<owner>/<repo>", "use_repository_button": True,
               "launch_buttons": {"binderhub_url": "https://mybinder.org", "jupyterhub_url": ""}}
    no_setting.setenv(settings.REPOSITORY_ENV, "https://github.com/org/course")
    no_setting.setenv(settings.HUB_ENV, "https://hub.example.org/")
    config = SimpleNamespace(html_theme_options=options)
    sphinx_extension.check_repository(None, config)
    assert options["repository_url"] == "https://github.com/org/course" and options["use_repository_button"]
    assert options["launch_buttons"] == {"binderhub_url": "https://mybinder.org", "jupyterhub_url": "https://hub.example.org"}
    setting = sphinx_extension.run_setting(SimpleNamespace(html_theme_options=options))
    assert setting.site == "https://org.github.io/course/" and setting.hub and setting.binder


def test_run_page_promises_only_what_the_build_has():
    unset = run_page.Setting(binder="https://mybinder.org")
    text = run_page.part("buttons", unset)
    assert "没有" in text and "COURSE_REPOSITORY" in text and "火箭" not in text
    assert "git clone http" not in run_page.part("clone", unset) and "<课程仓库地址>" not in run_page.part("clone", unset)
    assert "没有 Binder 启动按钮" in run_page.part("binder", unset)
    assert "在 CodeLab 中打开" not in run_page.part("modelarts", unset, [("T", "chapters/x/a")])
    full = run_page.Setting("https://github.com/org/course", hub="https://hub.example.org",
                            binder="https://mybinder.org", site="https://org.github.io/course/")
    text = run_page.part("buttons", full)
    assert "Binder（仅 CPU）、JupyterHub" in text and "「源代码仓库」与「提交问题」" in text
    assert "git clone https://github.com/org/course" in run_page.part("clone", full)
    table = run_page.part("modelarts", full, [("第一课", "chapters/x/a")])
    link = re.search(r"\((https://authoring[^)]+)\)", table).group(1)
    assert base64.b64decode(link.split("=", 1)[1]).decode() == "https://org.github.io/course/_sources/chapters/x/a.ipynb"
    assert run_page.wheel_name() in run_page.part("download", full)
    with pytest.raises(ValueError, match="course-run"):
        run_page.part("nothing", full)


def test_download_is_clean_and_installs_what_it_imports(tmp_path):
    from npulab.core.paths import REPO_ROOT

    venv = path_replacements()[0][0].pattern  # the interpreter prefix comes first
    assert venv
    import sys

    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "a", "metadata": {"execution": {"iopub.execute_input": "2026"}},
         "source": "%load_ext npulab\nimport yaml\nfrom npulab.core import paths", "execution_count": 1,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": f"{sys.prefix}/lib/x.py {REPO_ROOT}/y\n"}]},
        {"cell_type": "code", "id": "b", "metadata": {"tags": ["remove-output"]}, "source": "print(2)",
         "execution_count": 2, "outputs": [{"output_type": "stream", "name": "stdout", "text": "2\n"}]}]}
    cleaned = dl.clean(nb)
    text = json.dumps(cleaned, ensure_ascii=False)
    assert sys.prefix not in text and str(REPO_ROOT) not in text and "<Python 环境>" in text
    assert cleaned["cells"][1]["outputs"] == [] and "execution" not in cleaned["cells"][0]["metadata"]
    requires = dl.requirements_for(cleaned, {"pyyaml": "pyyaml>=6"})
    assert "pyyaml>=6" in requires and any(r.startswith("torch") for r in requires)
    source = dl.install_source("", "../../_static/wheels/npulab-0.2.0-py3-none-any.whl", requires + ["torch==2.13.0"])
    assert dl.NOTEBOOK_URL_LINE.search(source) and "\"--index-url\", CPU_INDEX" in source \
        and f"CPU_INDEX = \"{torch_install.CPU_INDEX}\"" in source
    compile(source, "install", "exec")
    scope = {}
    exec(compile(source.replace("importlib.util.find_spec(\"npulab\") is not None", "False"), "install", "exec"), scope)  # no URL
    assert scope["NOTEBOOK_URL"] == ""
    assert scope["TORCH"] == "torch==2.13.0" and not any(r.startswith("torch==") for r in scope["REQUIRES"])


def test_publish_puts_note_and_install_cell_first(tmp_path):
    html = tmp_path / "html"
    executed = tmp_path / "jupyter_execute" / "chapters" / "c" / "a.ipynb"
    executed.parent.mkdir(parents=True)
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "c1", "metadata": {}, "source": "import yaml", "execution_count": 1,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}]}]}
    executed.write_text(json.dumps(nb))
    target = html / "_sources" / "chapters" / "c" / "a.ipynb"
    target.parent.mkdir(parents=True)
    target.write_text("{}")
    assert dl.publish(html, "https://github.com/o/r", "npulab-0.2.0-py3-none-any.whl", "https://o.github.io/r/") == 1
    cells = json.loads(target.read_text(encoding="utf-8"))["cells"]
    assert [c["id"] for c in cells] == [dl.NOTE_TAG, dl.INSTALL_ID, "c1"]
    assert 'NOTEBOOK_URL = "https://o.github.io/r/_sources/chapters/c/a.ipynb"' in cells[1]["source"]
    assert 'WHEEL = "../../../_static/wheels/npulab-0.2.0-py3-none-any.whl"' in cells[1]["source"]
    dl.publish(html, None, "npulab-0.2.0-py3-none-any.whl")  # again: replaced, not added
    assert len(json.loads(target.read_text(encoding="utf-8"))["cells"]) == 3


@pytest.mark.parametrize("typed, value", [("１２．５", 12.5), ("12。5", 12.5), ("－３", -3.0), ("−3", -3.0),
                                          ("1，024", 1024.0), (" 7 ", 7.0)])
def test_full_width_and_ime_digits_are_numbers(typed, value):
    assert float(quiz.normalize_number(typed)) == value
    q = quiz.Question("x", "numeric", "p", value, "e", "https://example.org", tolerance=0.01)
    assert quiz.grade(q, typed)[0]


def test_quiz_numbers_are_typed_with_a_numeric_keyboard():
    html = quiz.to_html(quiz.load("01"))
    assert 'normalize("NFKC")' in html
    assert all('inputmode="decimal"' in tag for tag in re.findall(r'<input type="text"[^>]*>', html))


def test_learning_path_names_every_lesson():
    text = book_toc.learning_path_markdown()
    for lesson in book_toc.lessons():
        assert f"[{lesson.title}]({lesson.path})" in text
    assert len(book_toc.lessons()) >= 19


def test_run_time_claims_become_measured_times():
    from docutils import nodes

    para = nodes.paragraph("", "", nodes.Text("40 分钟（CPU 上运行全部单元约 1 分钟）"))
    doc = nodes.section("", para)
    times = {"machine": "AMD EPYC，2 核", "date": "2026-12-01", "seconds": {"a.ipynb": 4.93}}
    assert sphinx_extension.fill_run_time(doc, "a.ipynb", times) == 1
    assert para.astext() == "40 分钟（CPU 上运行全部单元实测 4.9 s，AMD EPYC，2 核，2026-12-01）"
    para2 = nodes.paragraph("", "", nodes.Text("（CPU 上运行全部单元约半分钟）"))
    sphinx_extension.fill_run_time(nodes.section("", para2), "b.ipynb", times)
    assert para2.astext() == "（CPU 上运行全部单元：尚未实测）"


def test_favicon_is_written_and_linked_once(tmp_path):
    from PIL import Image

    path = postprocess.write_favicon(tmp_path)
    assert Image.open(path).format == "ICO"
    once = postprocess.link_favicon("<head></head>", 1)
    assert postprocess.link_favicon(once, 1) == once and 'href="../favicon.ico"' in once


def test_figures_get_the_width_at_which_their_smallest_text_is_readable(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from npulab.core.plotting import MIN_TEXT_KEY, smallest_text_px

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.set_title("标题", fontsize=14)
    ax.text(0.5, 0.5, "小", fontsize=7)
    px = smallest_text_px(fig)
    assert px == pytest.approx(7 * 110 / 72)
    images = tmp_path / "_images"
    images.mkdir()
    fig.savefig(images / "f.png", metadata={"Description": f"{MIN_TEXT_KEY}={px:.2f}"})
    plt.close(fig)
    page = tmp_path / "p.html"
    html = '<img alt="" src="_images/f.png" />'
    out = postprocess.readable_figures(html, page, {})
    width = postprocess.png_min_text_px(images / "f.png")[1]
    need = int(re.search(r"--course-fig-min: (\d+)px", out).group(1))
    assert need * px / width >= 11 > (need - 2) * px / width
    assert postprocess.readable_figures(out, page, {}) == out


def test_download_sources_stay_as_written():
    src = 'path = "/tmp/course-data"'
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "a", "metadata": {}, "source": src, "execution_count": 1,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": "/tmp/abc/x\n"}]}]}
    cleaned = dl.clean(nb)
    assert cleaned["cells"][0]["source"] == src and "<临时目录>" in cleaned["cells"][0]["outputs"][0]["text"]


def test_page_code_sources_keep_their_paths():
    from docutils import nodes

    source = nodes.literal_block('p = Path("/tmp/npulab_msprof_demo.py")', 'p = Path("/tmp/npulab_msprof_demo.py")')
    output = nodes.literal_block("/tmp/abc/x", "/tmp/abc/x")
    doc = nodes.section("", nodes.container("", source, classes=["cell_input"]),
                        nodes.container("", output, classes=["cell_output"]))
    sphinx_extension.scrub_doctree_paths(doc)
    assert "/tmp/npulab_msprof_demo.py" in source.astext() and output.astext() == "<临时目录>/x"
