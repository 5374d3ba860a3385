"""Lesson scratch folders: one per lesson and user, emptied on every run, never shown with machine paths."""

import pytest

from npulab.core import scratch


def test_a_lesson_reuses_one_folder_and_starts_it_empty(tmp_path, monkeypatch):
    monkeypatch.setattr(scratch.tempfile, "gettempdir", lambda: str(tmp_path))
    first = scratch.scratch_dir("ch05-atc")
    (first / "resnet50.onnx").write_bytes(b"x" * 1000)
    again = scratch.scratch_dir("ch05-atc")
    assert again == first and list(again.iterdir()) == []
    assert first.parent.name.startswith("npulab-") and (first.parent.stat().st_mode & 0o777) == 0o700
    assert [p.name for p in first.parent.iterdir()] == ["ch05-atc"]


def test_pages_show_the_folder_without_the_machine_path(tmp_path, monkeypatch):
    monkeypatch.setattr(scratch.tempfile, "gettempdir", lambda: str(tmp_path))
    folder = scratch.scratch_dir("ch01")
    assert scratch.shown(folder / "a.txt") == "<临时目录>/ch01/a.txt"
    assert scratch.shown("/elsewhere/x") == "/elsewhere/x"


@pytest.mark.parametrize("name", ["..", "a/b", "", "x y"])
def test_names_that_would_leave_the_folder_are_refused(name):
    with pytest.raises(ValueError, match="临时目录名"):
        scratch.scratch_dir(name)
