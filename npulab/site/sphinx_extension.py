"""Sphinx extension for the course site (listed under ``sphinx.extra_extensions`` in ``_config.yml``).

What it does, and why (docs/site.md has the reader-facing side):

* NPU cells explain themselves: every cell tagged ``npu`` gets a badge 「需要昇腾 NPU」 and a one-line note — either
  "not recorded yet, reference: …" (the ``%%npu`` line's own pointer) or the recording stamp (device, driver, CANN,
  torch_npu, date) that ``make record-npu`` wrote into the notebook metadata.
* No build-machine paths on pages: the repository root, the interpreter prefix and temporary folders in cell
  outputs are shown as ``<课程目录>``, ``<Python 环境>`` and ``<临时目录>``.
* The ``course-status`` directive renders the status page from the build itself (:mod:`npulab.site.status_page`).
* Lighter pages, after the HTML is written: the 1.5 MB Font Awesome script is dropped (the theme's CSS already
  draws the icons from a web font, which is subset to the icons the site uses), MathJax is kept only on pages with
  math, and the theme's strings are patched to Simplified Chinese.
* One repository setting (``repository.url``): with ``COURSE_PUBLISH=1`` the build fails while it is unset (or a
  placeholder); other builds then show no repository, issue or launch buttons, never links that lead nowhere.
  Where a page says ``<课程仓库地址>`` the address is filled in.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from npulab.course.run_claims import RUN_CLAIM, run_time_text
from npulab.lint import expected_output
from npulab.site import run_page, settings
from npulab.site.language import EN, ZH, language_of, site_text
from npulab.site.paths import path_replacements, scrub_paths  # noqa: F401 (scrub_paths: tests, callers)
from npulab.site.search_zh import CourseSearchChinese

NPU_CLASS = "tag_npu"
PLACEHOLDER_REPOS = settings.PLACEHOLDER_REPOS


# --------------------------------------------------------------------------------------------------------------
# NPU cells: badge and note
# --------------------------------------------------------------------------------------------------------------

def npu_reference(source: str) -> str:
    """The pointer a ``%%npu`` cell gives on its first line (empty when it gives none)."""
    first = source.lstrip().split("\n", 1)[0]
    return first[len("%%npu"):].strip() if first.startswith("%%npu") else ""


def stamp_text(stamp: dict, lang: str = ZH) -> str:
    """The recording stamp in one line: device, driver, CANN, torch_npu, date."""
    labels = (("device", site_text("stamp_device", lang)), ("driver", site_text("stamp_driver", lang)), ("cann", "CANN"),
              ("torch_npu", "torch_npu"), ("date", site_text("stamp_date", lang)))
    return site_text("stamp_separator", lang).join(f"{label} {stamp[key]}" for key, label in labels if stamp.get(key))


def npu_note(source: str, has_output: bool, stamp: dict | None, lang: str = ZH) -> str:
    """The one-line note shown beside an NPU cell on the site (the ``%%npu`` pointer is the code's own words)."""
    if has_output and stamp:
        return site_text("npu_recorded", lang, stamp=stamp_text(stamp, lang))
    ref = npu_reference(source)
    if not ref:
        where = site_text("npu_see_prose", lang)
    elif lang == ZH:
        where = expected_output.label(ref)
    else:
        where = site_text("npu_reference", lang, text=ref.strip().rstrip("。."))
    return site_text("npu_not_recorded", lang, where=where)


def _notebook_stamp(env, docname: str) -> dict | None:
    path = Path(env.doc2path(docname))
    if path.suffix != ".ipynb":
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError):
        return None
    stamp = meta.get("course", {}).get("npu_recording")
    return stamp if isinstance(stamp, dict) else None


def add_npu_badges(doctree, stamp: dict | None, lang: str = ZH) -> int:
    """Put the badge and note at the top of every NPU cell container; return how many cells got one."""
    count = 0
    for cell in list(doctree.findall(nodes.container)):
        if NPU_CLASS not in cell.get("classes", []) or cell.get("nb_element") != "cell_code":
            continue
        source = "".join(b.astext() for b in cell.findall(nodes.literal_block)
                         if "cell_input" in (b.parent.get("classes", []) if b.parent else []))
        has_output = any("cell_output" in c.get("classes", []) for c in cell.findall(nodes.container))
        note = nodes.paragraph(classes=["npu-cell-note"])
        note += nodes.inline(text=site_text("npu_badge", lang), classes=["npu-badge"])
        note += nodes.Text(" " + npu_note(source, has_output, stamp, lang))
        cell.insert(0, note)
        count += 1
    return count


