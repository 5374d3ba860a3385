"""The set-up script installs system packages as root and otherwise prints the exact command."""

import importlib.util
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


def _run_pip_script(tmp_path, arch, *, cpu_index_reachable=True, cann=False, listed=()):
    """Run python_packages.sh with a stand-in pip that logs its arguments (and fails on an unreachable index);
    ``pip list`` prints ``listed`` (name==version lines)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "pip.log"
    pip = tmp_path / "pip"
    fail = "" if cpu_index_reachable else 'case "$*" in *unreachable.invalid*) echo "pip: no route" >&2; exit 1;; esac\n'
    listing = "".join(f"echo {line}; " for line in listed)
    pip.write_text(f"#!/bin/sh\n{fail}echo \"$*\" >> {log}\ncase \"$1\" in list) {listing}:;; esac\n")
    pip.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "PIP": str(pip), "NPULAB_ARCH": arch,
           "NPULAB_TORCH_CPU_INDEX": "https://download.pytorch.org/whl/cpu" if cpu_index_reachable
           else "https://unreachable.invalid/whl/cpu"}
    if cann:
        env["ASCEND_HOME_PATH"] = str(tmp_path)
    result = subprocess.run(["bash", str(PY_SCRIPT)], capture_output=True, text=True, env=env, timeout=60)
    return result, log.read_text().splitlines() if log.exists() else []


def _torch_calls(calls):
    """The torch steps: a torch pin installed on its own."""
    return [c for c in calls if "torch==" in c and "-r" not in c.split()]


def _from_cpu_index_only(call, index="https://download.pytorch.org/whl/cpu"):
    words = call.split()
    return "--no-deps" in words and words[words.index("--index-url") + 1] == index and "--extra-index-url" not in words


def test_x86_64_takes_torch_from_the_cpu_index_first(tmp_path):
    result, calls = _run_pip_script(tmp_path, "x86_64")
    assert result.returncode == 0, result.stderr
    (torch_call,) = _torch_calls(calls)
    assert _from_cpu_index_only(torch_call) and "--timeout" in torch_call and "torch==2.13.0" in torch_call.split()
    assert calls.index(torch_call) < next(i for i, c in enumerate(calls) if "-r requirements.txt" in c)
    assert not any("requirements-npu.txt" in c for c in calls)
    assert calls[-1] == "list --format=freeze"  # the closing check that no CUDA package got in


def test_unreachable_cpu_index_falls_back_to_the_reachable_indexes_on_x86_64(tmp_path):
    result, calls = _run_pip_script(tmp_path, "x86_64", cpu_index_reachable=False)
    assert result.returncode == 0, result.stderr
    assert "CPU 索引不可用" in result.stdout and calls[-2:] == ["install -q --no-compile -r requirements.txt", "list --format=freeze"]


def test_aarch64_takes_torch_from_the_cpu_index_too_and_cann_adds_the_npu_pair(tmp_path):
    """PyPI's aarch64 torch is a CUDA build since 2.11 (review M4): both torch pins come from the CPU index."""
    result, calls = _run_pip_script(tmp_path, "aarch64", cann=True)
    assert result.returncode == 0, result.stderr
    first, npu = _torch_calls(calls)
    assert _from_cpu_index_only(first) and "torch==2.13.0" in first.split()
    assert _from_cpu_index_only(npu) and "torch==2.12.0" in npu.split()
    assert calls.index(first) < calls.index("install -q --no-compile -r requirements.txt") < calls.index(npu)
    assert calls.index(npu) < calls.index("install -q --no-compile -r requirements-npu.txt")
    assert "aarch64：从 PyTorch CPU 索引" in result.stdout


def test_aarch64_stops_when_the_cpu_index_is_unreachable(tmp_path):
    """No fallback on aarch64: every reachable PyPI index would give the CUDA build and its nvidia-* wheels."""
    result, calls = _run_pip_script(tmp_path, "aarch64", cpu_index_reachable=False)
    assert result.returncode == 1
    assert not any("-r" in c.split() for c in calls)  # nothing else was installed
    assert "安装停止" in result.stderr and "NPULAB_TORCH_CPU_INDEX=" in result.stderr


def test_a_cuda_build_in_the_environment_fails_the_install_on_both_architectures(tmp_path):
    for arch in ("x86_64", "aarch64"):
        result, calls = _run_pip_script(tmp_path / arch, arch, listed=("torch==2.13.0", "nvidia-cudnn-cu13==9.20.0.48",
                                                                      "cuda-toolkit==13.0.3.0"))
        assert result.returncode == 1, arch
        assert "nvidia-cudnn-cu13 cuda-toolkit" in result.stderr and "NPULAB_TORCH_CPU_INDEX" in result.stderr


