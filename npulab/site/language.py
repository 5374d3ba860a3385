"""The site's own words in the two editions (issue 37): the Chinese book (``language: zh_CN``) and the English book
in ``en/`` (``language: en``) are built by the same extension; what it writes on a page comes from here.

Only the site's frame lives here (badges, notes, path placeholders, the language switch, link titles); the course's
text is in the pages and its words are in npulab's one catalogue (npulab/data/messages/site.yaml, :mod:`npulab.core.i18n`).
"""

from __future__ import annotations

from npulab.core.i18n import t

ZH, EN = "zh", "en"
EDITION_FOLDER = "en"  # the English book is built into <site>/en/

# each edition's name in its own language: the switch names the OTHER edition (its lang attribute marks it)
LANGUAGE_NAMES = {ZH: "中文", EN: "English"}


def language_of(sphinx_language: str | None) -> str:
    """The edition of a build from Sphinx's ``language`` setting: ``en…`` is the English book, anything else Chinese."""
    return EN if str(sphinx_language or "").lower().startswith("en") else ZH


def site_text(key: str, lang: str, **fields) -> str:
    """The site's words ``site.<key>`` of npulab's catalogue (npulab/data/messages/site.yaml) in ``lang``."""
    return t(f"site.{key}", lang, **fields)


def other(lang: str) -> str:
    return ZH if lang == EN else EN
