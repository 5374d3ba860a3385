"""The set-up script installs system packages as root and otherwise prints the exact command."""

import os
import subprocess
from pathlib import Path

from npulab.core.paths import REPO_ROOT

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


PY_SCRIPT = REPO_ROOT / "scripts" / "python_packages.sh"


def _run_pip_script(tmp_path, arch, *, cpu_index_reachable=True, cann=False):
    """Run python_packages.sh with a stand-in pip that logs its arguments (and fails on an unreachable index)."""
    log = tmp_path / "pip.log"
    pip = tmp_path / "pip"
    fail = "" if cpu_index_reachable else 'case "$*" in *unreachable.invalid*) echo "pip: no route" >&2; exit 1;; esac\n'
    pip.write_text(f"#!/bin/sh\n{fail}echo \"$*\" >> {log}\n")
    pip.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "PIP": str(pip), "NPULAB_ARCH": arch,
           "NPULAB_TORCH_CPU_INDEX": "https://download.pytorch.org/whl/cpu" if cpu_index_reachable
           else "https://unreachable.invalid/whl/cpu"}
    if cann:
        env["ASCEND_HOME_PATH"] = str(tmp_path)
    result = subprocess.run(["bash", str(PY_SCRIPT)], capture_output=True, text=True, env=env, timeout=60)
    return result, log.read_text().splitlines() if log.exists() else []


def test_x86_64_takes_torch_from_the_cpu_index_first(tmp_path):
    result, calls = _run_pip_script(tmp_path, "x86_64")
    assert result.returncode == 0, result.stderr
    torch_call = next(c for c in calls if "torch==" in c and "-r" not in c.split())
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in torch_call and "--timeout" in torch_call
    assert calls.index(torch_call) < next(i for i, c in enumerate(calls) if "-r requirements.txt" in c)
    assert not any("requirements-npu.txt" in c for c in calls)


def test_unreachable_cpu_index_falls_back_to_the_reachable_indexes(tmp_path):
    result, calls = _run_pip_script(tmp_path, "x86_64", cpu_index_reachable=False)
    assert result.returncode == 0, result.stderr
    assert "CPU 索引不可用" in result.stdout and calls[-1] == "install -q -r requirements.txt"


def test_aarch64_uses_the_default_index_and_cann_adds_the_npu_pair(tmp_path):
    result, calls = _run_pip_script(tmp_path, "aarch64", cann=True)
    assert result.returncode == 0, result.stderr
    assert not any("download.pytorch.org" in c for c in calls)
    assert calls[-1] == "install -q -r requirements-npu.txt"


def test_loading_cann_later_reinstalls_on_the_next_make():
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert "$(CANN_STATE)" in makefile.split("$(STAMP):", 1)[1].splitlines()[0]


def test_one_python_version_policy():
    pyproject = (REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11,<3.12"' in pyproject
    assert "command -v python3.11)" in makefile and "python3)" not in makefile
    assert "Python 3.11" in readme
