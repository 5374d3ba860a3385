"""Build-machine paths out of what the site shows and offers: the pages (:mod:`npulab.site.sphinx_extension`) and the
downloaded notebooks (:mod:`npulab.site.download_notebooks`) replace them by neutral names."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from npulab.core.paths import REPO_ROOT
from npulab.site.language import ZH, site_text


def path_replacements(lang: str = ZH) -> list[tuple[re.Pattern, str]]:
    """(pattern, shown-as) pairs, most specific first, with the placeholders of the edition ``lang``."""
    pairs = []
    for prefix, shown in ((sys.prefix, site_text("path_python", lang)), (str(REPO_ROOT), site_text("path_course", lang)),
                          (str(Path.home()), "~")):
        if prefix and prefix != "/":
            pairs.append((re.compile(re.escape(prefix.rstrip("/")) + r"(?=[/\s'\")\]:,]|$)"), shown))
    tmp = re.escape(tempfile.gettempdir().rstrip("/"))
    pairs.append((re.compile(tmp + r"/[A-Za-z0-9_.\-]+"), site_text("path_tmp", lang)))
    return pairs


def scrub_paths(text: str, pairs: list[tuple[re.Pattern, str]] | None = None) -> str:
    """Replace build-machine paths in ``text`` by neutral names."""
    for pattern, shown in pairs or path_replacements():
        text = pattern.sub(shown, text)
    return text


def scrub_json(value, pairs: list[tuple[re.Pattern, str]] | None = None):
    """``value`` (a notebook's JSON: dicts, lists, strings) with every string scrubbed."""
    pairs = pairs or path_replacements()
    if isinstance(value, str):
        return scrub_paths(value, pairs)
    if isinstance(value, list):
        return [scrub_json(v, pairs) for v in value]
    if isinstance(value, dict):
        return {k: scrub_json(v, pairs) for k, v in value.items()}
    return value
