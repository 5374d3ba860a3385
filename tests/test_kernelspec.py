"""``python -m npulab kernelspec``: a kernel per stack that sources its own CANN, checked with real Jupyter tools —
``jupyter kernelspec list`` sees it, and a kernel started by jupyter_client reports the CANN its launcher loaded
(synthetic CANN trees; the venv is this interpreter's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from npulab.env import doctor, kernelspec
from npulab.testing.synthetic_cann import loaded_environ, make_synthetic_install

VENV = Path(sys.prefix)


@pytest.fixture
def two_canns(tmp_path: Path) -> tuple[Path, Path]:
    """CANN 8.5.0 and 9.1.0 side by side, each in its own install root (as .run --install-path makes them)."""
    return (make_synthetic_install(tmp_path / "cann85", "cann", "8.5.0"),
            make_synthetic_install(tmp_path / "cann91", "cann", "9.1.0"))


def _npulab(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "npulab", *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_kernel_json_runs_a_launcher_that_sources_the_stacks_set_env(tmp_path: Path, two_canns):
    cann85, _ = two_canns
    r = _npulab("kernelspec", "--stack", "triton-ascend-pypi", "--cann", str(cann85 / "cann-8.5.0"), "--venv", str(VENV),
                "--kernels-dir", str(tmp_path / "kernels"))
    assert r.returncode == 0, r.stdout + r.stderr
    folder = tmp_path / "kernels" / "npulab-triton-ascend-pypi"
    spec = json.loads((folder / "kernel.json").read_text(encoding="utf-8"))
    assert spec["argv"][1:] == [str(folder / "launch.sh"), "-f", "{connection_file}"]
    assert spec["display_name"] == "Python（triton-ascend-pypi · CANN 8.5.0）"
    assert spec["metadata"]["npulab"]["cann"] == "8.5.0"
    launcher = (folder / "launch.sh").read_text(encoding="utf-8")
    assert f"source {(cann85 / 'cann-8.5.0' / 'set_env.sh').resolve()}" in launcher
    assert f"exec {VENV.absolute() / 'bin' / 'python'} -m ipykernel_launcher" in launcher


def test_wrong_cann_for_the_stack_is_refused_unless_forced(tmp_path: Path, two_canns):
    _, cann91 = two_canns
    args = ["kernelspec", "--stack", "triton-ascend-pypi", "--cann", str(cann91), "--venv", str(VENV),
            "--kernels-dir", str(tmp_path / "k")]
    r = _npulab(*args)
    assert r.returncode == 1 and "CANN 9.1.0" in r.stdout and "8.5.0" in r.stdout
    assert not (tmp_path / "k").exists()
    r = _npulab(*args, "--force")
    assert r.returncode == 1 and (tmp_path / "k" / "npulab-triton-ascend-pypi" / "kernel.json").exists()


@pytest.mark.parametrize("args, message", [
    (["--stack", "nope", "--cann", "/tmp", "--venv", "/tmp"], "没有名为"),
    (["--stack", "course", "--cann", "/does/not/exist", "--venv", str(VENV)], "不存在"),
    (["--stack", "course", "--cann", "/tmp", "--venv", str(VENV)], "找不到 set_env.sh"),
    (["--stack", "course", "--cann", "SETENV", "--venv", "/tmp"], "不是虚拟环境"),
    (["--stack", "course"], "required"),
])
def test_usage_errors_exit_2_without_traceback(tmp_path: Path, two_canns, args, message):
    args = [str(two_canns[1] / "cann") if a == "SETENV" else a for a in args]
    r = _npulab("kernelspec", *args)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr


def test_jupyter_lists_the_kernel_and_the_started_kernel_has_the_stacks_cann(tmp_path: Path, two_canns):
    """The real thing: `jupyter kernelspec list` finds the spec; the server's shell has CANN 9.1.0 loaded, yet the
    kernel started from the triton-ascend-pypi spec sees only CANN 8.5.0 (environment and PYTHONPATH)."""
    jupyter_client = pytest.importorskip("jupyter_client")
    cann85, cann91 = two_canns
    data_dir = tmp_path / "jupyter-data"
    env = {"JUPYTER_DATA_DIR": str(data_dir)}
    r = _npulab("kernelspec", "--stack", "triton-ascend-pypi", "--cann", str(cann85 / "cann-8.5.0"), "--venv", str(VENV),
                env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    listed = subprocess.run([sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"], capture_output=True,
                            text=True, timeout=120, env={**os.environ, **env})
    specs = json.loads(listed.stdout)["kernelspecs"]
    assert specs["npulab-triton-ascend-pypi"]["resource_dir"] == str(data_dir / "kernels" / "npulab-triton-ascend-pypi")

    server_env = loaded_environ(cann91, base={k: v for k, v in os.environ.items() if not k.startswith("ASCEND")})
    from jupyter_client.kernelspec import KernelSpecManager

    manager = jupyter_client.KernelManager(kernel_name="npulab-triton-ascend-pypi",
                                           kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(data_dir / "kernels")]))
    manager.start_kernel(env=server_env)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        code = ("import os, sys, npulab_synthetic_cann\n"
                "print(os.environ['ASCEND_HOME_PATH'], npulab_synthetic_cann.VERSION, os.environ['NPULAB_STACK'],"
                " str(sys.executable), str('cann91' in os.environ.get('PYTHONPATH', '')))")
        outputs: list[str] = []
        reply = client.execute_interactive(code, timeout=120,
                                           output_hook=lambda m: outputs.append(m["content"].get("text", "")))
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    home, version, stack, python, stale = "".join(outputs).split()
    assert home == str(cann85 / "cann") and version == "8.5.0" and stack == "triton-ascend-pypi" and stale == "False"
    assert Path(python).parent.parent == VENV.absolute() or Path(python).resolve() == Path(sys.executable).resolve()


def test_doctor_stack_reports_the_loaded_cann_against_the_stack(two_canns):
    cann85, cann91 = two_canns
    check = doctor.loaded_cann_check("triton-ascend-pypi", loaded_environ(cann85))
    assert check.status == "ok" and "CANN 8.5.0" in check.message
    check = doctor.loaded_cann_check("triton-ascend-pypi", loaded_environ(cann91))
    assert check.status == "fail" and "9.1.0" in check.message and "kernelspec --stack triton-ascend-pypi" in check.fix
    assert doctor.loaded_cann_check("triton-ascend-pypi", {}).status == "skip"
    r = _npulab("doctor", "--stack", "triton-ascend-pypi", "--json",
                env={**loaded_environ(cann91, base=dict(os.environ)), "NPULAB_DEVICE": "cpu"})
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["loaded_cann"]["status"] == "fail" and doc["stack"] == "triton-ascend-pypi"
    r = _npulab("doctor", "--stack", "triton-ascend-pypi", env=loaded_environ(cann85, base=dict(os.environ)))
    assert "本进程加载的 CANN" in r.stdout and "CANN 8.5.0" in r.stdout


def test_resolve_set_env_accepts_script_folder_and_root(two_canns):
    cann85, _ = two_canns
    for given in (cann85 / "cann" / "set_env.sh", cann85 / "cann-8.5.0", cann85):
        set_env, inst = kernelspec.resolve_set_env(given)
        assert set_env.is_file() and inst is not None and inst.version == "8.5.0", given


def test_stack_that_needs_nnal_sources_it_after_cann(tmp_path: Path):
    """vllm-ascend needs NNAL (ATB): the launcher sources NNAL's set_env.sh found beside the CANN, and a kernel
    started from it has ATB_HOME_PATH; without NNAL the spec is refused unless forced."""
    from npulab.testing.synthetic_cann import make_synthetic_nnal

    root = make_synthetic_install(tmp_path / "Ascend", "cann", "9.1.0")
    args = ["kernelspec", "--stack", "vllm-ascend", "--cann", str(root / "cann"), "--venv", str(VENV),
            "--kernels-dir", str(tmp_path / "k")]
    r = _npulab(*args)
    assert r.returncode == 1 and "NNAL" in r.stdout and "--nnal" in r.stdout and not (tmp_path / "k").exists()
    script = make_synthetic_nnal(root, "9.1.0")
    r = _npulab(*args)
    assert r.returncode == 0, r.stdout + r.stderr
    launcher = tmp_path / "k" / "npulab-vllm-ascend" / "launch.sh"
    text = launcher.read_text(encoding="utf-8")
    assert text.index(f"source {(root / 'cann-9.1.0' / 'set_env.sh').resolve()}") < text.index(f"source {script.resolve()}")
    # the launcher's environment up to exec, with a stale ATB of the server's shell dropped
    probe = text.replace("exec ", "env #", 1)
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "ATB_HOME_PATH": "/old/atb", "LD_LIBRARY_PATH": "/old/atb/lib"})
    seen = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    assert seen["ATB_HOME_PATH"].startswith(str(root)) and "/old/atb" not in seen["LD_LIBRARY_PATH"]
    r = _npulab("kernelspec", "--stack", "course", "--cann", str(root / "cann"), "--venv", str(VENV),
                "--kernels-dir", str(tmp_path / "c"))
    assert r.returncode == 0 and "atb/set_env.sh" not in (tmp_path / "c" / "npulab-course" / "launch.sh").read_text()
    r = _npulab(*args, "--nnal", str(tmp_path / "missing.sh"))
    assert r.returncode == 2 and "--nnal" in r.stderr and "Traceback" not in r.stderr


def test_triton_ascend_runs_on_the_course_cann(tmp_path: Path, two_canns):
    """Review 2026-12c M3: Triton-Ascend 3.2.2 pairs with CANN 9.1.0, the course's; 8.5.0 is the PyPI-only stack's."""
    cann85, cann91 = two_canns
    base = ["kernelspec", "--stack", "triton-ascend", "--venv", str(VENV), "--kernels-dir", str(tmp_path / "k")]
    assert _npulab(*base, "--cann", str(cann91)).returncode == 0
    r = _npulab(*base, "--cann", str(cann85), "--name", "other")
    assert r.returncode == 1 and "8.5.0" in r.stdout and "9.1.0" in r.stdout
