"""``pip install .`` (not editable) gives working tools outside the checkout: every subpackage and the data ship."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from npulab.core.paths import REPO_ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(site folder with the installed wheel, an empty working folder outside the checkout)."""
    tmp = tmp_path_factory.mktemp("wheel")
    # build from a copy: setuptools writes build/ and *.egg-info next to the sources it builds
    source = tmp / "source"
    source.mkdir()
    shutil.copy2(REPO_ROOT / "pyproject.toml", source)
    shutil.copytree(REPO_ROOT / "npulab", source / "npulab", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                    str(tmp / "dist"), str(source)], check=True, timeout=300, capture_output=True)
    wheel = next((tmp / "dist").glob("npulab-*.whl"))
    # the course's installed dependencies are reused; only npulab itself comes from the wheel
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(tmp / "site"),
                    str(wheel)], check=True, timeout=300, capture_output=True)
    (tmp / "elsewhere").mkdir()
    return tmp / "site", tmp / "elsewhere"


def _run(installed, *args: str) -> subprocess.CompletedProcess:
    site, cwd = installed
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, "-m", "npulab", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_wheel_holds_every_subpackage_and_the_data(installed):
    site, _ = installed
    packages = {p.parent.relative_to(site).as_posix() for p in site.rglob("__init__.py")}
    expected = {p.parent.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "npulab").rglob("__init__.py")
                if "__pycache__" not in p.parts}
    assert expected <= packages, expected - packages
    data = {p.relative_to(site).as_posix() for p in (site / "npulab" / "data").rglob("*") if p.is_file()}
    assert "npulab/data/compatibility.yaml" in data and any(d.startswith("npulab/data/samples/") for d in data)


def test_tools_run_from_outside_the_checkout(installed, tmp_path):
    site, _ = installed
    located = _run(installed, "doctor", "--json")
    assert located.returncode in (0, 1), located.stderr
    report = json.loads(located.stdout)
    assert report and "checks" in report or isinstance(report, dict | list)

    sample = site / "npulab" / "data" / "samples" / "info_a3_8npu_16die_25.2.1.txt"
    parsed = _run(installed, "smi", "parse", "--json", str(sample))
    assert parsed.returncode == 0, parsed.stderr
    assert json.loads(parsed.stdout)

    script = tmp_path / "train.py"
    script.write_text("import torch\nx = torch.zeros(2).cuda()\n", encoding="utf-8")
    scan = _run(installed, "migrate", "--json", str(script))
    assert scan.returncode == 0, scan.stderr
    assert json.loads(scan.stdout)["findings"]


def test_the_package_imported_is_the_installed_one(installed):
    site, cwd = installed
    code = "import npulab, npulab.core.paths as p; print(npulab.__file__); print(p.DATA_DIR.is_dir())"
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, env={**os.environ, "PYTHONPATH": str(site)},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[0].startswith(str(site)) and out[1] == "True"


def test_wheel_metadata_states_the_python_policy(installed):
    site, _ = installed
    meta = next(site.glob("npulab-*.dist-info")) / "METADATA"
    assert "Requires-Python: <3.12,>=3.11" in meta.read_text() or "Requires-Python: >=3.11,<3.12" in meta.read_text()


def test_wheel_has_no_tests_or_notebooks(installed):
    site, _ = installed
    assert not (site / "tests").exists() and not list(site.rglob("*.ipynb"))
    assert zipfile  # the wheel is a zip; its listing was checked through the installed tree
