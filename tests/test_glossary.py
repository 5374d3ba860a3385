"""The glossary both editions use (npulab/data/glossary.yaml; docs/english_edition.md, issue 37)."""

import json

import nbformat
import yaml

from npulab.core.paths import REPO_ROOT
from npulab.course import edition, glossary


def _raw():
    return yaml.safe_load(glossary.GLOSSARY_FILE.read_text(encoding="utf-8"))


def test_schema_and_no_duplicates():
    data = _raw()
    assert data["schema"] == 1
    assert glossary.schema_problems(data["terms"]) == []
    assert len(glossary.terms()) >= 60


def test_official_terms_cite_a_public_source():
    official = [t for t in glossary.terms() if t.official]
    assert len(official) >= 8
    for t in official:
        assert t.source and t.source.startswith("https://") and "reference" not in t.source, t


def _chinese_course_text() -> str:
    texts = []
    for folder in ("chapters", "notebooks"):
        for path in (REPO_ROOT / folder).rglob("*.ipynb"):
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            texts += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        texts += [p.read_text(encoding="utf-8") for p in (REPO_ROOT / folder).rglob("*.md")]
    texts += [p.read_text(encoding="utf-8") for p in (REPO_ROOT / "about").glob("*.md")]
    return "\n".join(texts)


def test_every_chinese_term_occurs_in_the_course():
    course = _chinese_course_text()
    assert [t.zh for t in glossary.terms() if t.zh not in course] == []


def test_english_pages_use_the_glossary_terms():
    """Where a Chinese Markdown cell (or page) uses a zh term, its translation uses the en term (or official/also)."""
    misses = []
    for zh, en in edition.pairs(None):
        if en.suffix == ".md":
            pairs = [("page", zh.read_text(encoding="utf-8"), en.read_text(encoding="utf-8"))]
        else:
            source = {c.id: c.source for c in nbformat.read(zh, as_version=4).cells}
            pairs = [(c.id, source[c.id], c.source) for c in nbformat.read(en, as_version=4).cells
                     if c.cell_type == "markdown"]
        for cell_id, zh_text, en_text in pairs:
            misses += [(en.name, cell_id, t.zh, t.en) for t in glossary.missing_terms(zh_text, en_text)]
    assert misses == []


def test_missing_terms_is_a_plain_substring_check():
    assert [t.zh for t in glossary.missing_terms("昇腾的算子", "Ascend operators")] == []
    assert "算子" in [t.zh for t in glossary.missing_terms("算子", "kernels")]


def test_a_word_that_only_contains_a_term_does_not_ask_for_it():
    assert "量化" not in [t.zh for t in glossary.missing_terms("向量化的比较", "a vectorised comparison")]
    assert "量化" in [t.zh for t in glossary.missing_terms("向量化之后再量化", "vectorised, then rounded")]


def test_not_in_lists_only_longer_words_that_hold_the_term():
    assert glossary.schema_problems([{"zh": "量化", "en": "quantization", "not_in": ["化"]}])
    assert not glossary.schema_problems([{"zh": "量化", "en": "quantization", "not_in": ["向量化"]}])