def test_the_install_removes_rfc3987_syntax_and_nothing_else(tmp_path):
    """jsonschema imports rfc3987-syntax whenever it is installed, and that import builds a parser (about 2 s in every
    process that reads a notebook); it came only through an extra of jupyter-events."""
    result, calls = _run_pip_script(tmp_path / "with", "x86_64", listed=("torch==2.13.0+cpu", "rfc3987-syntax==1.1.0"))
    assert result.returncode == 0, result.stderr
    assert [c for c in calls if c.startswith("uninstall")] == ["uninstall -y -q rfc3987-syntax"]
    assert calls.index("uninstall -y -q rfc3987-syntax") > calls.index("install -q --no-compile -r requirements.txt")
    result, calls = _run_pip_script(tmp_path / "without", "x86_64", listed=("torch==2.13.0+cpu",))
    assert result.returncode == 0 and not [c for c in calls if c.startswith("uninstall")]


def test_npu_install_removes_community_triton_and_says_why(tmp_path):
    result, calls = _run_pip_script(tmp_path, "aarch64", cann=True, listed=("torch==2.12.0+cpu", "triton==3.7.1"))
    assert result.returncode == 0, result.stderr
    assert calls.index("uninstall -y -q triton") > calls.index("install -q --no-compile -r requirements-npu.txt")
    assert "卸载社区版 triton" in result.stdout and "Triton-Ascend" in result.stdout


def test_npu_install_keeps_triton_ascend_and_cpu_install_keeps_triton(tmp_path):
    result, calls = _run_pip_script(tmp_path, "aarch64", cann=True, listed=("triton==3.2.0", "triton-ascend==3.2.0"))
    assert result.returncode == 0 and not any(c.startswith("uninstall") for c in calls)
    assert "保留" in result.stdout
    (tmp_path / "pip.log").unlink()
    result, calls = _run_pip_script(tmp_path, "aarch64", listed=("triton==3.7.1",))
    assert result.returncode == 0 and not any(c.startswith("uninstall") for c in calls)


def test_uv_installs_with_pips_configuration_when_the_venv_python_is_given(tmp_path):
    """PIP="<venv>/python -m pip" (as the Makefile passes it): uv is installed and does the installs."""
    log = tmp_path / "calls.log"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "python $*" >> {log}\n'
                      'case "$1" in scripts/uv_args.py) '
                      'printf -- "--index-url\\nhttps://mirror.example/simple\\n--find-links\\n/opt/wheels\\n";; esac\n')
    uv = tmp_path / "uv"
    uv.write_text(f'#!/bin/sh\necho "uv $*" >> {log}\n')
    for tool in (python, uv):
        tool.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", "PIP": f"{python} -m pip", "NPULAB_ARCH": "x86_64"}
    result = subprocess.run(["bash", str(PY_SCRIPT)], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "python -m pip install -q uv==0.13.9" and calls[1] == "python scripts/uv_args.py"
    torch_call, req_call, list_call = calls[2:]
    # the torch step keeps pip's other settings but not its index-url: the CPU index is its only index
    assert torch_call.startswith(f"uv pip install -q --python {python} --find-links /opt/wheels --no-deps --index-url")
    assert "mirror.example" not in torch_call and _from_cpu_index_only(torch_call)
    assert "torch==" in torch_call and "--timeout" not in torch_call
    assert "--index-url https://mirror.example/simple --find-links /opt/wheels" in req_call
    assert req_call.endswith("--find-links /opt/wheels -r requirements.txt") and list_call.startswith("uv pip list")
    # no installer compiles bytecode: Python compiles what is imported, once, into the Makefile's cache
    assert not any("--compile-bytecode" in c for c in calls)
    log.unlink()
    result = subprocess.run(["bash", str(PY_SCRIPT)], capture_output=True, text=True, timeout=60,
                            env={**env, "NPULAB_INSTALLER": "pip"})
    calls = log.read_text().splitlines()
    assert result.returncode == 0 and calls[0] == "python -m pip install -q --upgrade pip"
    assert not any(c.startswith("uv ") for c in calls)
    assert calls[-2:] == ["python -m pip install -q --no-compile -r requirements.txt", "python -m pip list --format=freeze"]


def test_uv_gets_the_settings_pip_would_use():
    spec = importlib.util.spec_from_file_location("uv_args", REPO_ROOT / "scripts" / "uv_args.py")
    uv_args = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(uv_args)
    listing = ("global.index-url='https://mirrors.example/simple'\n"
               ":env:.find-links='/opt/wheels'\n"
               "global.find-links='/ignored'\n"
               "global.extra-index-url='file:///a/simple file:///b/simple'\n"
               "site.index-url='https://site.example/simple'\n"
               "global.constraint='/etc/xdg/pip/constraints.txt'\n"
               "global.timeout='60'\n")
    settings = uv_args.pip_settings(listing)
    assert settings["find-links"] == "/opt/wheels"  # the environment variable beats the file
    assert settings["index-url"] == "https://site.example/simple"  # the site file beats the global one
    assert uv_args.uv_args(settings) == [
        "--index-strategy", "unsafe-best-match", "--index-url", "https://site.example/simple",
        "--extra-index-url", "file:///a/simple", "--extra-index-url", "file:///b/simple",
        "--find-links", "/opt/wheels", "--constraints", "/etc/xdg/pip/constraints.txt"]


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
