"""Tests of npulab.env.cann_install on synthetic install trees, including broken ones: findings, never exceptions."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

import pytest

from npulab.env import cann_install
from npulab.env.cann_install import describe, env_status
from npulab.testing import synthetic_cann
from npulab.testing.synthetic_cann import loaded_environ, make_synthetic_install

ARCH = platform.machine() or "x86_64"


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    return make_synthetic_install(tmp_path / "Ascend", layout="legacy", version="8.0.0")


@pytest.fixture
def new(tmp_path: Path) -> Path:
    return make_synthetic_install(tmp_path / "Ascend", layout="cann", version="8.5.0")


def _home(root: Path, version: str = "8.0.0") -> Path:
    return root / "ascend-toolkit" / version


# ----------------------------------------------------------------------------------------------- good trees


def test_legacy_tree(legacy: Path):
    report = describe(legacy)
    inst = report.primary
    assert (inst.layout, inst.kind, inst.version, inst.inner_version) == ("legacy", "toolkit", "8.0.0", "7.6.0.1.220")
    assert inst.path == legacy / "ascend-toolkit" / "latest" and inst.home == _home(legacy)
    assert inst.set_env == legacy / "ascend-toolkit" / "set_env.sh"
    assert inst.source_command == f"source {legacy}/ascend-toolkit/set_env.sh"
    assert report.driver.version == "24.1.0.3"
    assert report.all_problems == []
    for sub in ("lib64", "python/site-packages", "bin", "opp", "compiler/ccec_compiler/bin"):
        assert (inst.home / sub).is_dir()
    assert "runtime_running_version=[7.6.0.1.220:8.0.0]" in (inst.home / "version.cfg").read_text()


def test_new_layout_tree(new: Path):
    report = describe(new)
    assert len(report.installs) == 1  # cann -> cann-8.5.0 is reported once, under the documented path
    inst = report.primary
    assert (inst.layout, inst.version, inst.ops_version) == ("cann", "8.5.0", "8.5.0")
    assert inst.path == new / "cann" and inst.home == new / "cann-8.5.0"
    assert inst.set_env == new / "cann" / "set_env.sh"
    assert inst.version_file == new / "cann-8.5.0" / f"{ARCH}-linux" / "ascend_toolkit_install.info"
    assert report.all_problems == []
    assert report.get("version") == "8.5.0" and report.get("driver_version") == "24.1.0.3"


def test_versioned_cann_dir_without_link(tmp_path: Path):
    root = make_synthetic_install(tmp_path / "A", layout="cann", version="8.5.1")
    (root / "cann").unlink()
    inst = describe(root).primary
    assert inst.path == root / "cann-8.5.1" and inst.version == "8.5.1" and inst.usable


def test_nnae_package(tmp_path: Path):
    latest = tmp_path / "nnae" / "latest"
    latest.mkdir(parents=True)
    (tmp_path / "nnae" / "set_env.sh").write_text("# fake\n")
    (latest / "ascend_nnae_install.info").write_text("package_name=Ascend-cann-nnae\nversion=8.0.RC3\n")
    inst = describe(tmp_path).primary
    assert (inst.kind, inst.version, inst.usable) == ("nnae", "8.0.RC3", True)


def test_toolkit_preferred_over_nnae(legacy: Path):
    (legacy / "nnae" / "latest").mkdir(parents=True)
    (legacy / "nnae" / "set_env.sh").write_text("# fake\n")
    assert describe(legacy).primary.kind == "toolkit"


def test_missing_root_is_not_an_error(tmp_path: Path):
    report = describe(tmp_path / "nowhere")
    assert not report.exists and report.installs == [] and report.primary is None and report.problems == []


def test_locate_and_candidates(legacy: Path, tmp_path: Path):
    env = {"ASCEND_HOME_PATH": str(legacy / "ascend-toolkit" / "latest"), "HOME": str(tmp_path)}
    assert cann_install.candidate_roots(env)[0] == legacy
    assert cann_install.locate(env).root == legacy
    assert cann_install.candidate_roots({"HOME": "/home/u"})[-1] == Path("/home/u/Ascend")
    assert cann_install.candidate_roots({"ASCEND_TOOLKIT_HOME": "/opt/x/cann-8.5.0"})[0] == Path("/opt/x")


# ----------------------------------------------------------------------------------------------- odd trees


def test_dangling_latest(legacy: Path):
    latest = legacy / "ascend-toolkit" / "latest"
    latest.unlink()
    latest.symlink_to("8.9.9")
    inst = describe(legacy).primary
    assert inst.home is None and not inst.usable
    assert any("悬空链接" in p for p in inst.problems)


def test_symlink_loop(legacy: Path):
    latest = legacy / "ascend-toolkit" / "latest"
    latest.unlink()
    latest.symlink_to("latest")
    assert any("悬空链接" in p for p in describe(legacy).primary.problems)


def test_no_latest_falls_back_to_the_newest_version_dir(legacy: Path):
    (legacy / "ascend-toolkit" / "latest").unlink()
    (legacy / "ascend-toolkit" / "7.0.0").mkdir()
    inst = describe(legacy).primary
    assert inst.home == _home(legacy) and inst.version == "8.0.0"
    assert any("没有 latest" in p for p in inst.problems)


def test_latest_is_a_file(legacy: Path):
    latest = legacy / "ascend-toolkit" / "latest"
    latest.unlink()
    latest.write_text("not a dir")
    assert any("却是文件" in p for p in describe(legacy).primary.problems)


@pytest.mark.parametrize("content, expect", [
    (b"", "空文件"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00binary", "二进制"),
    (b"\xff\xfe\xfa garbage", "UTF-8"),
    (b"version=not-a-version!!\n", "无法识别"),
    (b"just some words\n", "没有 version="),
])
def test_garbage_install_info(legacy: Path, content: bytes, expect: str):
    info = _home(legacy) / f"{ARCH}-linux" / "ascend_toolkit_install.info"
    info.write_bytes(content)
    inst = describe(legacy).primary
    assert any(expect in p for p in inst.problems), inst.problems
    assert inst.version == "8.0.0"  # version.cfg still tells


def test_all_version_files_garbage_falls_back_to_dir_name(legacy: Path):
    (_home(legacy) / f"{ARCH}-linux" / "ascend_toolkit_install.info").write_bytes(b"\x00\x00")
    (_home(legacy) / "version.cfg").write_text("runtime_running_version=[x:???]\n")
    inst = describe(legacy).primary
    assert inst.version == "8.0.0" and any("目录名推断" in p for p in inst.problems)


def test_no_version_anywhere(tmp_path: Path):
    (tmp_path / "ascend-toolkit" / "latest").mkdir(parents=True)
    (tmp_path / "ascend-toolkit" / "set_env.sh").write_text("#\n")
    inst = describe(tmp_path).primary
    assert inst.version is None and any("找不到可读的版本文件" in p for p in inst.problems)


def test_version_files_that_disagree(legacy: Path):
    (_home(legacy) / "version.cfg").write_text("runtime_running_version=[7.5.0.1.129:8.0.RC3]\n")
    inst = describe(legacy).primary
    assert inst.version == "8.0.0" and any("不一致" in p for p in inst.problems)


def test_version_info_that_is_a_directory(legacy: Path):
    info = _home(legacy) / f"{ARCH}-linux" / "ascend_toolkit_install.info"
    info.unlink()
    info.mkdir()
    assert any("却是目录" in p for p in describe(legacy).primary.problems)


def test_unreadable_file(legacy: Path, monkeypatch: pytest.MonkeyPatch):
    # tests may run as root, where chmod 000 does not stop reading: simulate the PermissionError instead
    real_open = open

    def fake_open(path, *args, **kwargs):
        if str(path).endswith("version.cfg"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", fake_open)
    inst = describe(legacy).primary
    assert any("权限不足" in p for p in inst.problems) and inst.version == "8.0.0"


def test_missing_set_env(new: Path):
    (new / "cann-8.5.0" / "set_env.sh").unlink()
    inst = describe(new).primary
    assert not inst.usable and any("set_env.sh" in p for p in inst.problems)


def test_internal_number_written_as_version_is_flagged(legacy: Path):
    (_home(legacy) / f"{ARCH}-linux" / "ascend_toolkit_install.info").write_text("version=7.6.0.2.220\n")
    (_home(legacy) / "version.cfg").unlink()
    inst = describe(legacy).primary
    assert any("不像 CANN 对外版本号" in p for p in inst.problems)


@pytest.mark.parametrize("content, expect", [
    (b"", "空文件"), (b"\x00\x01\x02", "二进制"), (b"Innerversion=V100R001C19SPC005B220\n", "没有 Version="),
    (b"Version=24.1.??\n", "无法识别"),
])
def test_garbage_driver_version(legacy: Path, content: bytes, expect: str):
    (legacy / "driver" / "version.info").write_bytes(content)
    driver = describe(legacy).driver
    assert driver.version is None and any(expect in p for p in driver.problems)


def test_driver_version_info_real_format(legacy: Path):
    (legacy / "driver" / "version.info").write_text(
        "Version=24.1.rc3\nascendhal_version=7.35.23\nInnerversion=V100R001C19SPC001B124\npackage_version=24.1.rc3\n")
    driver = describe(legacy).driver
    assert (driver.version, driver.inner_version) == ("24.1.rc3", "V100R001C19SPC001B124")


def test_root_is_a_file_or_dangling(tmp_path: Path):
    file_root = tmp_path / "file"
    file_root.write_text("x")
    assert "不是目录" in describe(file_root).problems[0]
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "gone")
    assert "悬空链接" in describe(link).problems[0]


def test_read_text_and_version_cfg_parsing(tmp_path: Path):
    assert cann_install.read_text(tmp_path / "absent") == (None, None)
    assert cann_install.parse_version_cfg("# version: 1.0\ncompiler_running_version=[7.6.T13.0.B094:8.0.T63]\n") == \
        ("7.6.T13.0.B094", "8.0.T63")
    assert cann_install.parse_version_cfg("runtime_running_version=[1.83.T8.0.B128:CANN-1.83]") == ("1.83.T8.0.B128", "1.83")
    assert cann_install.parse_kv("Version=1\nversion=2\n# c=3\n") == {"version": "1"}


# ----------------------------------------------------------------------------------------------- environment


def _sourced_env(set_env: Path) -> dict[str, str]:
    out = subprocess.run(["bash", "--noprofile", "--norc", "-c", f"source '{set_env}' && env -0"],
                         env={"PATH": "/usr/bin:/bin"}, capture_output=True, check=True).stdout
    return dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)


@pytest.mark.parametrize("layout", ["legacy", "cann"])
def test_synthetic_set_env_exports_what_the_documented_script_exports(tmp_path: Path, layout: str):
    root = make_synthetic_install(tmp_path / "A", layout=layout, version="8.0.0" if layout == "legacy" else "8.5.0")
    inst = describe(root).primary
    env = _sourced_env(inst.set_env)
    home = str(inst.path)
    assert env["ASCEND_TOOLKIT_HOME"] == env["ASCEND_HOME_PATH"] == env["ASCEND_AICPU_PATH"] == home
    assert env["ASCEND_OPP_PATH"] == f"{home}/opp" and env["TOOLCHAIN_HOME"] == f"{home}/toolkit"
    ld = env["LD_LIBRARY_PATH"].split(":")
    assert f"{root}/driver/lib64" in ld and f"{home}/lib64" in ld and "" not in ld
    assert env["PYTHONPATH"].split(":")[0] == f"{home}/python/site-packages"
    assert env["PATH"].split(":")[:2] == [f"{home}/bin", f"{home}/compiler/ccec_compiler/bin"]
    assert env_status(env).loaded and env_status(env).points_to(inst)
    assert all(Path(p).is_dir() for p in ld if "op_tiling" not in p)


def test_env_not_loaded():
    status = env_status({})
    assert not status.loaded and status.home is None and "未设置" in status.problems[0]


def test_env_pointing_nowhere_and_missing_lib(legacy: Path):
    status = env_status({"ASCEND_HOME_PATH": "/nope", "ASCEND_TOOLKIT_HOME": "/nope", "ASCEND_OPP_PATH": "/nope/opp"})
    assert not status.loaded and any("不存在" in p for p in status.problems)
    env = synthetic_cann.loaded_environ(legacy)
    env["LD_LIBRARY_PATH"] = "/usr/lib"
    status = env_status(env)
    assert not status.loaded and not status.lib_in_ld_path and any("LD_LIBRARY_PATH" in p for p in status.problems)


def test_env_partially_loaded(legacy: Path):
    env = synthetic_cann.loaded_environ(legacy)
    del env["ASCEND_OPP_PATH"]
    status = env_status(env)
    assert not status.loaded and any("ASCEND_OPP_PATH 未设置" in p for p in status.problems)


def test_env_lib_matched_through_the_real_path(legacy: Path):
    env = synthetic_cann.loaded_environ(legacy)
    env["LD_LIBRARY_PATH"] = str(_home(legacy) / "lib64")  # versioned dir instead of latest/
    assert env_status(env).lib_in_ld_path


def test_device_nodes_and_npu_smi(tmp_path: Path):
    for name in ("davinci10", "davinci2", "davinci0", "davinci_manager", "davinciX"):
        (tmp_path / name).touch()
    assert [p.name for p in cann_install.device_nodes(tmp_path)] == ["davinci0", "davinci2", "davinci10"]
    assert cann_install.device_nodes(tmp_path / "missing") == []
    smi = tmp_path / "bin" / "npu-smi"
    smi.parent.mkdir()
    smi.write_text("#!/bin/sh\n")
    smi.chmod(0o755)
    assert cann_install.find_npu_smi({"PATH": str(smi.parent)}) == str(smi)
    assert cann_install.find_npu_smi({"PATH": "/nonexistent"}) is None


def test_make_synthetic_install_rejects_bad_arguments(tmp_path: Path):
    with pytest.raises(ValueError):
        make_synthetic_install(tmp_path, layout="weird")
    with pytest.raises(ValueError):
        make_synthetic_install(tmp_path, version="not a version")


def test_make_synthetic_install_is_idempotent(tmp_path: Path):
    root = make_synthetic_install(tmp_path / "A")
    assert make_synthetic_install(root) == root and describe(root).primary.usable


def test_summary_line(legacy: Path, tmp_path: Path):
    env = {"ASCEND_HOME_PATH": str(legacy / "ascend-toolkit" / "latest"), "HOME": str(tmp_path)}
    assert cann_install.summary_line(env).startswith("8.0.0")
    if not Path("/usr/local/Ascend").exists():
        assert "CPU" in cann_install.summary_line({"HOME": str(tmp_path / "elsewhere")})


def test_no_exception_on_unlistable_subdirectory(legacy: Path, monkeypatch: pytest.MonkeyPatch):
    def boom(self, *a, **k):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "glob", boom)
    report = describe(legacy)  # must not raise
    assert report.primary is not None
    assert os.fspath(report.root) == os.fspath(legacy)


def test_latest_as_a_directory_of_component_links(tmp_path: Path):
    # the installer's ascend-toolkit/latest is a real directory of per-component symlinks plus real files
    root = synthetic_cann.make_synthetic_install(tmp_path, layout="legacy", version="8.0.0", latest_dir=True)
    latest = root / "ascend-toolkit" / "latest"
    assert latest.is_dir() and not latest.is_symlink()
    assert (latest / "compiler").is_symlink() and (latest / "compiler").resolve() == (root / "ascend-toolkit" / "8.0.0" / "compiler")
    assert (latest / "version.cfg").is_file() and not (latest / "version.cfg").is_symlink()
    inst = cann_install.describe(root).installs[0]
    assert (inst.version, inst.inner_version, inst.problems) == ("8.0.0", "7.6.0.1.220", [])


# ----------------------------------------------------------------------------------------------- pip / conda layouts


def test_pip_and_conda_roots_are_probed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """pip: <site-packages>/ascend/cann-<version>/set_env.sh; conda: $CONDA_PREFIX/Ascend/cann (CANN 9.0 instg_0104/0093)."""
    site = tmp_path / "site-packages"
    make_synthetic_install(site / "ascend", "cann", "9.1.0", driver_version=None)
    (site / "ascend" / "cann").unlink()  # the pip layout has only the versioned folder
    monkeypatch.setattr(cann_install, "pip_roots", lambda: [site / "ascend"])
    roots = cann_install.candidate_roots({"HOME": "/home/u", "CONDA_PREFIX": "/opt/conda/envs/npu"})
    assert roots[-3:] == [Path("/opt/conda/envs/npu/Ascend"), site / "ascend", Path("/home/u/Ascend")]
    report = cann_install.locate({"HOME": str(tmp_path / "nohome")})
    assert report is not None and report.root == site / "ascend"
    assert report.primary.version == "9.1.0" and report.primary.set_env == site / "ascend" / "cann-9.1.0" / "set_env.sh"


def test_loaded_install_reads_the_version_of_the_sourced_cann(tmp_path: Path):
    first = make_synthetic_install(tmp_path / "a", "cann", "8.5.0")
    second = make_synthetic_install(tmp_path / "b", "legacy", "8.0.0")
    assert cann_install.loaded_install(loaded_environ(first)).version == "8.5.0"
    assert cann_install.loaded_install(loaded_environ(second)).version == "8.0.0"
    assert cann_install.loaded_install({}) is None
    assert cann_install.install_at(first / "cann-8.5.0").version == "8.5.0"
