"""Sphinx extension for the course site (listed under ``sphinx.extra_extensions`` in ``_config.yml``).

What it does, and why (docs/site.md has the reader-facing side):

* NPU cells explain themselves: every cell tagged ``npu`` gets a badge 「需要昇腾 NPU」 and a one-line note — either
  "not recorded yet, reference: …" (the ``%%npu`` line's own pointer) or the recording stamp (device, driver, CANN,
  torch_npu, date) that ``make record-npu`` wrote into the notebook metadata.
* No build-machine paths on pages: the repository root, the interpreter prefix and temporary folders in cell
  outputs are shown as ``<课程目录>``, ``<Python 环境>`` and ``<临时目录>``.
* The ``course-status`` directive renders the status page from the build itself (:mod:`npulab.course.status_page`).
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
import re
import sys
import tempfile
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from npulab.core.paths import REPO_ROOT
from npulab.course.lint import expected_output

NPU_CLASS = "tag_npu"
PLACEHOLDER_REPOS = ("ascend-npu-course/ascend-npu-course", "example.com", "your-org", "<")


# --------------------------------------------------------------------------------------------------------------
# NPU cells: badge and note
# --------------------------------------------------------------------------------------------------------------

def npu_reference(source: str) -> str:
    """The pointer a ``%%npu`` cell gives on its first line (empty when it gives none)."""
    first = source.lstrip().split("\n", 1)[0]
    return first[len("%%npu"):].strip() if first.startswith("%%npu") else ""


def stamp_text(stamp: dict) -> str:
    """The recording stamp in one line: device, driver, CANN, torch_npu, date."""
    labels = (("device", "设备"), ("driver", "驱动"), ("cann", "CANN"), ("torch_npu", "torch_npu"), ("date", "日期"))
    return "，".join(f"{label} {stamp[key]}" for key, label in labels if stamp.get(key))


def npu_note(source: str, has_output: bool, stamp: dict | None) -> str:
    """The one-line note shown beside an NPU cell on the site."""
    if has_output and stamp:
        return f"以下输出录制于真实昇腾硬件：{stamp_text(stamp)}。"
    ref = npu_reference(source)
    where = expected_output.label(ref) if ref else "参考：本单元前后的正文说明。"
    return f"尚未在昇腾硬件上录制输出（没有 NPU 的机器不执行本单元）。{where}"


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


def add_npu_badges(doctree, stamp: dict | None) -> int:
    """Put the badge and note at the top of every NPU cell container; return how many cells got one."""
    count = 0
    for cell in list(doctree.findall(nodes.container)):
        if NPU_CLASS not in cell.get("classes", []) or cell.get("nb_element") != "cell_code":
            continue
        source = "".join(b.astext() for b in cell.findall(nodes.literal_block)
                         if "cell_input" in (b.parent.get("classes", []) if b.parent else []))
        has_output = any("cell_output" in c.get("classes", []) for c in cell.findall(nodes.container))
        note = nodes.paragraph(classes=["npu-cell-note"])
        note += nodes.inline(text="需要昇腾 NPU", classes=["npu-badge"])
        note += nodes.Text(" " + npu_note(source, has_output, stamp))
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

def path_replacements() -> list[tuple[re.Pattern, str]]:
    """(pattern, shown-as) pairs, most specific first."""
    pairs = []
    for prefix, shown in ((sys.prefix, "<Python 环境>"), (str(REPO_ROOT), "<课程目录>"), (str(Path.home()), "~")):
        if prefix and prefix != "/":
            pairs.append((re.compile(re.escape(prefix.rstrip("/")) + r"(?=[/\s'\")\]:,]|$)"), shown))
    tmp = re.escape(tempfile.gettempdir().rstrip("/"))
    pairs.append((re.compile(tmp + r"/[A-Za-z0-9_.\-]+"), "<临时目录>"))
    return pairs


def scrub_paths(text: str, pairs: list[tuple[re.Pattern, str]] | None = None) -> str:
    """Replace build-machine paths in ``text`` by neutral names."""
    for pattern, shown in pairs or path_replacements():
        text = pattern.sub(shown, text)
    return text


def scrub_doctree_paths(doctree) -> None:
    pairs = path_replacements()
    for node in list(doctree.findall(nodes.Text)):
        new = scrub_paths(str(node), pairs)
        if new != str(node):
            node.parent.replace(node, nodes.Text(new))
    for node in doctree.findall(nodes.raw):  # HTML outputs (tables from npulab)
        new = scrub_paths(node.astext(), pairs)
        if new != node.astext():
            node.children = [nodes.Text(new)]


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
    from npulab.course import status_page

    env = app.env
    nb_data = getattr(env, "nb_metadata", None) or {}
    rows = []
    for docname in sorted(env.found_docs, key=lambda d: str(env.doc2path(d))):
        path = Path(env.doc2path(docname))
        if path.suffix != ".ipynb":
            continue
        exec_data = (nb_data.get(docname) or {}).get("exec_data") or {}
        rows.append(status_page.lesson_status(path, exec_data.get("runtime")))
    found = status_page.tables(rows, status_page.package_versions(), status_page.compat_snapshot())
    return [_table(*t, ident=f"course-status-{i}") for i, t in enumerate(found, 1)]


def always_rebuild_status(app, env, added, changed, removed):
    return [d for d in env.found_docs if d.endswith("status")] if env.found_docs else []


# --------------------------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------------------------

def on_doctree_resolved(app, doctree, docname):
    add_npu_badges(doctree, _notebook_stamp(app.env, docname))
    scrub_doctree_paths(doctree)
    pair_quotes(doctree)
    fill_repository(doctree, repository_url(app.config))
    for node in list(doctree.findall(status_placeholder)):
        node.replace_self(status_tables(app))


def repository_url(config) -> str:
    """The repository address set in ``_config.yml`` (``repository.url``); empty while unset or a placeholder."""
    url = str((config.html_theme_options or {}).get("repository_url", "") or "").strip()
    return "" if not url or any(p in url for p in PLACEHOLDER_REPOS) else url


REPOSITORY_BUTTONS = ("use_repository_button", "use_issues_button", "use_edit_page_button", "use_source_button")


def check_repository(app, config):
    """One setting for the repository address. Publishing (``COURSE_PUBLISH=1``) fails while it is unset; any
    other build then shows no repository, issue or launch buttons at all (they would lead nowhere)."""
    url = repository_url(config)
    if url:
        return
    if os.environ.get("COURSE_PUBLISH") == "1":
        from sphinx.errors import ConfigError

        given = (config.html_theme_options or {}).get("repository_url", "")
        raise ConfigError(f"发布构建需要课程仓库的真实地址：请在 _config.yml 的 repository.url 中填写（现为 {given!r}）。")
    options = config.html_theme_options
    if options is None:
        return
    options["repository_url"] = ""
    for key in REPOSITORY_BUTTONS:
        options[key] = False
    launch = dict(options.get("launch_buttons") or {})
    for key in ("binderhub_url", "jupyterhub_url", "colab_url", "deepnote_url", "jupyterlite_url"):
        launch[key] = ""  # every launch service clones the repository
    options["launch_buttons"] = launch


REPO_MARK = "<课程仓库地址>"


def fill_repository(doctree, url: str) -> int:
    """Write the repository address where a page says ``<课程仓库地址>`` (``git clone …``); unset, it stays."""
    if not url:
        return 0
    changed = 0
    for node in list(doctree.findall(nodes.Text)):
        if REPO_MARK in str(node):
            parent = node.parent
            parent.replace(node, nodes.Text(str(node).replace(REPO_MARK, url)))
            if isinstance(parent, nodes.literal_block):  # Sphinx highlights a block only while rawsource == text
                parent.rawsource = parent.rawsource.replace(REPO_MARK, url)
            changed += 1
    return changed


def on_build_finished(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    from npulab.course import download_notebooks, site_postprocess

    repo = str((app.config.html_theme_options or {}).get("repository_url", ""))
    download_notebooks.publish(Path(app.outdir), None if any(p in repo for p in PLACEHOLDER_REPOS) else repo or None)
    launch = (app.config.html_theme_options or {}).get("launch_buttons", {}) or {}
    site_postprocess.run(Path(app.outdir), str(app.config.html_title or app.config.project),
                         thebe=bool(launch.get("thebe")), repository=repository_url(app.config))


def setup(app):
    app.add_node(status_placeholder)
    app.add_directive("course-status", CourseStatus)
    app.connect("config-inited", check_repository)
    app.connect("env-get-outdated", always_rebuild_status)
    app.connect("doctree-resolved", on_doctree_resolved)
    app.connect("build-finished", on_build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
