"""lint-npu round 23b (npulab/lint/ms_log_config.py): MindSpore's log variables judged by ``_verify_config`` in the
installed ``mindspore/log.py``. Its six variables all appear in planted sets (tests/data/lint_values_*), so the values
here are ones no set uses, each with a correct twin; a cell that does not import MindSpore is not asked, and a log
directory is never created nor reported missing."""

from __future__ import annotations

import ast

import pytest

pytest.importorskip("mindspore")

from npulab.env import env_values  # noqa: E402
from npulab.lint import ms_log_config  # noqa: E402


def _findings(source: str) -> list[tuple[int, str, str]]:
    python = "\n".join("" if line.startswith("%") else line for line in source.splitlines())
    tree = ast.parse(python)
    return ms_log_config.findings(env_values.python_settings(tree) + env_values.magic_settings(source), tree)


PLANTED = [
    ('os.environ["GLOG_v"] = "5"\nimport mindspore as ms', 'os.environ["GLOG_v"] = "3"\nimport mindspore as ms',
     "GLOG_v"),
    ("%env GLOG_logtostderr=2\nimport mindspore", "%env GLOG_logtostderr=1\nimport mindspore", "GLOG_logtostderr"),
    ("%env GLOG_logtostderr=0\n%env logger_backupCount=1e3\nfrom mindspore import nn",
     "%env GLOG_logtostderr=0\n%env logger_backupCount=1000\nfrom mindspore import nn", "logger_backupCount"),
]


@pytest.mark.parametrize(("planted", "twin", "name"), PLANTED, ids=[p[2] for p in PLANTED])
def test_mindspore_refuses_the_planted_value_and_accepts_its_twin(planted, twin, name):
    found = _findings("import os\n" + planted)
    assert [n for _, n, _ in found] == [name], found
    assert "_verify_config" in found[0][2]
    assert _findings("import os\n" + twin) == []


def test_a_cell_without_mindspore_is_not_asked():
    assert _findings('import os\nos.environ["GLOG_v"] = "5"\nimport torch') == []


def test_no_log_directory_is_made_nor_missed(tmp_path):
    missing = tmp_path / "logs"
    assert _findings(f"%env GLOG_logtostderr=0\n%env GLOG_log_dir={missing}\nimport mindspore") == []
    assert _findings("%env GLOG_logtostderr=0\nimport mindspore") == []  # the directory may be set before this cell
    assert not missing.exists()
