"""The knowledge base of error families: ``npulab/data/error_catalog.yaml`` parsed into entries and patterns.

Each entry has patterns (a literal ``find`` string, the fast pre-filter, and an optional regular expression), a
title, cause and fix (Chinese in the catalog; English in its twin ``error_catalog_en.yaml``, used when
:func:`npulab.core.i18n.language` is ``en``), public sources and real log excerpts that the tests run. An entry is reported when one of
its ``error`` patterns matched (``hint`` lines only add evidence), unless it ``needs_hint`` and none matched, or an
entry in its ``suppressed_by`` was reported. A pattern with ``context: ascend`` counts only in a log that shows
Ascend evidence (its words are also printed by CUDA tools, e.g. apex's and DeepSpeed's loss-scale messages); one
with ``context: failure`` counts only in a log that shows Ascend evidence and an error line besides (a warning a
library prints at import, which a run that works prints too: MindSpore's release check). Generic codes (``500001``, ``ERR01007``, ``107020``) are hints: they
say that something failed, not which family it is.

The English twin holds, per family id, ``source`` (the :func:`source_hash` of the Chinese title, cause and fix it
was translated from), ``title``, ``cause`` and ``fix``. When the Chinese text changes, its hash changes and
tests/test_explain_english.py fails until the English is retranslated and restamped (docs/english_edition.md).
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path

from npulab.core import i18n
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env import torch_install

CATALOG_PATH = DATA_DIR / "error_catalog.yaml"
TWIN_SUFFIX = "_en"  # error_catalog.yaml → error_catalog_en.yaml
GENERIC = "generic_triage"  # the category of the generic finding (npulab.env.explain.triage)
LEVELS = ("error", "hint")
CONTEXTS = ("ascend", "failure")  # Ascend evidence; Ascend evidence and an error line


@dataclass(frozen=True)
class Pattern:
    """One recognisable line: a literal ``find`` string, an optional regex, the error code it shows, its level,
    whether it counts only in a log with Ascend evidence (``ascend_only``) and only in one with an error line too
    (``failure_only``)."""

    find: str
    regex: re.Pattern | None
    code: str | None
    level: str
    ascend_only: bool = False
    failure_only: bool = False

    @property
    def needles(self) -> tuple[bytes, ...]:
        """The ``find`` string as bytes, in UTF-8 and (when different) GB18030: the log is searched undecoded."""
        utf8, gb = self.find.encode("utf-8"), self.find.encode("gb18030")
        return (utf8,) if utf8 == gb else (utf8, gb)


@dataclass(frozen=True)
class Entry:
    """One error family of the catalog."""

    id: str
    title: str
    priority: int
    patterns: tuple[Pattern, ...]
    cause: str
    fix: str
    sources: tuple[str, ...]
    doctor: tuple[str, ...] = ()
    casebook: str = ""
    needs_hint: bool = False
    suppressed_by: tuple[str, ...] = ()
    examples: tuple[dict, ...] = ()
    negatives: tuple[dict, ...] = ()
    source: str = ""  # source_hash of the Chinese title, cause and fix (whatever language the entry speaks)


class CatalogError(ValueError):
    """The catalog file is malformed (a bug in the course data, reported in Chinese)."""


_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
CJK = re.compile(f"[{_CJK}]")  # a Chinese character or full-width punctuation
# (?<!\s): a run of spaces is tried from its start only (from every space, a long run costs its length squared)
_FOLD_SPACE = re.compile(rf"(?<=[{_CJK}])\s+(?=[{_CJK}])|(?<=[，。；：、）」])\s+|(?<!\s)\s+(?=[，。；：、（「])")


# commands a catalog text names by a placeholder, so that they are written in one place (npulab.env.torch_install);
# the version they leave to the reader is named in the text's language (one word: one token per argument)
VERSION_WORD = {"zh": torch_install.PLACEHOLDER, "en": "<matching-version>"}
COMMANDS = {lang: {"{torch_cpu_install}": torch_install.torch_command(word),
                   "{torch_npu_install}": torch_install.pair_text(word, word)} for lang, word in VERSION_WORD.items()}


def fill(text: str, lang: str = "zh") -> str:
    """A catalog text with its command placeholders written out (the version left open named in ``lang``)."""
    for placeholder, command in COMMANDS[lang].items():
        text = text.replace(placeholder, command)
    return text


def tidy(text: str) -> str:
    """Folded YAML prose as one line: whitespace collapsed, and none left between Chinese characters."""
    return _FOLD_SPACE.sub("", " ".join(str(text).split()))


def source_hash(*texts: str) -> str:
    """The stamp of a Chinese text (12 hex digits of SHA-256 over its parts — a family's title, cause and fix, or one
    string of the code tables — whitespace folded as :func:`tidy` folds it, placeholders unfilled): an English twin
    records the stamp of the text it translates, so a change of the Chinese shows."""
    text = "\n".join(tidy(part) for part in texts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def twin_path(path: Path) -> Path:
    """The English twin of a catalog file (``error_catalog.yaml`` → ``error_catalog_en.yaml``)."""
    return path.with_name(f"{path.stem}{TWIN_SUFFIX}{path.suffix}")


def _entry(raw: dict) -> Entry:
    where = f"条目 {raw.get('id', '?')!r}"
    try:
        patterns = []
        for p in raw["patterns"]:
            level = p.get("level", "error")
            if level not in LEVELS or not p.get("find") or p.get("context", "ascend") not in CONTEXTS:
                raise CatalogError(f"{where}：模式必须有 find，level 只能是 error 或 hint，context 只能是 ascend 或 failure：{p!r}")
            patterns.append(Pattern(str(p["find"]), re.compile(p["regex"]) if p.get("regex") else None,
                                    str(p["code"]) if p.get("code") is not None else None, level,
                                    ascend_only="context" in p, failure_only=p.get("context") == "failure"))
        entry = Entry(
            id=raw["id"], title=raw["title"], priority=int(raw["priority"]), patterns=tuple(patterns),
            cause=fill(tidy(raw["cause"])), fix=fill(tidy(raw["fix"])),
            sources=tuple(raw["sources"]), doctor=tuple(raw.get("doctor", ())), casebook=raw.get("casebook", ""),
            needs_hint=bool(raw.get("needs_hint", False)), suppressed_by=tuple(raw.get("suppressed_by", ())),
            examples=tuple(raw.get("examples", ())), negatives=tuple(raw.get("negatives", ())),
            source=source_hash(raw["title"], raw["cause"], raw["fix"]),
        )
    except KeyError as err:
        raise CatalogError(f"{where} 缺少字段 {err}") from None
    except re.error as err:
        raise CatalogError(f"{where} 的正则表达式无效：{err}") from None
    if not any(p.level == "error" for p in entry.patterns):
        raise CatalogError(f"{where} 至少要有一个 level: error 的模式")
    if entry.id == GENERIC:
        raise CatalogError(f"{where}：{GENERIC} 是通用排查的类别，不能用作条目 id")
    return entry


def load_catalog(path: Path = CATALOG_PATH, lang: str | None = None) -> tuple[Entry, ...]:
    """The catalog's entries in ``lang`` (default: :func:`npulab.core.i18n.language`), parsed once per process and
    language. In English, each family with an English twin speaks English; one without stays Chinese."""
    return _load(Path(path), lang or i18n.language())


@functools.cache
def _load(path: Path, lang: str) -> tuple[Entry, ...]:
    if lang != "zh":
        twin = english_twin(path)
        return tuple(_in_english(e, twin[e.id]) if e.id in twin else e for e in _load(path, "zh"))
    data = load_yaml(path)
    entries = tuple(_entry(raw) for raw in data["entries"])
    ids = [e.id for e in entries]
    if len(set(ids)) != len(ids):
        raise CatalogError("目录中有重复的条目 id")
    return entries


@functools.cache
def english_twin(path: Path = CATALOG_PATH) -> dict[str, dict]:
    """The English twin's entries by family id (``{source, title, cause, fix}``); empty when there is no twin."""
    twin = twin_path(Path(path))
    if not twin.exists():
        return {}
    entries = load_yaml(twin)["entries"]
    for family, raw in entries.items():
        missing = {"source", "title", "cause", "fix"} - set(raw)
        if missing:
            raise CatalogError(f"{twin.name}: entry {family!r} lacks {', '.join(sorted(missing))}")
    return entries


def _in_english(entry: Entry, raw: dict) -> Entry:
    return replace(entry, title=tidy(raw["title"]), cause=fill(tidy(raw["cause"]), "en"), fix=fill(tidy(raw["fix"]), "en"))


CATEGORIES = tuple(e.id for e in load_catalog(lang="zh"))  # the family ids, in catalog order