# --------------------------------------------------------------------------------------------------------------
# Quotation marks
# --------------------------------------------------------------------------------------------------------------

NO_QUOTES = (nodes.literal, nodes.literal_block, nodes.raw, nodes.math, nodes.math_block, nodes.comment)


def _own_texts(element) -> list:
    """Text nodes whose nearest text-element ancestor is ``element``, outside code, math and raw HTML."""
    found = []

    def walk(node):
        for child in node.children:
            if isinstance(child, nodes.Text):
                found.append(child)
            elif isinstance(child, nodes.Inline) and not isinstance(child, NO_QUOTES):
                walk(child)

    walk(element)
    return found


def pair_quotes(doctree) -> int:
    """Turn straight double quotes in prose into “…” pairs, per paragraph (Sphinx's smart quotes are off:
    after Chinese text they produced ”…”). A paragraph with an odd number of quotes is left as it is."""
    changed = 0
    for element in list(doctree.findall(nodes.TextElement)):
        if isinstance(element, NO_QUOTES + (nodes.FixedTextElement,)) or isinstance(element, nodes.Inline):
            continue
        texts = _own_texts(element)
        if sum(str(t).count('"') for t in texts) % 2 or not any('"' in str(t) for t in texts):
            continue
        opening = True
        for text in texts:
            if '"' not in str(text):
                continue
            out = []
            for ch in str(text):
                if ch == '"':
                    out.append("“" if opening else "”")
                    opening = not opening
                else:
                    out.append(ch)
            text.parent.replace(text, nodes.Text("".join(out)))
            changed += 1
    return changed


# --------------------------------------------------------------------------------------------------------------
# Build-machine paths
# --------------------------------------------------------------------------------------------------------------

def _in_cell_source(node) -> bool:
    """Whether ``node`` is part of a code cell's source (the repository's own text: shown as written)."""
    parent = node.parent
    while parent is not None:
        if isinstance(parent, nodes.container) and "cell_input" in parent.get("classes", []):
            return True
        parent = parent.parent
    return False


def scrub_doctree_paths(doctree, lang: str = ZH) -> None:
    """Build-machine paths in outputs and prose become neutral names; code cell sources stay as written (a lesson
    that writes to ``/tmp/npulab_msprof`` must show that path, not ``<临时目录>``)."""
    pairs = path_replacements(lang)
    for node in list(doctree.findall(nodes.Text)):
        if _in_cell_source(node):
            continue
        new = scrub_paths(str(node), pairs)
        if new != str(node):
            node.parent.replace(node, nodes.Text(new))
    for node in doctree.findall(nodes.raw):  # HTML outputs (tables from npulab)
        new = scrub_paths(node.astext(), pairs)
        if new != node.astext():
            node.children = [nodes.Text(new)]


# --------------------------------------------------------------------------------------------------------------
# Run times: a lesson's "CPU 上运行全部单元约 N 分钟" on the site is the measured time (notebook_times.yaml)
# --------------------------------------------------------------------------------------------------------------

def fill_run_time(doctree, relpath: str, times: dict) -> int:
    """Replace the typed run-time claim of the lesson at ``relpath`` by the measured one; return how many."""
    changed = 0
    for node in list(doctree.findall(nodes.Text)):
        if RUN_CLAIM.search(str(node)):
            text = RUN_CLAIM.sub(run_time_text(times.get("seconds", {}).get(relpath), times), str(node))
            node.parent.replace(node, nodes.Text(text))
            changed += 1
    return changed


# --------------------------------------------------------------------------------------------------------------
# Status page
# --------------------------------------------------------------------------------------------------------------

class status_placeholder(nodes.General, nodes.Element):
    """Filled in after all documents were read (execution times are known only then)."""


class CourseStatus(SphinxDirective):
    has_content = False

    def run(self):
        return [status_placeholder()]


def _table(caption: str, header: list[str], rows: list[list[str]], ident: str):
    table = nodes.table(classes=["course-status"], ids=[ident])
    table += nodes.title(text=caption)
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    for part, lines in ((nodes.thead(), [header]), (nodes.tbody(), rows)):
        for cells in lines:
            row = nodes.row()
            for text in cells:
                entry = nodes.entry()
                entry += nodes.paragraph(text=text)
                row += entry
            part += row
        group += part
    return table


