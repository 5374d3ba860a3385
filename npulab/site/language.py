"""The site's own words in the two editions (issue 37): the Chinese book (``language: zh_CN``) and the English book
in ``en/`` (``language: en``) are built by the same extension; what it writes on a page comes from here.

Only the site's frame lives here (badges, notes, path placeholders, the language switch, link titles); the course's
text is in the pages and npulab's messages are in :mod:`npulab.core.i18n`'s catalogue.
"""

from __future__ import annotations

ZH, EN = "zh", "en"
EDITION_FOLDER = "en"  # the English book is built into <site>/en/

TEXTS: dict[str, dict[str, str]] = {
    "npu_badge": {ZH: "需要昇腾 NPU", EN: "Needs an Ascend NPU"},
    "npu_recorded": {ZH: "以下输出录制于真实昇腾硬件：{stamp}。", EN: "The output below was recorded on real Ascend hardware: {stamp}."},
    "npu_not_recorded": {ZH: "尚未在昇腾硬件上录制输出（没有 NPU 的机器不执行本单元）。{where}",
                         EN: "No output recorded on Ascend hardware yet (machines without an NPU do not run this cell). {where}"},
    "npu_see_prose": {ZH: "参考：本单元前后的正文说明。", EN: "See the text around this cell."},
    "npu_reference": {ZH: "参考：{text}。", EN: "Reference: {text}."},
    "stamp_separator": {ZH: "，", EN: ", "},
    "stamp_device": {ZH: "设备", EN: "device"},
    "stamp_driver": {ZH: "驱动", EN: "driver"},
    "stamp_date": {ZH: "日期", EN: "date"},
    "path_python": {ZH: "<Python 环境>", EN: "<Python environment>"},
    "path_course": {ZH: "<课程目录>", EN: "<course folder>"},
    "path_tmp": {ZH: "<临时目录>", EN: "<temporary folder>"},
    "repository_mark": {ZH: "<课程仓库地址>", EN: "<course repository address>"},
    "pdf_link": {ZH: "下载全书 PDF", EN: "Download the book as PDF"},
    "download_title": {ZH: "下载笔记本（含输出，可自行安装 npulab）",
                       EN: "Download the notebook (with outputs; it installs npulab by itself)"},
    "zoom_title": {ZH: "点击查看原始尺寸", EN: "Click to see the full size"},
    # the switch names the OTHER edition in that edition's own language (lang marks it); its title is the page's
    "switch_label": {ZH: "English", EN: "中文"},
    "switch_title": {ZH: "阅读本页的英文版", EN: "Read this page in Chinese"},
}


def language_of(sphinx_language: str | None) -> str:
    """The edition of a build from Sphinx's ``language`` setting: ``en…`` is the English book, anything else Chinese."""
    return EN if str(sphinx_language or "").lower().startswith("en") else ZH


def site_text(key: str, lang: str, **fields) -> str:
    words = TEXTS[key][lang]
    return words.format(**fields) if fields else words


def other(lang: str) -> str:
    return ZH if lang == EN else EN
