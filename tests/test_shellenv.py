"""Tests of npulab.env.shell_session with a real venv and a synthetic CANN tree: what the load order really changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from npulab.env.shell_session import MINIMAL_PATH, compare_orders, observe
from npulab.testing.synthetic_cann import make_synthetic_install


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path


@pytest.fixture(scope="module", params=["legacy", "cann"])
def cann_root(request, tmp_path_factory: pytest.TempPathFactory) -> Path:
    version = "8.0.0" if request.param == "legacy" else "8.5.0"
    return make_synthetic_install(tmp_path_factory.mktemp(request.param) / "Ascend", request.param, version)


@pytest.fixture(scope="module")
def result(cann_root: Path, venv: Path) -> dict:
    return compare_orders(cann_root, venv)


def test_observe_starts_clean():
    obs = observe([])
    assert obs["PATH"] == MINIMAL_PATH.split(":")
    assert obs["LD_LIBRARY_PATH"] == [] and obs["PYTHONPATH"] == [] and obs["VIRTUAL_ENV"] is None
    assert obs["returncode"] == 0


def test_observe_reports_exports_and_failures(tmp_path: Path):
    obs = observe(["export PYTHONPATH=/a:/b", "export LD_LIBRARY_PATH=/x", "false"], cwd=tmp_path)
    assert obs["PYTHONPATH"] == ["/a", "/b"] and obs["LD_LIBRARY_PATH"] == ["/x"] and obs["last_step_rc"] == 1
    assert "__npulab_out" not in obs["env"]


def test_venv_python_and_sys_path(venv: Path, cann_root: Path, result: dict):
    first = result["cann_then_venv"]
    assert first["VIRTUAL_ENV"] == str(venv)
    assert first["python"] == str(venv / "bin" / "python")
    home = result["cann_bin_dirs"][0].rsplit("/bin", 1)[0]
    assert f"{home}/python/site-packages" in first["sys_path"]  # PYTHONPATH reaches the venv's python


def test_order_leaves_library_and_python_paths_identical(result: dict):
    assert result["same_LD_LIBRARY_PATH"] and result["same_PYTHONPATH"]
    assert result["same_python"] and result["same_sys_path"]
    assert result["cann_then_venv"]["LD_LIBRARY_PATH"]  # and they are not trivially empty
    assert set(result["differing_variables"]) == {"PATH"}


def test_activation_touches_only_its_own_variables(result: dict):
    changed = set(result["activate_changes"])
    assert {"PATH", "VIRTUAL_ENV"} <= changed
    assert changed <= {"PATH", "PS1", "VIRTUAL_ENV", "VIRTUAL_ENV_PROMPT", "PYTHONHOME"}
    assert "LD_LIBRARY_PATH" not in changed and "PYTHONPATH" not in changed


def test_activation_unsets_pythonhome(venv: Path):
    obs = observe(["export PYTHONHOME=/somewhere", f"source {venv}/bin/activate"])
    assert "PYTHONHOME" not in obs["env"]


def test_path_order_differs(venv: Path, result: dict):
    venv_bin, cann_bin = str(venv / "bin"), result["cann_bin_dirs"][0]
    first, second = result["cann_then_venv"]["PATH"], result["venv_then_cann"]["PATH"]
    assert not result["same_PATH"] and sorted(first) == sorted(second)
    assert first.index(venv_bin) < first.index(cann_bin)
    assert second.index(cann_bin) < second.index(venv_bin)


def test_deactivate_restores_the_path_saved_at_activation(result: dict):
    kept = result["cann_bin_kept_after_deactivate"]
    assert kept == {"cann_then_venv": True, "venv_then_cann": False}
    off = result["after_deactivate"]["venv_then_cann"]
    assert off["PATH"] == MINIMAL_PATH.split(":") and off["VIRTUAL_ENV"] is None
    # deactivate does not touch what set_env.sh exported
    assert result["LD_LIBRARY_PATH_kept_after_deactivate"] == {"cann_then_venv": True, "venv_then_cann": True}
    assert off["env"]["ASCEND_HOME_PATH"]


def test_compare_orders_without_cann(tmp_path: Path, venv: Path):
    with pytest.raises(ValueError, match="set_env.sh"):
        compare_orders(tmp_path, venv)
