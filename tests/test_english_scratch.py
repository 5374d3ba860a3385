"""Lesson scratch folders in English (issue 37): a scratch path is shown with the site's placeholder in the reader's
language (``<temporary folder>``, ``<临时目录>``: site.path_tmp, as the site's own path scrubbing writes it), and the
refusals come from the catalogue (npulab/data/messages/scratch.yaml)."""


import pytest
from english_checks import CJK

from npulab.core import scratch
from npulab.site.language import EN, ZH
from npulab.site.paths import path_replacements, scrub_paths


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.delenv("NPULAB_SCRATCH", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_scratch_paths_and_refusals_in_english(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "en")
    folder = scratch.scratch_dir("ch05-atc")
    assert scratch.shown(folder / "resnet50.onnx") == "<temporary folder>/ch05-atc/resnet50.onnx"
    # the same placeholder as the English site writes for a path in the system temp folder
    assert scrub_paths(f"{scratch.tempfile.gettempdir()}/tmpab12/x", path_replacements(EN)) == "<temporary folder>/x"
    with pytest.raises(ValueError) as refused:
        scratch.scratch_dir("a/b")
    assert CJK.search(str(refused.value)) is None
    assert str(refused.value) == ("a scratch folder name may hold only letters, digits, dots, underscores and hyphens; "
                                  "got 'a/b'")


def test_scratch_chinese_is_unchanged(monkeypatch):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    folder = scratch.scratch_dir("ch01")
    assert scratch.shown(folder / "a.txt") == "<临时目录>/ch01/a.txt"
    assert scrub_paths(f"{scratch.tempfile.gettempdir()}/tmpab12/x", path_replacements(ZH)) == "<临时目录>/x"
    with pytest.raises(ValueError) as refused:
        scratch.scratch_dir("x y")
    assert str(refused.value) == "临时目录名只能含字母、数字、点、下划线与连字符，收到 'x y'"
