"""npulab.env.mindspore_cann: the CANN lines MindSpore accepts, read from the installed wheel and kept in the data."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from npulab.env import compatibility
from npulab.env import mindspore_cann as msc

CHECKER = '''
class EnvChecker: ...
class AscendEnvChecker(EnvChecker):
    def __init__(self, library_path):
        self.library_path = library_path
        self.version = ["8.2", "8.3"]
'''


def _fake_wheel(tmp_path: Path, checker: str | None = CHECKER, custom: str | None = "custom_opp_compiler_version=8.3.0\n"):
    if checker is not None:
        (tmp_path / msc.CHECKER_FILE).parent.mkdir(parents=True)
        (tmp_path / msc.CHECKER_FILE).write_text(checker, encoding="utf-8")
    if custom is not None:
        (tmp_path / msc.CUSTOM_OPS_FILE).parent.mkdir(parents=True)
        (tmp_path / msc.CUSTOM_OPS_FILE).write_text(custom, encoding="utf-8")
    return tmp_path


def test_the_data_matches_the_installed_wheel():
    """Read the installed mindspore's own check; the data must say the same for that version."""
    if msc.installed_package_dir() is None:
        pytest.fail("mindspore is in requirements.txt and must be installed for this test")
    wheel = msc.from_wheel()
    assert wheel.mindspore == importlib.metadata.version("mindspore")
    recorded = msc.from_data(wheel.mindspore)
    assert recorded is not None, f"compatibility.yaml 的 {msc.TABLE} 表缺少 MindSpore {wheel.mindspore} 这一行"
    assert recorded.lines == wheel.lines, "数据与 wheel 里 AscendEnvChecker.version 不一致"
    assert recorded.custom_ops_cann == wheel.custom_ops_cann, "数据与 wheel 里自定义算子的编译版本不一致"


def test_the_recommended_cann_is_the_custom_operators_line_and_the_course_default():
    recorded = msc.from_data("2.10.0")
    assert recorded.recommended_line == "9.1" and recorded.recommended_line in recorded.lines
    (row,) = [r for r in compatibility.table("mindspore_releases") if "2.10.0" in r["mindspore"]]
    assert msc.cann_line(row["cann"]) == recorded.recommended_line
    (image_row,) = [r for r in compatibility.table("mindformers_releases") if "2.10.0" in r["mindspore"]]
    assert f"cann{image_row['cann']}-mindspore2.10.0" in image_row["image"]


@pytest.mark.parametrize("cann, words", [
    ("9.1.0", "推荐"), ("9.1.1", "推荐"), ("8.5.0", "AllFinite"), ("8.0.RC3", "does not match"), ("9.2.0", "does not match"),
])
def test_verdict_is_chosen_from_the_two_checks(cann, words):
    assert words in msc.verdict(msc.from_data("2.10.0"), cann)


def test_a_fake_wheel_is_read_without_importing_it(tmp_path):
    check = msc.from_wheel(_fake_wheel(tmp_path), version="9.9.9")
    assert (check.lines, check.custom_ops_cann, check.recommended_line) == (("8.2", "8.3"), "8.3.0", "8.3")


def test_missing_custom_operators_leave_only_the_lines(tmp_path):
    check = msc.from_wheel(_fake_wheel(tmp_path, custom=None), version="x")
    assert check.custom_ops_cann is None and check.recommended_line is None
    assert "推荐" in msc.verdict(check, "8.2.0")


@pytest.mark.parametrize("checker, message", [
    (None, "不存在"),
    ("class Other:\n    pass\n", "没有找到类"),
    ("class AscendEnvChecker:\n    def __init__(self):\n        self.path = 1\n", "版本线列表"),
])
def test_bad_wheels_raise_value_error_in_chinese(tmp_path, checker, message):
    with pytest.raises(ValueError, match=message):
        msc.from_wheel(_fake_wheel(tmp_path, checker=checker), version="x")


@pytest.mark.parametrize("bad", ["", "9", "abc", "v9.1"])
def test_bad_cann_versions_raise(bad):
    with pytest.raises(ValueError, match="CANN 版本号"):
        msc.cann_line(bad)


def test_unknown_mindspore_has_no_recorded_check():
    assert msc.from_data("1.0.0") is None


def test_mindformers_for_the_course_mindspore_and_its_python():
    row = msc.mindformers_for("2.10.0")
    assert (row["mindformers"], row["hyper_parallel"], row["cann"]) == ("2.0.0", "1.0.0", "9.1.0")
    assert msc.mindformers_for("2.11.0")["mindformers"] == "2.1.0" and msc.mindformers_for("1.0") is None
    assert not msc.python_satisfies("3.11.7", row["python"]) and msc.python_satisfies("3.12.4", row["python"])
    with pytest.raises(ValueError, match="X.Y"):
        msc.python_satisfies("3.12", "~=3.12")