def status_tables(app) -> list:
    from npulab.site import status_page

    env = app.env
    nb_data = getattr(env, "nb_metadata", None) or {}
    rows = []
    for docname in sorted(env.found_docs, key=lambda d: str(env.doc2path(d))):
        path = Path(env.doc2path(docname))
        if path.suffix != ".ipynb":
            continue
        exec_data = (nb_data.get(docname) or {}).get("exec_data") or {}
        rows.append(status_page.lesson_status(path, exec_data.get("runtime")))
    found = status_page.tables(rows, status_page.package_versions(), status_page.compat_snapshot(), site_language(app))
    return [_table(*t, ident=f"course-status-{i}") for i, t in enumerate(found, 1)]


def always_rebuild_status(app, env, added, changed, removed):
    # the status page (execution times) and the run-on-NPU page (the site's address) depend on more than their source
    return [d for d in env.found_docs if d.endswith(("status", "run_on_npu"))] if env.found_docs else []


# --------------------------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------------------------

def site_language(app) -> str:
    return language_of(app.config.language)


def on_doctree_resolved(app, doctree, docname):
    lang = site_language(app)
    add_npu_badges(doctree, _notebook_stamp(app.env, docname), lang)
    scrub_doctree_paths(doctree, lang)
    if lang == ZH:  # straight quotes after Chinese text; English prose keeps the quotes it was written with
        pair_quotes(doctree)
    fill_repository(doctree, repository_url(app.config))
    source = Path(app.env.doc2path(docname))
    if source.suffix == ".ipynb":
        from npulab.workshop.agenda import load_times

        fill_run_time(doctree, source.relative_to(app.srcdir).as_posix(), load_times())
    for node in list(doctree.findall(status_placeholder)):
        node.replace_self(status_tables(app))


def repository_url(config) -> str:
    """The repository address this build uses (after :func:`check_repository`); empty while unset or a placeholder."""
    return settings.repository(str((config.html_theme_options or {}).get("repository_url", "") or ""))


REPOSITORY_BUTTONS = ("use_repository_button", "use_issues_button", "use_edit_page_button", "use_source_button")
LAUNCH_SERVICES = ("binderhub_url", "jupyterhub_url", "colab_url", "deepnote_url", "jupyterlite_url")


def check_repository(app, config):
    """One setting for the repository address: ``COURSE_REPOSITORY`` (else ``repository.url`` of ``_config.yml``).
    Set, it becomes the theme's repository and the launch buttons' source (``COURSE_JUPYTERHUB`` adds a JupyterHub
    button). Unset, publishing (``COURSE_PUBLISH=1``) fails, and any other build says so and shows no repository,
    issue or launch buttons at all (they would lead nowhere)."""
    options = config.html_theme_options
    url = repository_url(config)
    if url:
        if options is not None:
            options["repository_url"] = url
            launch = dict(options.get("launch_buttons") or {})
            launch["jupyterhub_url"] = settings.jupyterhub(launch.get("jupyterhub_url", ""))
            options["launch_buttons"] = launch
        return
    if os.environ.get("COURSE_PUBLISH") == "1":
        from sphinx.errors import ConfigError

        given = (options or {}).get("repository_url", "")
        raise ConfigError(f"发布构建需要课程仓库的真实地址：设置环境变量 {settings.REPOSITORY_ENV}，或在 _config.yml "
                          f"的 repository.url 中填写（现为 {given!r}）。")
    if app is not None:
        from sphinx.util import logging

        logging.getLogger(__name__).info(
            f"课程网站：没有设置课程仓库地址（{settings.REPOSITORY_ENV}），页面上没有启动、源代码仓库与提交问题按钮。")
    if options is None:
        return
    options["repository_url"] = ""
    for key in REPOSITORY_BUTTONS:
        options[key] = False
    launch = dict(options.get("launch_buttons") or {})
    for key in LAUNCH_SERVICES:
        launch[key] = ""  # every launch service clones the repository
    options["launch_buttons"] = launch


def run_setting(config) -> run_page.Setting:
    """What this build offers, for the run-on-NPU page."""
    options = config.html_theme_options or {}
    launch = options.get("launch_buttons") or {}
    repo = repository_url(config)
    return run_page.Setting(repository=repo, branch=str(options.get("repository_branch") or "main"),
                            hub=str(launch.get("jupyterhub_url") or ""), binder=str(launch.get("binderhub_url") or ""),
                            site=settings.site_url(repo))


