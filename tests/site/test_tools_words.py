"""The tools page's own words (assets/browser_tools/tools.js): one table in both languages, no Chinese elsewhere.

tools.js draws npulab's answers with words of its own (status lines, labels, headings of the result cards, error
texts); they come from ``WORDS = {"zh": {...}, "en": {...}}`` through ``say(key, fields)``, so that the English tools
page (en/about/tools.md) speaks English. No browser needed: the table is read from the script as JSON, and every
string literal of the two scripts is found by a small tokenizer. The page itself is tested in a real browser by
tests/site/built/test_browser_tools.py.
"""

from __future__ import annotations

import json
import re

import pytest

from npulab.core.paths import REPO_ROOT
from npulab.site import browser_tools

TOOLS_JS = browser_tools.SOURCE_DIR / "tools.js"
# CJK punctuation, ideographs (with extension A) and full-width forms: "：（），" count as Chinese here
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")
FIELD = re.compile(r"\{(\w+)\}")


def _table_span(script: str) -> tuple[int, int]:
    """Where the object after ``const WORDS = `` starts and ends (the ``};`` that opens a line closes it)."""
    start = script.index("const WORDS = ") + len("const WORDS = ")
    end = script.index("\n};", start) + 2
    return start, end


def words() -> dict:
    script = TOOLS_JS.read_text(encoding="utf-8")
    start, end = _table_span(script)
    return json.loads(script[start:end])


def literals(script: str) -> list[tuple[str, str]]:
    """(kind, text) of each string, template and regular-expression literal in ``script``, comments skipped.

    Enough JavaScript for these two scripts: a template runs to the next unescaped backtick (its ``${…}`` included),
    and a ``/`` starts a regular expression where an operand is expected (after ``( , = : [ ! & | ? { } ;`` or at the
    start)."""
    found, i, prev = [], 0, ""
    while i < len(script):
        c = script[i]
        if script.startswith("//", i):
            i = script.find("\n", i) if "\n" in script[i:] else len(script)
        elif script.startswith("/*", i):
            i = script.index("*/", i) + 2
        elif c in "\"'`":
            j = i + 1
            while script[j] != c:
                j += 2 if script[j] == "\\" else 1
            found.append(("string", script[i + 1:j]))
            prev, i = c, j + 1
        elif c == "/" and (prev == "" or prev in "(,=:[!&|?{};"):
            j, in_class = i + 1, False
            while in_class or script[j] != "/":
                if script[j] == "\\":
                    j += 1
                elif script[j] in "[]":
                    in_class = script[j] == "["
                j += 1
            found.append(("regex", script[i + 1:j]))
            prev, i = "/", j + 1
        else:
            if not c.isspace():
                prev = c
            i += 1
    return found


def test_tokenizer_tells_strings_regexes_and_comments_apart():
    sample = 'const a = "x // y"; // 注释\nb.split(/[，)]/); c = `t ${d("。")}`; /* 块 */ e = f / 2;'
    assert literals(sample) == [("string", "x // y"), ("regex", "[，)]"), ("string", 't ${d("。")}')]


def test_both_languages_have_the_same_keys_and_fields():
    table = words()
    assert set(table) == {"zh", "en"}
    assert table["zh"].keys() == table["en"].keys()
    differ = {k: (FIELD.findall(table["zh"][k]), FIELD.findall(table["en"][k])) for k in table["zh"]
              if sorted(FIELD.findall(table["zh"][k])) != sorted(FIELD.findall(table["en"][k]))}
    assert not differ, differ


def test_english_words_have_no_chinese():
    chinese = {k: v for k, v in words()["en"].items() if CJK.search(v)}
    assert not chinese, chinese


def test_every_key_is_used_and_every_use_is_a_key():
    script = TOOLS_JS.read_text(encoding="utf-8")
    start, end = _table_span(script)
    code = script[:start] + script[end:]
    # the first argument of each say(…): a key, or a choice of two (say(p.fits ? "fits" : "no_fit"))
    used = {key for first in re.findall(r"\bsay\(([^,)]*)", code) for key in re.findall(r"[\"'](\w+)[\"']", first)}
    assert used == set(words()["zh"]), (sorted(used - set(words()["zh"])), sorted(set(words()["zh"]) - used))


@pytest.mark.parametrize("name", browser_tools.SCRIPTS)
def test_no_chinese_string_outside_the_chinese_table(name):
    """Every visible word goes through the table: outside WORDS.zh no string literal holds Chinese (the link pattern
    of linked(), a regular expression that stops a web address at Chinese punctuation, is not a word shown)."""
    script = (browser_tools.SOURCE_DIR / name).read_text(encoding="utf-8")
    if name == "tools.js":
        start, end = _table_span(script)
        zh = script.index('"zh": {', start)
        en = script.index('"en": {', zh)
        script = script[:zh] + script[en:]  # the table without its Chinese half
    chinese = [text for kind, text in literals(script) if kind == "string" and CJK.search(text)]
    assert not chinese, chinese


def test_english_page_markup_is_english():
    """The English tools page's own HTML (labels, placeholders, the status line before loading, buttons) is English."""
    text = (REPO_ROOT / "en" / "about" / "tools.md").read_text(encoding="utf-8")
    raw = text[text.index("```{raw} html"):text.index("```", text.index("```{raw} html") + 3)]
    chinese = [line for line in raw.splitlines() if CJK.search(line)]
    assert not chinese, chinese
    assert 'src="../_tools/tools.js"' in raw  # the same script: its language comes from the page
