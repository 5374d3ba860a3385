"""The English edition (issue 37): `python -m npulab edition sync|check`, the parity of en/ with the Chinese pages,
and the quiz data's English texts (docs/english_edition.md)."""

from pathlib import Path

import nbformat
import pytest
import yaml

from npulab.__main__ import main
from npulab.core.cli import UsageError
from npulab.core.paths import REPO_ROOT
from npulab.course import edition, edition_quiz, quiz

# --- the repository's English edition is in parity (fast: reads a few notebooks) ----------------------------------


def test_every_english_page_is_in_parity():
    pairs = edition.pairs(None)
    assert len(pairs) >= 8, "en/ holds the four lessons and four chapter indexes of issue 37's first round"
    problems = {str(en.relative_to(REPO_ROOT)): edition.check(zh, en) for zh, en in pairs}
    assert not any(problems.values()), problems


def _prose(text: str) -> str:
    """Markdown with code and bracketed text removed, in separate passes: fences, inline code, then brackets/links."""
    import re

    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    return re.sub(r"\([^)]*\)|<[^>]*>", "", text)


def test_prose_strips_fences_before_brackets():
    src = "Here (`f(x, 16)` = 1) holds.\n\n```python\nx = 1  # 中文注释在代码里不算正文\n```\n"
    assert _prose(src).count("中") == 0
    assert "Here" in _prose(src) and "holds" in _prose(src)


def test_english_pages_carry_no_chinese_prose():
    """A translated Markdown cell is English: CJK characters only inside code, links or named sources."""
    import re

    for _zh, en in edition.pairs(None):
        if en.suffix != ".ipynb":
            continue
        for cell in nbformat.read(en, as_version=4).cells:
            if cell.cell_type != "markdown":
                continue
            prose = _prose(cell.source)
            assert len(re.findall(r"[\u4e00-\u9fff]", prose)) <= 8, (en.name, cell.id, prose[:200])


def test_cli_check_passes_on_the_repository(capsys, en):
    assert main(["edition", "check"]) == 0
    assert "pages in parity" in capsys.readouterr().out


# --- sync and check on a small book of their own --------------------------------------------------------------------


def _book(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: ch/x\n", encoding="utf-8")
    nb = nbformat.v4.new_notebook()
    nb.metadata["course"] = {"minutes": 5}
    nb.cells = [nbformat.v4.new_markdown_cell("# 标题\n\n见 [上一节](a.ipynb) 与 `torch.npu`。"),
                nbformat.v4.new_code_cell("print(1)", metadata={"tags": ["npu", "skip-execution"]}),
                nbformat.v4.new_markdown_cell("## 小结")]
    for i, cell in enumerate(nb.cells):
        cell.id = f"c{i:02d}"
    zh = tmp_path / "ch" / "x.ipynb"
    zh.parent.mkdir()
    (tmp_path / "ch" / "examples").mkdir()
    nbformat.write(nb, zh)
    return zh, tmp_path / "en" / "ch" / "x.ipynb"


def test_sync_copies_code_and_lists_untranslated_cells(tmp_path):
    zh, en = _book(tmp_path)
    todo = edition.sync(zh, en, tmp_path)
    assert [(t.cell, t.reason) for t in todo] == [("c00", "new"), ("c02", "new")]
    twin = nbformat.read(en, as_version=4)
    assert twin.cells[1].source == "print(1)" and twin.cells[1].metadata["tags"] == ["npu", "skip-execution"]
    assert twin.metadata["course"] == {"minutes": 5} and twin.metadata["edition"]["language"] == "en"
    assert (en.parent / "examples").is_symlink(), "folders beside a lesson are linked beside its twin"
    assert edition.check(zh, en) == ["[c00] 未翻译", "[c02] 未翻译"]


def test_sync_never_links_a_folder_of_pages_nor_writes_through_a_link(tmp_path, en):
    """notebooks/solutions holds pages of its own: linking it beside a lab's twin would let the next sync of a
    solution write its English twin into the Chinese folder."""
    zh, en = _book(tmp_path)
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: ch/x\n"
                                       "  - file: ch/solutions/s\n", encoding="utf-8")
    (tmp_path / "ch" / "solutions").mkdir()
    nbformat.write(nbformat.read(zh, as_version=4), tmp_path / "ch" / "solutions" / "s.ipynb")
    edition.sync(zh, en, tmp_path)
    assert (en.parent / "examples").is_symlink() and not (en.parent / "solutions").exists()
    (en.parent / "solutions").symlink_to(Path("../../ch/solutions"), target_is_directory=True)
    with pytest.raises(UsageError, match="refusing to write outside"):
        edition.sync(tmp_path / "ch" / "solutions" / "s.ipynb", en.parent / "solutions" / "s.ipynb", tmp_path)