def _parsed(directive: SphinxDirective, text: str, classes: list[str]):
    """MyST Markdown ``text`` parsed in place of ``directive``, inside a container with ``classes``."""
    from docutils.statemachine import StringList

    container = nodes.container(classes=classes)
    directive.state.nested_parse(StringList(text.splitlines(), source=directive.get_source_info()[0]),
                                 directive.content_offset, container)
    return [container]


class CoursePath(SphinxDirective):
    """``{course-path}``: the learning path (every chapter and lesson of ``_toc.yml``), for the home page."""

    has_content = False

    def run(self):
        from npulab.course import book_toc

        toc_file, part, header = book_toc.LEARNING_PATH[language_of(self.config.language)]
        self.env.note_dependency(str(toc_file))
        return _parsed(self, book_toc.learning_path_markdown(toc_file, part, header), ["course-path"])


class CourseRun(SphinxDirective):
    """``{course-run} <part>``: a part of the run-on-NPU page written from this build's repository setting."""

    required_arguments = 1
    has_content = False

    def run(self):
        from npulab.course import book_toc

        lang = language_of(self.config.language)
        lessons = [(p.title, p.file) for p in book_toc.lessons(book_toc.LEARNING_PATH[lang][0])]
        markdown = run_page.part(self.arguments[0], run_setting(self.config), lessons, lang)
        return _parsed(self, markdown, ["course-run", f"course-run-{self.arguments[0]}"])


REPO_MARK = site_text("repository_mark", ZH)
REPO_MARKS = (REPO_MARK, site_text("repository_mark", EN))


def fill_repository(doctree, url: str) -> int:
    """Write the repository address where a page says ``<课程仓库地址>`` (English: ``<course repository address>``,
    e.g. in ``git clone …``); unset, it stays."""
    if not url:
        return 0
    changed = 0
    for node in list(doctree.findall(nodes.Text)):
        mark = next((m for m in REPO_MARKS if m in str(node)), None)
        if mark:
            parent = node.parent
            parent.replace(node, nodes.Text(str(node).replace(mark, url)))
            if isinstance(parent, nodes.literal_block):  # Sphinx highlights a block only while rawsource == text
                parent.rawsource = parent.rawsource.replace(mark, url)
            changed += 1
    return changed


BUILD_MANIFEST = "course-build.json"


def on_build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    from npulab.site import download_notebooks, postprocess, wheel

    setting = run_setting(app.config)
    wheel_name = wheel.build(Path(app.outdir))
    manifest = {**setting.__dict__, "wheel": wheel_name}  # what this build offers (tests/site read it)
    (Path(app.outdir) / "_static" / BUILD_MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    lang = site_language(app)
    download_notebooks.publish(Path(app.outdir), setting.repository or None, wheel_name, setting.site, lang=lang)
    launch = (app.config.html_theme_options or {}).get("launch_buttons", {}) or {}
    postprocess.run(Path(app.outdir), str(app.config.html_title or app.config.project),
                    thebe=bool(launch.get("thebe")), repository=setting.repository, lang=lang,
                    source_dir=Path(app.srcdir))
    if lang == ZH:  # the English tools page loads the runtime the Chinese site serves (<site>/_tools)
        publish_browser_tools(app)


def publish_browser_tools(app) -> None:
    """The tools page's runtime and npulab bundle into ``<site>/_tools`` (npulab.site.browser_tools)."""
    from npulab.site import browser_tools

    if "about/tools" not in app.env.all_docs:
        return
    try:
        browser_tools.publish(Path(app.outdir))
    except browser_tools.RuntimeMissing as err:
        from sphinx.util import logging

        logging.getLogger(__name__).warning(str(err))  # with -W (make book, make test) the build fails


def setup(app):
    app.add_node(status_placeholder)
    app.add_directive("course-status", CourseStatus)
    app.add_directive("course-run", CourseRun)
    app.add_directive("course-path", CoursePath)
    app.connect("config-inited", check_repository)
    app.connect("env-get-outdated", always_rebuild_status)
    app.connect("doctree-resolved", on_doctree_resolved)
    app.connect("build-finished", on_build_finished)
    app.add_search_language(CourseSearchChinese)  # the Chinese index in seconds, not minutes (search_zh)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
