"""Lesson scratch folders: one per lesson and user, emptied on every run, never shown with machine paths."""

import pytest

from npulab.core import scratch


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.delenv("NPULAB_SCRATCH", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_a_lesson_reuses_one_folder_and_starts_it_empty(tmp_path):
    first = scratch.scratch_dir("ch05-atc")
    (first / "resnet50.onnx").write_bytes(b"x" * 1000)
    again = scratch.scratch_dir("ch05-atc")
    assert again == first and list(again.iterdir()) == []
    assert first.parent == tmp_path / "home" / ".cache" / "npulab" / "scratch"
    assert (first.parent.stat().st_mode & 0o777) == 0o700
    assert [p.name for p in first.parent.iterdir()] == ["ch05-atc"]


def test_pages_show_the_folder_without_the_machine_path():
    folder = scratch.scratch_dir("ch01")
    assert scratch.shown(folder / "a.txt") == "<临时目录>/ch01/a.txt"
    assert scratch.shown("/elsewhere/x") == "/elsewhere/x"


@pytest.mark.parametrize("name", ["..", "a/b", "", "x y"])
def test_names_that_would_leave_the_folder_are_refused(name):
    with pytest.raises(ValueError, match="临时目录名"):
        scratch.scratch_dir(name)


def test_the_folder_is_in_the_users_own_cache_not_the_shared_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert scratch.root() == tmp_path / "cache" / "npulab" / "scratch"
    assert not str(scratch.root()).startswith(scratch.tempfile.gettempdir() + "/npulab-")


def test_a_folder_made_open_is_closed_again(tmp_path, monkeypatch):
    folder = tmp_path / "mine"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    monkeypatch.setenv("NPULAB_SCRATCH", str(folder))
    assert scratch.root() == folder and (folder.stat().st_mode & 0o777) == 0o700


def test_a_folder_owned_by_another_account_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("NPULAB_SCRATCH", str(tmp_path))
    monkeypatch.setattr(scratch.os, "getuid", lambda: 12345)  # tmp_path belongs to the test's own account
    with pytest.raises(PermissionError, match="属于另一个账号"):
        scratch.root()
