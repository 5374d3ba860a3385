"""make test runs the unit tests on two workers; a module- or class-scoped fixture (a set's measurement) must run on
one of them only, and an explicit ``xdist_group`` keeps its modules together (tests/xdist_groups.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent

SHARED = '''
import os, pytest

@pytest.fixture(scope="{scope}")
def measured():
    with open(os.environ["RUNS"], "a") as f:
        f.write("{name} " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")

{body}
'''
CLASS_BODY = "class TestSet:\n" + "".join(f"    def test_{i}(self, measured):\n        pass\n" for i in range(6))
MODULE_BODY = "".join(f"def test_{i}(measured):\n    pass\n" for i in range(6))
GROUPED = '''
import os, pytest
pytestmark = pytest.mark.xdist_group("accounts")

def test_a():
    open(os.environ["RUNS"], "a").write("grouped " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")

def test_b():
    open(os.environ["RUNS"], "a").write("grouped " + os.environ["PYTEST_XDIST_WORKER"] + "\\n")
'''


def test_a_shared_fixture_runs_once_and_a_group_stays_on_one_worker(tmp_path: Path):
    (tmp_path / "test_class_set.py").write_text(SHARED.format(scope="class", name="class", body=CLASS_BODY))
    (tmp_path / "test_module_set.py").write_text(SHARED.format(scope="module", name="module", body=MODULE_BODY))
    (tmp_path / "test_grouped_one.py").write_text(GROUPED)
    (tmp_path / "test_grouped_two.py").write_text(GROUPED)
    (tmp_path / "test_plain.py").write_text("".join(f"def test_{i}():\n    pass\n" for i in range(8)))
    runs = tmp_path / "runs.txt"
    env = {**os.environ, "RUNS": str(runs), "PYTHONPATH": str(TESTS)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist_groups",
                           "-n", "2", "--dist", "loadgroup", "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = runs.read_text().splitlines()
    assert sum(line.startswith("class ") for line in lines) == 1, lines
    assert sum(line.startswith("module ") for line in lines) == 1, lines
    workers = {line.split()[1] for line in lines if line.startswith("grouped ")}
    assert len(workers) == 1 and sum(line.startswith("grouped ") for line in lines) == 4, lines
