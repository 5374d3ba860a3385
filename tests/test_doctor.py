"""Tests of npulab.env.doctor: the checks on synthetic trees and environments, and the command line via subprocess."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from npulab.env import doctor, triton_ascend
from npulab.env.doctor import CHECK_IDS, diagnose
from npulab.testing.fake_triton import forgotten_modules, make_fake_triton
from npulab.testing.synthetic_cann import loaded_environ, make_synthetic_install

REPO = Path(__file__).resolve().parent.parent

# a CPU course environment, independent of what this machine has installed
CPU_VERSIONS = {"numpy": "1.26.4", "torch": "2.13.0+cpu", "mindspore": "2.10.0", "torch-npu": None}
ALL_DEPS = {name: "99.0" for name in (*doctor.CANN_DEPS_REQUIRED, *doctor.CANN_DEPS_RECOMMENDED)}


def by_id(checks) -> dict:
    return {c.id: c for c in checks}


def run_doctor(tmp_path: Path, root: Path | None = None, environ=None, versions=None, dev_dir=None, **kw) -> dict:
    dev = dev_dir or (tmp_path / "dev")
    dev.mkdir(exist_ok=True)
    return by_id(diagnose(root if root is not None else tmp_path / "empty-root", environ or {}, dev_dir=dev,
                          versions={**CPU_VERSIONS, **(versions or {})}, **kw))


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    return make_synthetic_install(tmp_path / "Ascend", "legacy", "8.0.0")


@pytest.fixture
def new(tmp_path: Path) -> Path:
    return make_synthetic_install(tmp_path / "Ascend", "cann", "8.5.0")


# ----------------------------------------------------------------------------------------------- CPU machine


def test_cpu_machine_has_no_failure(tmp_path: Path):
    checks = run_doctor(tmp_path)
    assert tuple(checks) == CHECK_IDS
    assert not [c for c in checks.values() if c.status == "fail"]
    for cid in ("cann_install", "cann_env", "driver", "device_nodes", "npu_smi", "torch_npu", "version_alignment"):
        assert checks[cid].status == "skip", cid
    assert "课程将以 CPU 模式运行" in checks["cann_install"].message
    assert doctor.exit_code(list(checks.values())) == 0


def test_default_search_covers_both_roots(tmp_path: Path):
    checks = by_id(diagnose(None, {"HOME": str(tmp_path)}, dev_dir=tmp_path, versions=CPU_VERSIONS))
    if not Path("/usr/local/Ascend").exists():
        assert "/usr/local/Ascend" in checks["cann_install"].message
        assert str(tmp_path / "Ascend") in checks["cann_install"].message


def test_home_install_found_without_root(tmp_path: Path):
    make_synthetic_install(tmp_path / "Ascend", "cann", "8.5.0")
    checks = by_id(diagnose(None, {"HOME": str(tmp_path)}, dev_dir=tmp_path, versions=CPU_VERSIONS))
    if not Path("/usr/local/Ascend").exists():
        assert checks["cann_install"].status == "ok" and "8.5.0" in checks["cann_install"].message


# ----------------------------------------------------------------------------------------------- CANN present


@pytest.mark.parametrize("layout, script", [("legacy", "ascend-toolkit/set_env.sh"), ("cann", "cann/set_env.sh")])
def test_cann_present_but_not_loaded_fails_with_the_exact_source_line(tmp_path: Path, layout: str, script: str):
    root = make_synthetic_install(tmp_path / "Ascend", layout, "8.0.0" if layout == "legacy" else "8.5.0")
    checks = run_doctor(tmp_path, root)
    assert checks["cann_install"].status == "ok"
    assert checks["cann_env"].status == "fail"
    assert f"source {root}/{script}" in checks["cann_env"].fix


def test_cann_loaded(tmp_path: Path, legacy: Path):
    checks = run_doctor(tmp_path, legacy, environ=loaded_environ(legacy), versions=ALL_DEPS)
    assert checks["cann_env"].status == "ok"
    assert checks["cann_python_deps"].status == "ok"
    assert checks["driver"].status == "ok" and "24.1.0.3" in checks["driver"].message


def test_cann_loaded_from_another_install(tmp_path: Path, legacy: Path):
    other = make_synthetic_install(tmp_path / "Other", "cann", "8.5.0")
    checks = run_doctor(tmp_path, legacy, environ=loaded_environ(other))
    assert checks["cann_env"].status == "warn" and "不是同一个" in checks["cann_env"].message


def test_cann_env_pointing_nowhere(tmp_path: Path):
    env = {"ASCEND_HOME_PATH": "/gone", "ASCEND_TOOLKIT_HOME": "/gone", "ASCEND_OPP_PATH": "/gone/opp"}
    checks = run_doctor(tmp_path, environ=env)
    assert checks["cann_env"].status == "fail" and "不存在" in checks["cann_env"].message


def test_dangling_latest_is_a_failure_not_a_traceback(tmp_path: Path, legacy: Path):
    latest = legacy / "ascend-toolkit" / "latest"
    latest.unlink()
    latest.symlink_to("9.9.9")
    checks = run_doctor(tmp_path, legacy)
    assert checks["cann_install"].status == "fail" and "悬空链接" in checks["cann_install"].message


def test_garbage_version_files_warn(tmp_path: Path, legacy: Path):
    home = legacy / "ascend-toolkit" / "8.0.0"
    for info in home.glob("*-linux/ascend_toolkit_install.info"):
        info.write_bytes(b"\x00\xff garbage")
    (home / "version.cfg").write_text("")
    (legacy / "driver" / "version.info").write_bytes(b"\x89PNG\r\n\x1a\n")
    checks = run_doctor(tmp_path, legacy)
    assert checks["cann_install"].status == "warn"
    assert checks["driver"].status == "warn" and "二进制" in checks["driver"].message


def test_driver_missing_and_incompatible(tmp_path: Path):
    root = make_synthetic_install(tmp_path / "A", "cann", "9.1.0", driver_version=None)
    assert run_doctor(tmp_path, root)["driver"].status == "warn"
    root = make_synthetic_install(tmp_path / "B", "cann", "9.1.0", driver_version="25.0.3")
    checks = run_doctor(tmp_path, root)
    assert checks["driver"].status == "warn" and "不兼容" in checks["driver"].message
    root = make_synthetic_install(tmp_path / "C", "cann", "8.5.0", driver_version="24.1.0.3")
    checks = run_doctor(tmp_path, root)
    assert checks["driver"].status == "warn" and "25.0.X" in checks["driver"].fix  # 8.5.0 pairs with 25.5.X … 25.0.X
    root = make_synthetic_install(tmp_path / "D", "cann", "8.5.0", driver_version="25.5.0.1")
    assert run_doctor(tmp_path, root)["driver"].status == "ok"


def test_devices_and_npu_smi(tmp_path: Path, legacy: Path):
    dev = tmp_path / "fakedev"
    dev.mkdir()
    for i in range(8):
        (dev / f"davinci{i}").touch()
    smi_dir = tmp_path / "bin"
    smi_dir.mkdir()
    (smi_dir / "npu-smi").write_text("#!/bin/sh\n")
    (smi_dir / "npu-smi").chmod(0o755)
    env = {**loaded_environ(legacy), "PATH": str(smi_dir), "ASCEND_RT_VISIBLE_DEVICES": "7"}
    checks = run_doctor(tmp_path, legacy, environ=env, dev_dir=dev)
    assert checks["device_nodes"].status == "ok" and "8 个" in checks["device_nodes"].message
    assert checks["npu_smi"].status == "ok"
    assert checks["visible_devices"].status == "ok" and "逻辑 ID 7" in checks["visible_devices"].message
    env["ASCEND_RT_VISIBLE_DEVICES"] = "8"
    assert run_doctor(tmp_path, legacy, environ=env, dev_dir=dev)["visible_devices"].status == "fail"


def test_visible_devices_in_a_container_with_some_device_nodes(tmp_path: Path, legacy: Path):
    """Nodes davinci4/davinci5 only: node numbers are physical IDs, so the logical-ID range is not checked."""
    dev = tmp_path / "fakedev"
    dev.mkdir()
    for name in ("davinci4", "davinci5", "davinci_manager"):
        (dev / name).touch()
    env = {**loaded_environ(legacy), "ASCEND_RT_VISIBLE_DEVICES": "4,5"}
    check = run_doctor(tmp_path, legacy, environ=env, dev_dir=dev)["visible_devices"]
    assert check.status == "ok" and "npu-smi info -m" in check.message
    env["ASCEND_RT_VISIBLE_DEVICES"] = "5,4"
    assert run_doctor(tmp_path, legacy, environ=env, dev_dir=dev)["visible_devices"].status == "fail"


def test_cann_without_devices_or_npu_smi_warns(tmp_path: Path, legacy: Path):
    checks = run_doctor(tmp_path, legacy, environ=loaded_environ(legacy))
    assert checks["device_nodes"].status == "warn" and checks["npu_smi"].status == "warn"


@pytest.mark.parametrize("value, status", [("abc", "fail"), ("1,1", "fail"), ("-1", "fail"), ("", "warn"),
                                           (" 7 ", "fail"), ("1, 2,3", "fail"), ("6,4", "fail"), ("7", "ok"),
                                           ("4,5,6,7", "ok")])
def test_visible_devices(tmp_path: Path, value: str, status: str):
    check = run_doctor(tmp_path, environ={"ASCEND_RT_VISIBLE_DEVICES": value})["visible_devices"]
    assert check.status == status
    assert "物理" not in check.message + check.fix
    if status == "fail":
        assert "4,5,6,7" in check.fix and "升序" in check.fix and "逻辑 ID" in check.fix


def test_visible_devices_doctor_explains_what_cann_reads(tmp_path: Path):
    check = run_doctor(tmp_path, environ={"ASCEND_RT_VISIBLE_DEVICES": "1, 2,3"})["visible_devices"]
    assert check.status == "fail" and "只读取出错位置之前的逻辑 ID：1" in check.message
    check = run_doctor(tmp_path, environ={"ASCEND_RT_VISIBLE_DEVICES": "6,4"})["visible_devices"]
    assert "升序" in check.message


# ----------------------------------------------------------------------------------------------- packages


def test_numpy_rules(tmp_path: Path):
    assert run_doctor(tmp_path, versions={"numpy": "2.4.6"})["numpy"].status == "fail"
    assert run_doctor(tmp_path, versions={"numpy": "2.4.6", "mindspore": None})["numpy"].status == "warn"
    assert run_doctor(tmp_path, versions={"numpy": None})["numpy"].status == "fail"


def test_torch_and_mindspore_presence(tmp_path: Path):
    checks = run_doctor(tmp_path, versions={"torch": None, "mindspore": None})
    assert checks["torch"].status == "fail" and checks["mindspore"].status == "warn"
    checks = run_doctor(tmp_path, versions={"mindspore": "2.4.10"})
    assert "8.0.0" in checks["mindspore"].message


def test_python_check_reads_the_torch_table(tmp_path: Path):
    assert run_doctor(tmp_path)["python"].status == "ok"
    if sys.version_info[:2] == (3, 11):
        assert run_doctor(tmp_path, versions={"torch": "2.2.0"})["python"].status == "warn"


def test_cann_deps(tmp_path: Path, legacy: Path):
    env = loaded_environ(legacy)
    checks = run_doctor(tmp_path, legacy, environ=env, versions={**ALL_DEPS, "attrs": None})
    deps = checks["cann_python_deps"]
    assert deps.status == "fail" and "attrs" in deps.message
    for step in ("No module named 'attr'", "GELib::InnerInitialize failed", "GEInitialize failed"):
        assert step in deps.fix
    too_old = run_doctor(tmp_path, legacy, environ=env, versions={**ALL_DEPS, "decorator": "4.0.0"})
    assert too_old["cann_python_deps"].status == "fail"
    official = run_doctor(tmp_path, legacy, environ=env, versions={**ALL_DEPS, "pathlib2": None})
    assert official["cann_python_deps"].status == "fail"  # in the CANN 9.1 official list (instg_0045), review L23
    optional = run_doctor(tmp_path, legacy, environ=env, versions={**ALL_DEPS, "cloudpickle": None})
    assert optional["cann_python_deps"].status == "warn"  # seed-only
    assert run_doctor(tmp_path, versions={"attrs": None})["cann_python_deps"].status == "skip"


def test_version_alignment(tmp_path: Path):
    root = make_synthetic_install(tmp_path / "A", "legacy", "8.0.1")
    seed = {"torch": "2.1.0", "torch-npu": "2.1.0.post13"}
    check = run_doctor(tmp_path, root, versions=seed, probe_timeout=0)["version_alignment"]
    assert check.status == "warn" and "8.2.RC1" in check.message
    check = run_doctor(tmp_path, root, versions={"torch": "2.13.0", "torch-npu": "2.1.0.post13"},
                       probe_timeout=0)["version_alignment"]
    assert check.status == "fail"
    root = make_synthetic_install(tmp_path / "B", "legacy", "8.2.RC1")
    assert run_doctor(tmp_path, root, versions=seed, probe_timeout=0)["version_alignment"].status == "ok"


# ----------------------------------------------------------------------------------------------- torch_npu probe


@pytest.fixture
def fake_torch_npu(tmp_path: Path) -> Path:
    """A stand-in module named torch_npu that fails the way the real one does without CANN (it is not torch_npu)."""
    pkg = tmp_path / "fake_site" / "torch_npu"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "raise ImportError('libhccl.so: cannot open shared object file: No such file or directory')\n")
    return pkg.parent


def test_torch_npu_skipped_when_not_installed(tmp_path: Path):
    assert run_doctor(tmp_path)["torch_npu"].status == "skip"
    assert run_doctor(tmp_path, versions={"torch-npu": "2.1.0.post13"}, probe_timeout=0)["torch_npu"].status == "skip"


def test_probe_reports_the_import_error(tmp_path: Path, fake_torch_npu: Path, legacy: Path):
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(fake_torch_npu)}
    result = doctor.probe_torch_npu(env, timeout=20)
    assert result["ok"] is False and "libhccl.so" in result["error"]
    check = run_doctor(tmp_path, legacy, environ=env, versions={"torch-npu": "2.1.0.post13"},
                       probe_timeout=20)["torch_npu"]
    assert check.status == "fail" and f"source {legacy}/ascend-toolkit/set_env.sh" in check.fix


def test_probe_timeout(tmp_path: Path, fake_torch_npu: Path):
    (fake_torch_npu / "torch_npu" / "__init__.py").write_text("import time\ntime.sleep(30)\n")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(fake_torch_npu)}
    check = run_doctor(tmp_path, environ=env, versions={"torch-npu": "2.1.0.post13"}, probe_timeout=0.5)["torch_npu"]
    assert check.status == "warn" and "超过" in check.message


def test_a_crashing_check_becomes_a_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def boom(ctx):
        raise RuntimeError("kaputt")

    monkeypatch.setattr(doctor, "_CHECKS", (("python", boom), *doctor._CHECKS[1:]))
    checks = run_doctor(tmp_path)
    assert checks["python"].status == "warn" and "kaputt" in checks["python"].message


def test_render_marks(tmp_path: Path):
    text = doctor.render(list(run_doctor(tmp_path, environ={"ASCEND_RT_VISIBLE_DEVICES": "abc"}).values()))
    assert "✓" in text and "-" in text and "✗" in text and "修复：" in text and "失败 1 项" in text


# ----------------------------------------------------------------------------------------------- command line


def _clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_")}
    env.update(HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO), **extra)
    return env


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, float, float]:
    """The finished run, its wall seconds and the CPU seconds it and the processes it waited for spent (what the
    doctor itself costs, however busy the machine is)."""
    start, cpu_start = time.perf_counter(), _children_cpu_seconds()
    proc = subprocess.run([sys.executable, "-m", "npulab", "doctor", *args], cwd=REPO, capture_output=True,
                          text=True, env=env or _clean_env(tmp_path), timeout=60)
    return proc, time.perf_counter() - start, _children_cpu_seconds() - cpu_start


def _assert_json_shape(stdout: str) -> dict:
    data = json.loads(stdout)
    assert list(data) == ["checks"]
    for item in data["checks"]:
        assert list(item) == ["id", "status", "message", "fix"]
        assert item["status"] in doctor.STATUSES and item["message"]
    ids = [c["id"] for c in data["checks"]]
    assert set(CHECK_IDS) <= set(ids)
    return {c["id"]: c for c in data["checks"]}


def test_cli_json_on_a_cpu_machine_is_fast_and_exits_0(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc, seconds, cpu_seconds = cli(tmp_path, "--json", "--ascend-root", str(empty))
    assert proc.returncode == 0, proc.stderr
    checks = _assert_json_shape(proc.stdout)
    assert checks["cann_install"]["status"] == "skip"
    assert "Traceback" not in proc.stderr
    # it computes in well under 2 s of CPU, and waits for nothing (no probe hangs): the wall limit only leaves room
    # for the other processes a busy machine runs beside it
    assert cpu_seconds < 2.0 and seconds < 10.0, f"doctor took {cpu_seconds:.2f} s of CPU, {seconds:.2f} s in all"


def test_cli_cann_not_loaded_exits_1(tmp_path: Path, legacy: Path):
    proc, *_ = cli(tmp_path, "--json", "--ascend-root", str(legacy))
    assert proc.returncode == 1
    checks = _assert_json_shape(proc.stdout)
    assert checks["cann_env"]["status"] == "fail"
    assert checks["cann_env"]["fix"].endswith(f"source {legacy}/ascend-toolkit/set_env.sh")


def test_cli_with_cann_loaded_by_sourcing(tmp_path: Path, new: Path):
    script = f"source {new}/cann/set_env.sh && exec {sys.executable} -m npulab doctor --json --ascend-root {new}"
    proc = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True, env=_clean_env(tmp_path))
    checks = _assert_json_shape(proc.stdout)
    assert checks["cann_env"]["status"] == "ok"
    assert checks["cann_install"]["status"] == "ok" and "8.5.0" in checks["cann_install"]["message"]


@pytest.mark.parametrize("args", [("--ascend-root", "/definitely/not/here"), ("--bogus",), ("--probe-timeout", "x")])
def test_cli_usage_errors_exit_2(tmp_path: Path, args):
    proc, *_ = cli(tmp_path, "--json", *args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.strip()


def test_cli_root_that_is_a_file_exits_2(tmp_path: Path):
    file_root = tmp_path / "file"
    file_root.write_text("x")
    proc, *_ = cli(tmp_path, "--ascend-root", str(file_root))
    assert proc.returncode == 2 and "目录" in proc.stderr and "Traceback" not in proc.stderr


def test_cli_bad_visible_devices_exits_1_without_traceback(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc, *_ = cli(tmp_path, "--json", "--ascend-root", str(empty),
                  env=_clean_env(tmp_path, ASCEND_RT_VISIBLE_DEVICES="abc"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert _assert_json_shape(proc.stdout)["visible_devices"]["status"] == "fail"


def test_cli_odd_tree_no_traceback(tmp_path: Path, legacy: Path):
    (legacy / "ascend-toolkit" / "latest").unlink()
    (legacy / "ascend-toolkit" / "latest").symlink_to("/nowhere")
    (legacy / "driver" / "version.info").write_bytes(os.urandom(64) + b"\x00")
    (legacy / "cann").symlink_to(legacy / "cann")  # a link to itself
    proc, *_ = cli(tmp_path, "--json", "--ascend-root", str(legacy))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    _assert_json_shape(proc.stdout)


def test_cli_human_output(tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc, *_ = cli(tmp_path, "--ascend-root", str(empty))
    assert proc.returncode == 0 and "✓ python" in proc.stdout and "- cann_install" in proc.stdout


def test_standalone_module_entry_point(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "npulab", "doctor", "--ascend-root", "/definitely/not/here"],
                          cwd=REPO, capture_output=True, text=True, env=_clean_env(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


# ----------------------------------------------------------------------------------------------- torch_npu + Triton


@pytest.fixture
def no_imported_triton():
    with forgotten_modules("triton"):
        yield


def test_triton_check_skipped_without_torch_npu(tmp_path: Path):
    assert run_doctor(tmp_path)["triton"].status == "skip"


def test_torch_npu_with_community_triton_warns_with_the_fix(tmp_path: Path):
    """The real community triton of requirements.txt next to torch_npu: the combination that breaks inductor.
    (Its C extension cannot be imported twice in one process, so this test keeps whatever triton is loaded.)"""
    pytest.importorskip("triton")
    check = run_doctor(tmp_path, versions={"torch-npu": "2.12.0"}, probe_timeout=0)["triton"]
    assert check.status == "warn" and "triton.language.extra.ascend" in check.message
    assert "pip uninstall -y triton" in check.fix and "triton-ascend" in check.fix


@pytest.mark.parametrize("libdevice", ["cann", "ascend"])
def test_torch_npu_with_triton_ascend_is_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_imported_triton,
                                              libdevice: str):
    monkeypatch.syspath_prepend(str(make_fake_triton(tmp_path / "site", libdevice=libdevice, ascend_backend=True)))
    check = run_doctor(tmp_path, versions={"torch-npu": "2.12.0"}, probe_timeout=0)["triton"]
    assert check.status == "ok" and f"triton.language.extra.{libdevice}.libdevice" in check.message


def test_torch_npu_without_any_triton_is_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_imported_triton):
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not (Path(p) / "triton").is_dir()])
    monkeypatch.setattr(triton_ascend, "metadata_version", lambda name: None)
    check = run_doctor(tmp_path, versions={"torch-npu": "2.12.0"}, probe_timeout=0)["triton"]
    assert check.status == "ok" and "aot_eager" in check.message
