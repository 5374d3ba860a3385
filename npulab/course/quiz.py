"""Chapter quizzes: one YAML file per chapter (``npulab/data/quizzes/chNN.yaml``), rendered as self-checking HTML.

A question is ``single`` (one option right), ``multiple`` (a set of options right, all and only those) or
``numeric`` (a number within ``tolerance``, in ``unit``). Every question carries its ``explanation`` and the
``source`` it rests on (a lesson of this course, or a public document); a numeric answer that is derived also
carries the formula (``derive``), which the tests evaluate.

``show("01")`` returns an object that Jupyter displays as HTML: radio buttons, check boxes or a number field per
question, a 「检查」 button with feedback, and the answer with its explanation folded below. The grading runs in
the browser (a small script, identical rules to ``grade`` here), so the same quiz works on the static site and in
JupyterLab; the folded answer works even where scripts do not run. The answers are in the page: these are
self-checks, not exams.
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.i18n import language, t
from npulab.core.paths import DATA_DIR, REPO_ROOT, parse_yaml

QUIZ_DIR = DATA_DIR / "quizzes"
KINDS = ("single", "multiple", "numeric")
LETTERS = "ABCDEFGH"


class QuizError(ValueError):
    """A quiz file that is missing or malformed (Chinese message)."""


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    prompt: str
    answer: object
    explanation: str
    source: str
    options: tuple[str, ...] = ()
    tolerance: float = 0.0
    unit: str = ""
    derive: str | None = None

    def answer_text(self, lang: str = "zh") -> str:
        """The right answer, written out (``B``, ``A、C`` or ``122 ms``)."""
        if self.kind == "single":
            return LETTERS[self.answer]
        if self.kind == "multiple":
            return ("、" if lang == "zh" else ", ").join(LETTERS[i] for i in sorted(self.answer))
        tol = t("quiz.tolerance", lang, tolerance=f"{self.tolerance:g}") if self.tolerance else ""
        return f"{self.answer:g}{(' ' + self.unit) if self.unit else ''}{tol}"


@dataclass(frozen=True)
class Quiz:
    chapter: str
    title: str
    questions: tuple[Question, ...] = field(default_factory=tuple)
    language: str = "zh"  # the language of its words (edition_quiz.english gives the English quiz)

    def _repr_html_(self) -> str:
        return to_html(self)

    def __repr__(self) -> str:  # plain-text front ends: the questions, without the answers
        lines = [self.title]
        for i, q in enumerate(self.questions, 1):
            lines.append(f"{i}. {q.prompt}")
            lines += [f"   {LETTERS[j]}. {o}" for j, o in enumerate(q.options)]
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------
# Loading and checking the data
# ---------------------------------------------------------------------------------------------------------------


def path_for(chapter: str | int) -> Path:
    """``"01"``, ``1`` or ``"01_environment"`` → ``npulab/data/quizzes/ch01.yaml``."""
    number = re.match(r"\d+", str(chapter).zfill(2))
    if not number:
        raise QuizError(f"章节应写成编号，例如 01 或 01_environment；收到 {chapter!r}")
    return QUIZ_DIR / f"ch{int(number.group()):02d}.yaml"


def chapters() -> list[str]:
    """The chapter numbers that have a quiz, in order (``["01", …]``)."""
    return sorted(p.stem[2:] for p in QUIZ_DIR.glob("ch*.yaml"))


def counts_text() -> str:
    """How many questions each chapter's quiz has, counted from the quiz files (one line, for the quiz page)."""
    counts = {chapter: len(load(chapter).questions) for chapter in chapters()}
    lang = language()
    per_chapter = t("quiz.counts_separator", lang).join(t("quiz.chapter_count", lang, chapter=chapter, count=n)
                                                         for chapter, n in counts.items())
    return t("quiz.counts", lang, total=sum(counts.values()), chapters=per_chapter)