def test_translated_cells_survive_sync_and_go_stale_when_the_chinese_changes(tmp_path):
    zh, en = _book(tmp_path)
    edition.sync(zh, en, tmp_path)
    edition.apply_translation(en, {"c00": "# Title\n\nSee [the previous lesson](a.ipynb) and `torch.npu`.",
                                   "c02": "## Summary"}, tmp_path)
    assert edition.check(zh, en) == []
    assert edition.sync(zh, en, tmp_path) == []
    assert nbformat.read(en, as_version=4).cells[0].source.startswith("# Title")
    nb = nbformat.read(zh, as_version=4)
    nb.cells[2].source = "## 小结（改）"
    nbformat.write(nb, zh)
    assert [(t.cell, t.reason) for t in edition.sync(zh, en, tmp_path)] == [("c02", "stale")]
    assert edition.check(zh, en) == ["[c02] 中文已改，译文过期"]


def test_check_finds_code_tag_order_and_lost_links(tmp_path, en):
    zh, en = _book(tmp_path)
    edition.sync(zh, en, tmp_path)
    edition.apply_translation(en, {"c00": "# Title (link and code dropped)", "c02": "## Summary"}, tmp_path)
    twin = nbformat.read(en, as_version=4)
    twin.cells[1].source = "print(2)"
    nbformat.write(twin, en)
    found = edition.check(zh, en)
    assert any("inline code missing" in p for p in found) and any("links missing" in p for p in found)
    assert any("code cell source differs" in p for p in found)
    twin.cells = twin.cells[::-1]
    nbformat.write(twin, en)
    assert "cell ids/order/types differ" in edition.check(zh, en)[0]


def test_english_cell_in_a_code_slot_is_refused(tmp_path, en):
    zh, en = _book(tmp_path)
    edition.sync(zh, en, tmp_path)
    with pytest.raises(UsageError, match="code cells come from the Chinese source"):
        edition.apply_translation(en, {"c01": "print('hand-written')"}, tmp_path)


def test_markdown_page_stamp(tmp_path):
    zh = tmp_path / "ch" / "index.md"
    zh.parent.mkdir()
    zh.write_text("# 一章\n\n[实验](../lab.ipynb)\n", encoding="utf-8")
    en = tmp_path / "en" / "ch" / "index.md"
    assert [t.reason for t in edition.sync(zh, en, tmp_path)] == ["new"]
    assert edition.check(zh, en) == ["未翻译"]
    edition.apply_translation(en, {"page": "# A chapter\n\n[Lab](../lab.ipynb)\n"}, tmp_path)
    assert edition.check(zh, en) == [] and edition.sync(zh, en, tmp_path) == []
    zh.write_text("# 一章（新）\n", encoding="utf-8")
    assert edition.check(zh, en) == ["中文已改，译文过期"]


