"""``doctor --stack NAME --python PATH``: a stack's own interpreter answers through npulab/env/stack_probe.py, which
needs only the standard library. Checked with real interpreters of the Pythons the stacks use (MindSpeed-LLM 3.10,
the vLLM-Ascend image 3.12; pyenv's builds on this machine image) in throwaway venvs with a real package installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from npulab.core.cli import UsageError
from npulab.env import stack_check, stack_probe, stacks
from npulab.testing.synthetic_cann import loaded_environ, make_synthetic_install, make_synthetic_nnal

PYENV = Path(os.environ.get("PYENV_ROOT", "/root/.pyenv")) / "versions"
INTERPRETERS = {"3.10": PYENV / "3.10.13/bin/python", "3.12": PYENV / "3.12.1/bin/python"}


def _npulab(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "npulab", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module", params=sorted(INTERPRETERS))
def stack_venv(request, tmp_path_factory) -> Path:
    """A venv of a non-course Python with six 1.16.0 installed by uv (real .dist-info metadata)."""
    python = INTERPRETERS[request.param]
    if not python.is_file():
        pytest.skip(f"没有 Python {request.param} 的解释器（{python}）：这台机器的镜像没有 pyenv 的这个版本")
    uv = stacks.uv_binary()
    if not uv:
        pytest.skip("没有 uv（scripts/python_packages.sh 把它装进 venv）")
    folder = tmp_path_factory.mktemp(f"py{request.param}") / "venv"
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    done = subprocess.run([uv, "pip", "install", "-q", "--python", str(folder / "bin/python"), "six==1.16.0"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"装不上 six 1.16.0（包索引不可达？）：{done.stderr.strip()[-200:]}")
    return folder


def test_probe_reads_the_other_interpreters_metadata(stack_venv):
    doc = stack_probe.query(stack_venv)  # a venv folder is accepted as well as its bin/python
    assert doc["python"].rsplit(".", 1)[0] in INTERPRETERS and doc["distributions"]["six"] == "1.16.0"
    assert Path(doc["prefix"]).resolve() == stack_venv.resolve() and "torch" not in doc["distributions"]
    assert set(doc["environ"]) == set(stack_probe.ENVIRON_KEYS)


def test_stack_check_with_python_checks_that_interpreter(stack_venv, tmp_path, monkeypatch, capsys):
    """A stack that pins six: satisfied from the stack venv's metadata, whatever the course venv has."""
    data = tmp_path / "stacks.yaml"
    data.write_text('stacks:\n  toy:\n    title: toy\n    environment: venv\n    packages: {six: "==1.16.0", torch: "==2.10.0"}\n'
                    '    cann: null\n    python: [">=3.10", "<3.13"]\n    install: ["pip install six==1.16.0"]\n'
                    '    sources: ["test"]\n', encoding="utf-8")
    monkeypatch.setattr(stacks, "STACKS", data)
    probe = stack_check.probe_python(str(stack_venv / "bin/python"))
    assert stack_check.run("toy", probe=probe, as_json=True) == 1  # torch missing there
    doc = json.loads(capsys.readouterr().out)
    rows = {c["id"]: c for c in doc["checks"]}
    assert rows["six"]["status"] == "ok" and rows["torch"]["status"] == "fail" and rows["Python"]["status"] == "ok"
    assert doc["python"] == probe["executable"]


def test_doctor_stack_python_runs_where_npulab_cannot(stack_venv):
    """npulab needs 3.11 (tomllib); the stack's 3.10 / 3.12 venv is checked from outside, no traceback."""
    r = _npulab("doctor", "--stack", "mindspeed-llm", "--python", str(stack_venv / "bin/python"), "--json")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    doc = json.loads(r.stdout)
    rows = {c["id"]: c for c in doc["checks"]}
    assert rows["torch"]["status"] == "fail" and "未安装" in rows["torch"]["message"]
    assert rows["Python"]["status"] == ("ok" if rows["Python"]["message"].startswith("3.10.") else "fail")
    assert Path(doc["python"]).parent.parent == stack_venv
    r = _npulab("doctor", "--stack", "vllm-ascend", "--python", str(stack_venv))
    assert r.returncode == 1 and "核对的解释器：" in r.stdout and str(stack_venv) in r.stdout


def test_probe_script_runs_by_hand_on_old_pythons():
    """The standalone form (no npulab import): the oldest Python the file promises, 3.8, if this image has it."""
    python = PYENV / "3.8.18/bin/python"
    if not python.is_file():
        pytest.skip(f"没有 Python 3.8 的解释器（{python}）")
    done = subprocess.run([str(python), stack_probe.__file__], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["python"].startswith("3.8.")


@pytest.mark.parametrize("given, message", [
    ("/does/not/exist/python", "不是可执行的 Python 解释器"),
    ("/etc", "不是可执行的 Python 解释器"),  # a folder without bin/python
    ("/bin/true", "没有给出版本清单"),
])
def test_bad_python_is_a_usage_error(given, message):
    with pytest.raises(UsageError, match=message):
        stack_check.probe_python(given)
    r = _npulab("doctor", "--stack", "vllm-ascend", "--python", given)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_python_without_stack_is_a_usage_error():
    r = _npulab("doctor", "--python", sys.executable)
    assert r.returncode == 2 and "--stack" in r.stderr and "Traceback" not in r.stderr


def test_nnal_row_for_the_stacks_that_need_it(tmp_path):
    """vllm-ascend (ATB extensions on A2/A3) wants NNAL loaded: ATB_HOME_PATH from NNAL's set_env.sh."""
    root = make_synthetic_install(tmp_path / "Ascend", "cann", "9.1.0")
    make_synthetic_nnal(root, "9.1.0")
    environ = loaded_environ(root, nnal=True)
    row = stack_check.nnal_check("vllm-ascend", environ, "9.1.0")
    assert row.status == "ok" and environ["ATB_HOME_PATH"] in row.message
    row = stack_check.nnal_check("vllm-ascend", loaded_environ(root), "9.1.0")
    assert row.status == "fail" and "source /usr/local/Ascend/nnal/atb/set_env.sh" in row.fix
    assert stack_check.nnal_check("vllm-ascend", {}, None).status == "skip"
    assert stack_check.nnal_check("vllm-ascend", {"ATB_HOME_PATH": str(tmp_path / "gone")}, "9.1.0").status == "fail"
    assert stack_check.nnal_check("course", environ, "9.1.0") is None  # the course stack loads no ATB
    r = _npulab("doctor", "--stack", "vllm-ascend", "--json", "--ascend-root", str(root),
                env={**environ, "NPULAB_DEVICE": "cpu"})
    assert {c["id"]: c["status"] for c in json.loads(r.stdout)["checks"]}["NNAL"] == "ok", r.stderr
