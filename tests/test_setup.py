"""The set-up script installs system packages as root and otherwise prints the exact command."""

import os
import subprocess
from pathlib import Path

from npulab.paths import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "system_packages.sh"


def _fake_bin(tmp_path: Path, uid: int, fonts: str) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in {"id": f"echo {uid}", "fc-list": f"printf '{fonts}'",
                       "apt-get": "echo apt-get \"$@\" >> \"$APT_LOG\""}.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
    return bin_dir


def _run(tmp_path, uid, fonts=""):
    bin_dir = _fake_bin(tmp_path, uid, fonts)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "APT_LOG": str(tmp_path / "apt.log"),
           "NPULAB_SKIP_BROWSER": "1", "NPULAB_SKIP_NODE": "1"}
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env)


def test_non_root_gets_the_exact_command(tmp_path):
    r = _run(tmp_path, uid=1000)
    assert r.returncode == 0
    assert "sudo apt-get install -y --no-install-recommends fonts-noto-cjk" in r.stdout
    assert not (tmp_path / "apt.log").exists()


def test_root_installs_what_is_missing(tmp_path):
    r = _run(tmp_path, uid=0)
    assert r.returncode == 0, r.stderr
    log = (tmp_path / "apt.log").read_text()
    assert "install -y -qq --no-install-recommends fonts-noto-cjk" in log


def test_nothing_to_do_when_the_font_is_there(tmp_path):
    r = _run(tmp_path, uid=0, fonts="/usr/share/fonts/NotoSansCJK-Regular.ttc: Noto Sans CJK SC\\n")
    assert r.returncode == 0 and r.stdout == "" and not (tmp_path / "apt.log").exists()


def test_ci_runs_the_readme_test_command():
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert os.access(REPO_ROOT / ".ci" / "run", os.X_OK)
    assert "make test" in ci and "make test" in readme
