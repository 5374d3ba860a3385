"""npulab in the reader's language (issue 37): Chinese or English, decided at run time, from one catalogue.

:func:`language` decides, in this order:

1. ``NPULAB_LANG`` (``en``/``zh``; ``en_GB`` and the like count by their first two letters; anything else is ignored);
2. the notebook's place: a kernel working in the English book (``<repository>/en/…``; JupyterLab, nbval and Jupyter
   Book start a notebook's kernel in its folder) or a notebook path under it in ``JPY_SESSION_NAME`` → English; in
   the Chinese book (``chapters/``, ``notebooks/``) → Chinese;
3. the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: the first one set; ``en…`` or ``zh…``; C/POSIX decide nothing);
4. Chinese, the course's own language.

:func:`t` gives a catalogue entry in that language. The catalogue is one table kept in several files by concern
(``npulab/data/messages/*.yaml``, each ``key: {zh: …, en: …}``); a key defined in two files is an error.

The tools' command-line help texts follow the gettext model instead: the Chinese text stays beside its argument in the
code and is its own message id; ``npulab/data/messages/help/*.yaml`` (lists of ``{zh: …, en: …}``, one file per
tool) give the English, and :func:`gettext` looks it up. A Chinese text without an English entry is shown as it is;
``tests/test_english_cli_help.py`` fails on any such text and on entries no parser uses any more.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from npulab.core.paths import DATA_DIR, REPO_ROOT, load_yaml

LANGUAGES = ("zh", "en")
CATALOGUE = DATA_DIR / "messages"
HELP_TEXTS = CATALOGUE / "help"


def _code(value: str | None) -> str | None:
    code = (value or "").strip().lower()[:2]
    return code if code in LANGUAGES else None


def book_of(path: Path) -> str | None:
    """``en`` for a path in the English book, ``zh`` in the Chinese one (chapters/, notebooks/), else None."""
    return _book_of_absolute(str(path)) if path.is_absolute() else _book_of(path)


@functools.lru_cache(maxsize=256)
def _book_of_absolute(path: str) -> str | None:
    # language() asks for the working folder at every message; resolving it walks the file system each time
    return _book_of(Path(path))


def _book_of(path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(REPO_ROOT)
    except (OSError, ValueError):
        return None
    first = rel.parts[:1]
    if first == ("en",):
        return "en"
    if first in (("chapters",), ("notebooks",)):
        return "zh"
    return None


def language() -> str:
    """``"en"`` or ``"zh"``: the language npulab speaks now (see the module's docstring for the order)."""
    chosen = _code(os.environ.get("NPULAB_LANG"))
    if chosen:
        return chosen
    for place in (Path.cwd(), Path(os.environ["JPY_SESSION_NAME"]) if os.environ.get("JPY_SESSION_NAME") else None):
        book = book_of(place) if place is not None else None
        if book:
            return book
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if os.environ.get(name):
            return _code(os.environ[name]) or "zh"
    return "zh"


@functools.cache
def catalogue() -> dict[str, dict[str, str]]:
    table: dict[str, dict[str, str]] = {}
    for part in sorted(CATALOGUE.glob("*.yaml")):
        entries = load_yaml(part) or {}
        twice = sorted(table.keys() & entries.keys())
        if twice:
            raise ValueError(f"message keys defined twice ({part.name} and an earlier file): {', '.join(twice)}")
        table.update(entries)
    return table


def t(key: str, lang: str | None = None, **fields) -> str:
    """The catalogue's text for ``key`` in ``lang`` (default: :func:`language`), with ``fields`` filled in."""
    words = catalogue()[key][lang or language()]
    return words.format(**fields) if fields else words


def localized(record: dict, field: str, lang: str | None = None):
    """``record[field]`` in the reader's language: data files keep the English twin of a Chinese field beside it as
    ``<field>_en``; a record without the twin gives its Chinese text."""
    if (lang or language()) == "en" and record.get(f"{field}_en") is not None:
        return record[f"{field}_en"]
    return record[field]


def in_language(node, lang: str | None = None):
    """A data file's ``node`` (mapping, list or value) with every field that has an English twin (``<field>_en``)
    given in the reader's language, and without the twins: what :func:`localized` does for one field, for a tree."""
    english = (lang or language()) == "en"

    def walk(part):
        if isinstance(part, dict):
            return {k: walk(part[f"{k}_en"] if english and part.get(f"{k}_en") is not None else v)
                    for k, v in part.items() if not (k.endswith("_en") and k[:-3] in part)}
        if isinstance(part, list):
            return [walk(v) for v in part]
        return part

    return walk(node)


@functools.cache
def help_texts() -> dict[str, str]:
    """Chinese help text -> its English (``npulab/data/messages/help/*.yaml``); a text given twice is an error."""
    table: dict[str, str] = {}
    for part in sorted(HELP_TEXTS.glob("*.yaml")):
        for entry in load_yaml(part) or []:
            if entry["zh"] in table:
                raise ValueError(f"help text translated twice ({part.name}): {entry['zh']}")
            table[entry["zh"]] = entry["en"]
    return table


def gettext(text: str | None, lang: str | None = None) -> str | None:
    """A Chinese source text (its own message id) in the reader's language: its English entry for an English reader
    when there is one, else the text unchanged."""
    if not text or (lang or language()) != "en":
        return text
    return help_texts().get(text, text)
