"""The CANN install inspection (npulab/env/cann_install.py) in English (issue 37): with NPULAB_LANG=en the problems it
finds in a broken CANN tree, the environment problems and the summary line come from the catalogue
(npulab/data/messages/cann.yaml), so `python -m npulab doctor` on a broken CANN prints no Chinese; with
NPULAB_LANG=zh they are the Chinese they were."""

from __future__ import annotations

from pathlib import Path

from english_checks import no_cjk

from npulab.__main__ import main
from npulab.env import cann_install, doctor
from npulab.testing.synthetic_cann import make_synthetic_install

CPU = {"numpy": "1.26.4", "torch": "2.13.0+cpu", "mindspore": "2.10.0", "torch-npu": None}


def _broken(tmp_path: Path) -> Path:
    """A legacy CANN 8.0.0 tree with a missing set_env.sh, disagreeing version files and a driver without version.info."""
    root = make_synthetic_install(tmp_path / "Ascend", "legacy", "8.0.0")
    for script in root.rglob("set_env.sh"):
        script.unlink()
    for info in root.rglob("ascend_toolkit_install.info"):
        info.write_text("version=8.1.0\n")
    (root / "driver" / "version.info").unlink()
    return root


def _dangling(tmp_path: Path) -> Path:
    root = make_synthetic_install(tmp_path / "Ascend", "legacy", "8.0.0")
    latest = root / "ascend-toolkit" / "latest"
    latest.unlink()
    latest.symlink_to("9.9.9")
    return root


def _diagnose(tmp_path: Path, root: Path, environ=None) -> dict:
    dev = tmp_path / "dev"
    dev.mkdir(exist_ok=True)
    return {c.id: c for c in doctor.diagnose(root, environ or {}, dev_dir=dev, versions=CPU, probe_timeout=0)}


def test_problems_of_a_broken_install_are_english(en, tmp_path):
    root = _broken(tmp_path)
    report = cann_install.describe(root)
    problems = [no_cjk(p) for p in report.all_problems]
    assert any(p.startswith("set_env.sh not found (looked for: ") and ", " in p for p in problems), problems
    assert any("says 8.1.0" in p and "says 8.0.0: the two version files disagree" in p for p in problems), problems
    assert f"{root / 'driver'} exists but has no version.info" in problems
    line = no_cjk(cann_install.summary_line({"ASCEND_HOME_PATH": str(root / "ascend-toolkit" / "latest")}))
    assert line == f"8.1.0 (ascend-toolkit layout, {root / 'ascend-toolkit' / 'latest'}, 3 problem(s))"


def test_odd_version_files_and_layouts_are_english(en, tmp_path):
    root = make_synthetic_install(tmp_path / "Ascend", "legacy", "8.0.0")
    for info in root.rglob("ascend_toolkit_install.info"):
        info.write_bytes(b"\x00\x01")
    for cfg in root.rglob("version.cfg"):
        cfg.write_text("runtime_running_version=[1:banana]\n")
    problems = [no_cjk(p) for p in cann_install.describe(root).all_problems]
    assert any(p.endswith("holds binary content, not a version file in text form") for p in problems), problems
    assert any(p.startswith("the version 'banana' in ") and p.endswith("is not recognised") for p in problems)
    assert "no readable version file: the version 8.0.0 is only inferred from the directory name" in problems
    hdk = make_synthetic_install(tmp_path / "Hdk", "cann", "8.5.0")
    for info in hdk.rglob("ascend_toolkit_install.info"):
        info.write_text("version=24.1.0.3\n")
    problems = [no_cjk(p) for p in cann_install.describe(hdk).all_problems]
    assert any(p.startswith("the version 24.1.0.3 does not look like a CANN release number: ") for p in problems)
    new = make_synthetic_install(tmp_path / "New", "cann", "8.5.0")
    assert no_cjk(cann_install.summary_line({"ASCEND_HOME_PATH": str(new / "cann")})) == \
        f"8.5.0 (cann/ layout, CANN 8.5 onwards, {new / 'cann'})"
    bare = tmp_path / "Bare"
    (bare / "ascend-toolkit").mkdir(parents=True)
    assert no_cjk(cann_install.describe(bare).all_problems[0]) == \
        f"{bare / 'ascend-toolkit'} has neither latest nor a version directory"


def test_environment_problems_are_english(en):
    assert cann_install.env_status({}).problems == ["ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH / ASCEND_OPP_PATH not set"]
    problems = cann_install.env_status({"ASCEND_HOME_PATH": "/gone"}).problems
    assert problems == ["ASCEND_TOOLKIT_HOME not set (set_env.sh sets it)",
                        "ASCEND_HOME_PATH=/gone points to a path that does not exist",
                        "ASCEND_OPP_PATH not set (set_env.sh sets it)",
                        "/gone/lib64 is not on LD_LIBRARY_PATH: libraries such as libascendcl.so and libhccl.so will "
                        "not be found"]


def test_doctor_on_a_broken_cann_prints_no_chinese(en, tmp_path, capsys):
    root = _dangling(tmp_path)
    checks = _diagnose(tmp_path, root)
    assert checks["cann_install"].status == "fail"
    assert "is a dangling link (to 9.9.9, which does not exist): the install is incomplete or was removed" in \
        no_cjk(checks["cann_install"].message)
    no_cjk(doctor.render(list(checks.values())))
    broken = _broken(tmp_path / "b")
    no_cjk(doctor.render(list(_diagnose(tmp_path, broken, {"ASCEND_HOME_PATH": "/gone"}).values())))
    code = main(["doctor", "--ascend-root", str(broken), "--probe-timeout", "0"])
    out = no_cjk(capsys.readouterr().out)
    assert "set_env.sh not found" in out and code in (0, 1)


def test_chinese_is_unchanged(monkeypatch, tmp_path):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    root = _broken(tmp_path)
    problems = cann_install.describe(root).all_problems
    latest = root / "ascend-toolkit" / "latest"
    assert problems[0] == f"找不到 set_env.sh（查找过：{root / 'ascend-toolkit' / 'set_env.sh'}、{latest / 'set_env.sh'}）"
    assert any(p.endswith("两个版本文件不一致") for p in problems)
    assert f"{root / 'driver'} 存在，但没有 version.info" in problems
    assert cann_install.summary_line({"ASCEND_HOME_PATH": str(latest)}) == f"8.1.0（ascend-toolkit 布局，{latest}，3 个问题）"
    assert cann_install.env_status({}).problems == ["未设置 ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH / ASCEND_OPP_PATH"]
    checks = _diagnose(tmp_path, _dangling(tmp_path / "d"))
    assert "是悬空链接（指向 9.9.9，目标不存在）：安装不完整或已被删除" in checks["cann_install"].message