def _question(raw: dict, where: str) -> Question:
    missing = {"id", "kind", "prompt", "answer", "explanation", "source"} - set(raw)
    if missing:
        raise QuizError(f"{where}：缺少字段 {', '.join(sorted(missing))}")
    kind = raw["kind"]
    if kind not in KINDS:
        raise QuizError(f"{where}：kind 只能是 {', '.join(KINDS)}，收到 {kind!r}")
    answer = raw["answer"]
    if kind == "multiple":
        answer = frozenset(answer)
    elif kind == "numeric":
        answer = float(answer)
    return Question(id=str(raw["id"]), kind=kind, prompt=str(raw["prompt"]).strip(), answer=answer,
                    explanation=str(raw["explanation"]).strip(), source=str(raw["source"]).strip(),
                    options=tuple(str(o) for o in raw.get("options", ())), tolerance=float(raw.get("tolerance", 0)),
                    unit=str(raw.get("unit", "")), derive=raw.get("derive"))


def load(chapter: str | int) -> Quiz:
    """The quiz of one chapter, parsed and validated."""
    path = path_for(chapter)
    if not path.is_file():
        raise QuizError(f"第 {chapter} 章没有小测文件 {path.name}；已有：{', '.join(chapters()) or '无'}")
    data = parse_yaml(path.read_text(encoding="utf-8"))
    quiz = Quiz(str(data["chapter"]), str(data["title"]),
                tuple(_question(q, f"{path.name} 第 {i + 1} 题") for i, q in enumerate(data["questions"])))
    problems = validate(quiz)
    if problems:
        raise QuizError(f"{path.name}：" + "；".join(problems))
    return quiz


def validate(quiz: Quiz) -> list[str]:
    """Structural problems of a quiz (an empty list when it is sound)."""
    problems = []
    ids = [q.id for q in quiz.questions]
    if len(set(ids)) != len(ids):
        problems.append("题目 id 重复")
    if not 5 <= len(quiz.questions) <= 8:
        problems.append(f"每章 5–8 题，现有 {len(quiz.questions)} 题")
    for q in quiz.questions:
        n = len(q.options)
        if q.kind in ("single", "multiple"):
            if not 2 <= n <= len(LETTERS) or len(set(q.options)) != n:
                problems.append(f"{q.id}：选项须为 2–{len(LETTERS)} 个且互不相同")
            right = {q.answer} if q.kind == "single" else set(q.answer)
            if q.kind == "single" and not isinstance(q.answer, int):
                problems.append(f"{q.id}：单选题的答案是一个选项序号")
            elif not right or not all(isinstance(i, int) and 0 <= i < n for i in right):
                problems.append(f"{q.id}：答案序号超出选项范围")
            elif q.kind == "multiple" and len(right) == n:
                problems.append(f"{q.id}：多选题不能所有选项都对")
        else:
            if q.options:
                problems.append(f"{q.id}：数值题没有选项")
            if not math.isfinite(q.answer) or q.tolerance < 0:
                problems.append(f"{q.id}：数值答案或误差无效")
        if not q.source.startswith(("http://", "https://", "chapters/", "notebooks/")):
            problems.append(f"{q.id}：source 须是课程中的一节或公开网址")
        elif q.source.startswith(("chapters/", "notebooks/")) and not (REPO_ROOT / q.source.split("#")[0]).exists():
            problems.append(f"{q.id}：source 指向的文件不存在：{q.source}")
    return problems


# ---------------------------------------------------------------------------------------------------------------
# Grading (the browser script applies the same rules)
# ---------------------------------------------------------------------------------------------------------------


# what a Chinese input method types for a number: full-width digits and signs (NFKC makes them ASCII), the ideographic
# full stop 。 and the minus sign − for the decimal point and the sign; the browser script maps the same characters
NUMBER_MAP = {"。": ".", "−": "-", "，": ""}


