"""The English edition of the chapter quizzes: an ``en:`` block beside each Chinese text, keys shared.

A quiz file (``npulab/data/quizzes/chNN.yaml``) keeps ONE set of keys — ``id``, ``kind``, ``answer``,
``tolerance``, ``unit``, ``derive``, ``source`` — for both editions, so an answer key cannot differ between them.
Only the words are doubled: the quiz's ``en: {title, source_hash}`` and each question's
``en: {prompt, options, explanation, source_hash}`` (and ``unit`` where the shared unit is a Chinese word, 条). ``source_hash`` is :func:`npulab.course.edition.source_hash`
of the Chinese words the translation was made from (:func:`chinese_words`), so a changed Chinese prompt, option
or explanation makes the English one stale. :func:`problems` lists every parity violation; :func:`english` gives
the quiz in English (the same :class:`~npulab.course.quiz.Quiz`, English words, the same keys).
"""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.core.paths import parse_yaml
from npulab.course import quiz as quiz_module
from npulab.course.edition import source_hash, text_parity

TEXT_FIELDS = ("prompt", "options", "explanation")


def chinese_words(raw_question: dict) -> str:
    """The Chinese words of one question, in a fixed order (what its ``en.source_hash`` is computed from)."""
    options = "\n".join(str(o) for o in raw_question.get("options", ()))
    return "\n\n".join([str(raw_question["prompt"]).strip(), options, str(raw_question["explanation"]).strip()])


def _raw(chapter: str | int) -> dict:
    return parse_yaml(quiz_module.path_for(chapter).read_text(encoding="utf-8"))


def translated_chapters() -> list[str]:
    """The chapters whose quiz file has an English edition (a top-level ``en:`` block)."""
    return [c for c in quiz_module.chapters() if "en" in _raw(c)]


def problems(chapter: str | int) -> list[str]:
    """Parity violations of one chapter's English quiz (an empty list when it is complete and current)."""
    data = _raw(chapter)
    top = data.get("en") or {}
    found = []
    if not str(top.get("title", "")).strip():
        found.append(t("edition.quiz.no_title"))
    elif top.get("source_hash") != source_hash(str(data["title"])):
        found.append(t("edition.quiz.stale_title"))
    for raw in data["questions"]:
        where = f"{raw['id']}:"
        en = raw.get("en")
        if not isinstance(en, dict):
            found.append(t("edition.untranslated_at", where=where))
            continue
        missing = [f for f in TEXT_FIELDS if f not in en and (f != "options" or raw.get("options"))]
        if missing:
            found.append(t("edition.quiz.missing_fields", where=where, fields=", ".join(missing)))
            continue
        if en.get("source_hash") != source_hash(chinese_words(raw)):
            found.append(t("edition.stale_at", where=where))
        if len(en.get("options", ())) != len(raw.get("options", ())):
            found.append(t("edition.quiz.option_count", where=where))
        if re.search(r"[\u4e00-\u9fff]", str(raw.get("unit", ""))) and not str(en.get("unit", "")).strip():
            found.append(t("edition.quiz.no_unit", where=where))
        extra = set(en) - {*TEXT_FIELDS, "unit", "source_hash"}
        if extra:
            found.append(t("edition.quiz.shared_keys", where=where, keys=", ".join(sorted(extra))))
        pairs = [(raw["prompt"], en["prompt"]), (raw["explanation"], en["explanation"]),
                 *zip(raw.get("options", ()), en.get("options", ()), strict=False)]
        for zh_text, en_text in pairs:
            found += [f"{where} {p}" for p in text_parity(str(zh_text), str(en_text))]
    return found


def english(chapter: str | int) -> quiz_module.Quiz:
    """The quiz of one chapter with its English words (answers, ids and sources are the shared keys), once its
    translation is complete and current."""
    wrong = problems(chapter)
    if wrong:
        raise quiz_module.QuizError(t("edition.quiz.incomplete", chapter=chapter, problems=t("edition.quiz.separator").join(wrong)))
    return quiz_module.with_english_words(chapter)