# --- bad input: exit code 2 with a message, never a traceback -----------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["edition", "check", "no/such/page.ipynb"],
    ["edition", "sync", "README.txt"],
    ["edition", "check", "/tmp"],
])
def test_bad_paths_are_usage_errors(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("错误：") and "Traceback" not in err


def test_missing_action_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as done:
        main(["edition"])
    assert done.value.code == 2
    assert "缺少必需参数" in capsys.readouterr().err


def test_check_exit_code_1_on_a_violation(tmp_path, monkeypatch, capsys, en):
    zh, en = _book(tmp_path)
    edition.sync(zh, en, tmp_path)
    monkeypatch.setattr(edition, "REPO_ROOT", tmp_path)
    monkeypatch.setattr(edition, "pairs", lambda paths: [(zh, en)])
    assert main(["edition", "check"]) == 1
    assert "parity violations" in capsys.readouterr().out


# --- the quiz data: shared keys, English words ----------------------------------------------------------------------


def test_translated_quizzes_are_in_parity():
    chapters = edition_quiz.translated_chapters()
    assert "04" in chapters
    for chapter in chapters:
        assert edition_quiz.problems(chapter) == [], chapter
        en, zh = edition_quiz.english(chapter), quiz.load(chapter)
        assert [(q.id, q.kind, q.answer, q.source) for q in en.questions] == \
               [(q.id, q.kind, q.answer, q.source) for q in zh.questions]
        assert quiz.validate(en) == []


def test_quiz_parity_finds_stale_and_keyed_translations(tmp_path, monkeypatch, en):
    data = yaml.safe_load(quiz.path_for("04").read_text(encoding="utf-8"))
    data["questions"][0]["prompt"] += "（改）"
    data["questions"][1]["en"]["answer"] = 0
    data["questions"][2].pop("en")
    monkeypatch.setattr(edition_quiz, "_raw", lambda chapter: data)
    found = edition_quiz.problems("04")
    assert any(p.startswith("construct:") and "stale" in p for p in found)
    assert any(p.startswith("silent-defaults:") and "keys are shared" in p for p in found)
    assert any(p.startswith("gradients:") and "missing translation" in p for p in found)


def test_quiz_options_have_balanced_backticks():
    """An unquoted YAML option holding `a, b` is split in two (ch04 'gradients' had 5 options instead of 4)."""
    for chapter in quiz.chapters():
        for q in quiz.load(chapter).questions:
            for text in (q.prompt, q.explanation, *q.options):
                assert text.count("`") % 2 == 0, (chapter, q.id, text)


def test_exercise_checks_are_part_of_parity():
    """The answers' python fences run in both editions (conftest.py); an English edit of them is a violation."""
    zh = REPO_ROOT / "chapters/06_advanced/03_migration_strategy.ipynb"
    en = edition.twin(zh)
    zh_nb, en_nb = nbformat.read(zh, as_version=4), nbformat.read(en, as_version=4)
    assert edition.exercise_parity(zh_nb, en_nb) == []
    cell = next(c for c in en_nb.cells if "## Exercises" in c.source)
    cell.source = cell.source.replace('scan_source("import tensorrt\\n")', 'scan_source("import tensorrt")')
    assert edition.exercise_parity(zh_nb, en_nb) == ["参考答案的代码与中文版不同"]
    cell.source = cell.source.replace("## Exercises", "## Practice")
    assert "练习部分缺失或多出" in edition.exercise_parity(zh_nb, en_nb)[0]


def test_english_toc_is_the_chinese_toc_of_the_translated_pages():
    """en/_toc.yml is what `python -m npulab edition toc` writes (the Chinese order, the pages with a twin), and every
    English page is in it: no twin is left out of the book, none is listed without its page."""
    assert (REPO_ROOT / "en" / "_toc.yml").read_text(encoding="utf-8") == edition.english_toc_text(), \
        "en/_toc.yml is stale: run python -m npulab edition toc"
    listed = set()

    def walk(entries):
        for entry in entries or []:
            listed.add(entry["file"])
            walk(entry.get("sections"))

    toc = edition.english_toc()
    for part in toc["parts"]:
        walk(part["chapters"])
    pages = {p.relative_to(REPO_ROOT / "en").with_suffix("").as_posix()
             for p in (REPO_ROOT / "en").rglob("*") if p.suffix in (".ipynb", ".md") and p.resolve() == p.absolute()
             and not any(part in ("examples", "ascendc", "_build", ".ipynb_checkpoints") for part in p.parts)}
    assert listed | {toc["root"]} == pages, (listed | {toc["root"]}) ^ pages


def test_english_toc_keeps_translated_sections_of_an_untranslated_chapter(tmp_path, en):
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: 课程\n    chapters:\n"
                                       "      - file: ch/index\n        sections:\n          - file: ch/a\n"
                                       "          - file: ch/b\n", encoding="utf-8")
    for rel in ("ch/index.md", "ch/a.ipynb", "ch/b.ipynb", "en/ch/b.ipynb"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}", encoding="utf-8")
    assert edition.english_toc(tmp_path)["parts"] == [{"caption": "Course", "chapters": [{"file": "ch/b"}]}]
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n  - caption: 新部分\n    chapters:\n"
                                       "      - file: ch/b\n", encoding="utf-8")
    with pytest.raises(UsageError, match="no English caption"):
        edition.english_toc(tmp_path)



def test_a_chinese_quiz_unit_has_its_english_word():
    """A shared unit that is a Chinese word (条) needs the English one in en:, and the English quiz shows it."""
    assert edition_quiz.problems("02") == []
    cube = next(q for q in edition_quiz.english("02").questions if q.id == "cube-instructions")
    assert cube.unit == "instructions" and next(q for q in quiz.load("02").questions if q.id == cube.id).unit == "条"