def normalize_number(text: str) -> str:
    """``text`` as ASCII: ``"１２．５"`` and ``"12。5"`` → ``"12.5"``, ``"－3"`` → ``"-3"``, ``"1，024"`` → ``"1024"``."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text).strip()
    for old, new in NUMBER_MAP.items():
        text = text.replace(old, new)
    return text.replace(",", "")


def grade(question: Question, response, lang: str = "zh") -> tuple[bool, str]:
    """``(correct, feedback in lang)`` for a response: an option index, a set of indices, or a number."""
    if question.kind == "single":
        ok = response == question.answer
        return ok, t("quiz.right" if ok else "quiz.wrong", lang)
    if question.kind == "multiple":
        chosen = set(response)
        right = set(question.answer)
        if chosen == right:
            return True, t("quiz.right", lang)
        return False, t("quiz.multiple_feedback", lang, right=len(right), hit=len(chosen & right), extra=len(chosen - right))
    try:
        value = float(normalize_number(response) if isinstance(response, str) else response)
    except (TypeError, ValueError):
        return False, t("quiz.number", lang)
    ok = abs(value - question.answer) <= question.tolerance + 1e-12 * abs(question.answer)
    return ok, t("quiz.right", lang) if ok else t("quiz.too_high" if value > question.answer else "quiz.too_low", lang)


# ---------------------------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------------------------

_STYLE = """<style>
.npulab-quiz{border:1px solid #c8d1dc;border-radius:6px;padding:.6em 1em;margin:.8em 0}
.npulab-quiz .q{margin:.9em 0}.npulab-quiz .prompt{font-weight:600;margin-bottom:.3em}
.npulab-quiz label{display:flex;gap:.35em;align-items:baseline;margin:.15em 0;cursor:pointer;overflow-wrap:break-word;min-width:0}
.npulab-quiz label>input{flex:none}.npulab-quiz label>span{min-width:0;flex:1}.npulab-quiz code{white-space:normal;overflow-wrap:anywhere}
.npulab-quiz .fb{margin-left:.6em;font-weight:600}.npulab-quiz .fb.ok{color:#1a7f37}.npulab-quiz .fb.no{color:#b42318}
.npulab-quiz details{margin-top:.3em;color:#444}
</style>"""

# One delegated listener for every quiz on the page (installed once), so it works however the output was inserted.
_SCRIPT = """<script>
(function () {
  if (window.__npulabQuiz) { return; }
  window.__npulabQuiz = true;
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest(".npulab-quiz button.check") : null;
    if (!button) { return; }
    var q = button.closest(".q"), fb = q.querySelector(".fb"), key = JSON.parse(q.getAttribute("data-key"));
    var ok = false, msg = "", words = JSON.parse(button.closest(".npulab-quiz").getAttribute("data-words"));
    if (key.kind === "numeric") {
      var raw = q.querySelector("input").value.normalize("NFKC").trim()
        .replace(/。/g, ".").replace(/\u2212/g, "-").replace(/[，,]/g, ""), value = Number(raw);
      if (raw === "" || !isFinite(value)) { msg = words.number; }
      else {
        ok = Math.abs(value - key.answer) <= key.tolerance + 1e-12 * Math.abs(key.answer);
        msg = ok ? words.right : (value > key.answer ? words.too_high : words.too_low);
      }
    } else {
      var chosen = [];
      q.querySelectorAll("input").forEach(function (box, i) { if (box.checked) { chosen.push(i); } });
      if (key.kind === "single") {
        ok = chosen.length === 1 && chosen[0] === key.answer;
        msg = chosen.length ? (ok ? words.right : words.wrong) : words.pick_one;
      } else {
        var right = key.answer, hit = chosen.filter(function (i) { return right.indexOf(i) >= 0; }).length;
        ok = hit === right.length && chosen.length === right.length;
        msg = ok ? words.right : words.multiple_feedback.replace("{right}", right.length).replace("{hit}", hit)
          .replace("{extra}", chosen.length - hit);
      }
    }
    fb.textContent = (ok ? "✓ " : "✗ ") + msg;
    fb.className = "fb " + (ok ? "ok" : "no");
  });
})();
</script>"""


def _inline(text: str) -> str:
    """Escape, then render `code` and **bold** (the only Markdown the quiz files use)."""
    out = html.escape(text)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def lesson_title(path: str) -> str:
    """The first heading of a lesson (``chapters/…/x.ipynb``), or the file name when it has none."""
    from npulab.course.book_toc import title

    return title(REPO_ROOT / path)


def _source_html(source: str) -> str:
    """A link to the lesson (section) the question rests on, relative to ``notebooks/quizzes.ipynb``: it opens the
    notebook in JupyterLab; on the site the link is rewritten to the lesson's page (postprocess.link_notebooks)."""
    if source.startswith(("http://", "https://")):
        return f'<a href="{html.escape(source)}">{html.escape(source)}</a>'
    path, _, anchor = source.partition("#")
    href = "../" + path + (f"#{anchor}" if anchor else "")
    return f'<a class="quiz-source" href="{html.escape(href)}">{html.escape(lesson_title(path))}</a>'


def _question_html(quiz: Quiz, index: int, q: Question) -> str:
    name = f"npulab-quiz-{quiz.chapter}-{q.id}"
    key = {"kind": q.kind, "tolerance": q.tolerance,
           "answer": sorted(q.answer) if q.kind == "multiple" else q.answer}
    lang = quiz.language
    parts = [f"<div class=\"q\" data-key='{html.escape(json.dumps(key), quote=True)}'>",
             f'<div class="prompt">{t("quiz.prompt", lang, index=index, kind=t("quiz." + q.kind, lang))}'
             f'{_inline(q.prompt)}</div>']
    if q.kind == "numeric":
        unit = f" {html.escape(q.unit)}" if q.unit else ""
        parts.append(f'<label><input type="text" inputmode="decimal" name="{name}" size="12" '
                     f'aria-label="{t("quiz.answer_label", lang, index=index)}">{unit}</label>')
    else:
        box = "radio" if q.kind == "single" else "checkbox"
        parts += [f'<label><input type="{box}" name="{name}" value="{i}"><span>{LETTERS[i]}. {_inline(o)}</span></label>'
                  for i, o in enumerate(q.options)]
    parts.append(f'<button type="button" class="check">{t("quiz.check", lang)}</button>'
                 '<span class="fb" role="status"></span>')
    parts.append(f"<details><summary>{t('quiz.answer_and_explanation', lang)}</summary>"
                 f"<p>{html.escape(t('quiz.answer', lang, answer=q.answer_text(lang)))}"
                 f"{_inline(q.explanation)}</p><p>{t('quiz.basis', lang)}{_source_html(q.source)}</p></details></div>")
    return "\n".join(parts)


def to_html(quiz: Quiz) -> str:
    """The whole quiz as one self-contained HTML block (style, questions, the grading script)."""
    body = "\n".join(_question_html(quiz, i, q) for i, q in enumerate(quiz.questions, 1))
    lang = quiz.language
    words = {k: t(f"quiz.{k}", lang) for k in FEEDBACK}
    return (f"{_STYLE}\n<div class=\"npulab-quiz\" data-chapter=\"{html.escape(quiz.chapter)}\" lang=\"{lang}\" "
            f"data-words='{html.escape(json.dumps(words, ensure_ascii=False), quote=True)}'>\n"
            f"<p><strong>{html.escape(quiz.title)}</strong>{t('quiz.header', lang, count=len(quiz.questions))}"
            f"</p>\n{body}\n</div>\n{_SCRIPT}")


# the feedback the page's script gives, in the quiz's language (data-words of the widget)
FEEDBACK = ("right", "wrong", "pick_one", "number", "too_high", "too_low", "multiple_feedback")


def show(chapter: str | int) -> Quiz:
    """The chapter's quiz in npulab's language (:func:`npulab.core.i18n.language`: English in the English book);
    as the last expression of a cell, Jupyter shows it as an interactive quiz."""
    if language() == "en":
        return with_english_words(chapter)
    return load(chapter)


def with_english_words(chapter: str | int) -> Quiz:
    """The quiz with the words of its ``en:`` blocks (:mod:`npulab.course.edition_quiz` checks that they are complete
    and current; ``make test`` fails otherwise); a chapter without them keeps its Chinese words."""
    import dataclasses

    zh = load(chapter)
    data = parse_yaml(path_for(chapter).read_text(encoding="utf-8"))
    if "en" not in data:
        return zh
    by_id = {raw["id"]: raw.get("en") or {} for raw in data["questions"]}

    def english(q: Question) -> Question:
        en = by_id.get(q.id) or {}
        return dataclasses.replace(q, prompt=str(en.get("prompt", q.prompt)).strip(),
                                   explanation=str(en.get("explanation", q.explanation)).strip(),
                                   options=tuple(str(o) for o in en.get("options", q.options)),
                                   unit=str(en.get("unit", q.unit)))

    return dataclasses.replace(zh, title=str(data["en"].get("title", zh.title)).strip(),
                               questions=tuple(english(q) for q in zh.questions), language="en")
