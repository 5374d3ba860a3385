"""The course glossary (``npulab/data/glossary.yaml``): Chinese term → the English edition's term → Huawei's official.

Both editions use it: the English edition's check (:func:`missing_terms`) asks that a translated text contains the
English term of every Chinese term its source contains; the Chinese search dictionary and a future English index
can be generated from it. The check is deliberately simple — a case-insensitive substring test of ``en``,
``official`` or one of ``also`` — and documented in docs/english_edition.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from npulab.core.paths import DATA_DIR, parse_yaml

GLOSSARY_FILE = DATA_DIR / "glossary.yaml"
FIELDS = {"zh", "en", "official", "also", "not_in", "source"}


@dataclass(frozen=True)
class Term:
    zh: str
    en: str
    official: str | None = None
    also: tuple[str, ...] = ()
    not_in: tuple[str, ...] = ()  # longer Chinese words that contain zh without meaning it (向量化 holds 量化)
    source: str | None = None

    def english_forms(self) -> tuple[str, ...]:
        """Every English form a translation may use for this term (``en`` first)."""
        return tuple(f for f in (self.en, self.official, *self.also) if f)


@cache
def terms() -> tuple[Term, ...]:
    """The glossary's terms, in file order."""
    data = parse_yaml(GLOSSARY_FILE.read_text(encoding="utf-8"))
    return tuple(Term(zh=str(t["zh"]), en=str(t["en"]), official=t.get("official"),
                      also=tuple(str(a) for a in t.get("also", ())),
                      not_in=tuple(str(w) for w in t.get("not_in", ())), source=t.get("source"))
                 for t in data["terms"])


def schema_problems(raw_terms: list[dict]) -> list[str]:
    """What is wrong with the raw glossary entries (an empty list when sound)."""
    problems, seen = [], set()
    for i, entry in enumerate(raw_terms, 1):
        where = f"第 {i} 条（entry {i}）"
        unknown = set(entry) - FIELDS
        if unknown:
            problems.append(f"{where}：未知字段 {sorted(unknown)}")
        if not str(entry.get("zh", "")).strip() or not str(entry.get("en", "")).strip():
            problems.append(f"{where}：zh 与 en 都必须有")
            continue
        if entry["zh"] in seen:
            problems.append(f"{where}：zh 重复 {entry['zh']}（duplicate）")
        seen.add(entry["zh"])
        if entry.get("official") and not str(entry.get("source", "")).startswith("https://"):
            problems.append(f"{where}：{entry['zh']} 有 official 却没有 https 来源（official term without a source）")
        for word in entry.get("not_in", ()):
            if entry["zh"] not in str(word) or entry["zh"] == word:
                problems.append(f"{where}：not_in 的 {word} 不是含 {entry['zh']} 的更长的词（not_in lists longer words holding zh）")
        if entry.get("official") and str(entry["official"]).casefold() == str(entry["en"]).casefold():
            problems.append(f"{where}：official 与 en 相同，删去 official（official only where it differs）")
    return problems


def occurs(term: Term, zh_text: str) -> bool:
    """Whether the term's Chinese form occurs in ``zh_text`` other than inside one of its ``not_in`` words."""
    for word in term.not_in:
        zh_text = zh_text.replace(word, "")
    return term.zh in zh_text


def missing_terms(zh_text: str, en_text: str) -> list[Term]:
    """The terms whose Chinese form occurs in ``zh_text`` but none of whose English forms occurs in ``en_text``."""
    folded = en_text.casefold()
    return [t for t in terms() if occurs(t, zh_text) and not any(f.casefold() in folded for f in t.english_forms())]
