"""doctor --stack, the freshness report (against a stand-in index on 127.0.0.1), and the December review's data fixes
(requirements-npu.txt ↔ stacks, HDK columns, .postN builds, dependency severities, protobuf)."""

from __future__ import annotations

import functools
import http.server
import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import yaml

from npulab.core.paths import DATA_DIR, REPO_ROOT
from npulab.env import doctor, freshness, pypi, stack_check
from npulab.env.compatibility import check_alignment, hdk_compatible, hdk_for_cann

CLI = [sys.executable, "-m", "npulab"]


def _run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=REPO_ROOT,
                          env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}, timeout=120)


# --- stacks ---------------------------------------------------------------------------------------------------


def test_every_stack_names_versions_and_sources():
    stacks = stack_check.stacks()
    assert {"course", "vllm-ascend", "mindspeed-llm", "ms-swift", "triton-ascend", "mindspore"} <= set(stacks)
    for name, stack in stacks.items():
        assert stack["sources"] and stack["environment"], name
        assert all(isinstance(v, str) or v is None for v in stack["packages"].values()), name


def test_requirements_npu_agrees_with_the_course_stack():
    """M1: the course stack pins torch / torch-npu as requirements-npu.txt does, and no triton-ascend pin is left there
    that no public source pairs with its CANN / PyTorch."""
    text = (REPO_ROOT / "requirements-npu.txt").read_text(encoding="utf-8")
    pins = dict(re.findall(r"^([a-z0-9-]+)==([\w.]+)", text, re.MULTILINE))
    course = stack_check.stacks()["course"]["packages"]
    assert course["torch"] == f"=={pins['torch']}" and course["torch-npu"] == f"=={pins['torch-npu']}"
    assert "triton-ascend" not in pins
    triton = stack_check.stacks()["triton-ascend"]  # review 2026-12c M3: 3.2.2 on the course's CANN 9.1.0
    assert triton["packages"]["triton-ascend"] == "==3.2.2" and triton["cann"] == stack_check.stacks()["course"]["cann"]
    pypi = stack_check.stacks()["triton-ascend-pypi"]  # the PyPI-only alternative needs a second CANN
    assert pypi["packages"]["triton-ascend"] == "==3.2.0" and pypi["cann"] == "8.5.0"
    assert "ops 包" in next(e["where"] for e in pypi["outside_pypi"] if e["name"] == "CANN")


def test_check_stack_reports_each_requirement():
    installed = {"vllm": "0.23.0", "vllm-ascend": "0.23.0.post1", "torch": "2.12.0", "torch-npu": "2.10.0.post4",
                 "triton-ascend": None, "transformers": "5.5.4"}
    checks = {c.id: c for c in stack_check.check_stack("vllm-ascend", installed.get, cann="9.1.0", python="3.11.7")}
    assert checks["vllm"].status == "ok" and checks["vllm-ascend"].status == "ok"  # a .post build of the release
    assert checks["torch"].status == "fail" and "不要装进课程环境" in checks["torch"].fix
    assert checks["triton-ascend"].status == "fail" and "未安装" in checks["triton-ascend"].message
    assert "mirrors.huaweicloud.com/ascend/repos/pypi" in checks["triton-ascend"].fix  # not on PyPI: where it is
    assert checks["CANN"].status == "ok" and checks["Python"].status == "ok"
    rc = {c.id: c for c in stack_check.check_stack("vllm-ascend", {**installed, "vllm-ascend": "0.30.0rc2"}.get)}
    assert rc["vllm-ascend"].status == "fail"
    swift = {c.id: c for c in stack_check.check_stack("ms-swift", {"ms-swift": "4.6.0", "torch": "2.10.0",
                                                                    "torch-npu": "2.10.0.post4", "transformers": "5.24.0"}.get,
                                                       cann="8.5.0", python="3.12.1")}
    assert swift["transformers"].status == "fail" and swift["CANN"].status == "fail" and swift["Python"].status == "fail"


def test_course_python_matches_pyproject():
    """#17: doctor --stack course accepts exactly the interpreters pip accepts for npulab."""
    import tomllib

    requires = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"]
    assert ",".join(stack_check.stacks()["course"]["python"]).replace(" ", "") == requires.replace(" ", "")


def test_doctor_stack_cli():
    r = _run("doctor", "--stack", "mindspore", "--json")
    data = json.loads(r.stdout)
    assert data["stack"] == "mindspore" and {c["id"] for c in data["checks"]} >= {"mindspore"}
    assert r.returncode in (0, 1)
    r = _run("doctor", "--stack", "no-such-stack")
    assert r.returncode == 2 and "没有名为" in r.stderr and "vllm-ascend" in r.stderr and "Traceback" not in r.stderr


# --- the review's data fixes -----------------------------------------------------------------------------------


def test_post_builds_on_the_same_line_are_not_warned():
    """M17: torch_npu .postN builds continue their line (v2.12.0-26.1.0 version.txt = 2.12.0.post2)."""
    result = check_alignment("2.12.0", "2.12.0.post2", "9.1.0", "3.11.7")
    assert result.status == "ok" and "同一发布线" in result.message
    assert check_alignment("2.12.0", "2.12.0.post2", "8.5.0", "3.11.7").status == "warn"  # wrong CANN still warns
    assert check_alignment("2.12.0", "2.12.0rc1", "9.1.0", "3.11.7").status == "warn"  # a pre-release is no follow-up


def test_hdk_tables_follow_the_release_notes():
    assert hdk_compatible("9.1.0", "26.1.0") is True and hdk_compatible("8.5.2", "26.1.0") is True
    assert hdk_compatible("9.2.0", "26.1.0") is None  # the 9.1.0 notes have no 9.2.0 row
    assert hdk_for_cann("9.1.1") == ["26.1.1"]
    assert hdk_for_cann("8.5.0") == ["25.5.X", "25.3.X", "25.2.X", "25.0.X"]


def test_dependency_severities_follow_the_official_list():
    """L23: the CANN 9.1 list's packages are required; the seed-only ones are recommended."""
    assert {"cython", "pathlib2", "requests", "absl-py", "protobuf"} <= set(doctor.CANN_DEPS_REQUIRED)
    assert set(doctor.CANN_DEPS_RECOMMENDED) == {"cloudpickle", "tornado", "ml-dtypes"}
    assert not set(doctor.CANN_DEPS_RECOMMENDED) & set(doctor.CANN_DEPS_REQUIRED)


@pytest.mark.parametrize("cann, protobuf, status", [("8.5.0", "7.34.0", "warn"), ("8.5.0", "3.20.3", "ok"),
                                                    ("9.1.0", "7.34.0", "ok")])
def test_protobuf_conflict_is_named(tmp_path, cann, protobuf, status):
    """L29: CANN 8.5/9.0 dependency tables pin protobuf 3.20.x (onnx needs >= 6.31)."""
    from npulab.testing.synthetic_cann import loaded_environ, make_synthetic_install

    root = make_synthetic_install(tmp_path / "Ascend", "cann", cann)
    versions = {name: "99.0" for name in (*doctor.CANN_DEPS_REQUIRED, *doctor.CANN_DEPS_RECOMMENDED)}
    versions["protobuf"] = protobuf
    checks = {c.id: c for c in doctor.diagnose(root, loaded_environ(root), dev_dir=tmp_path, versions=versions,
                                               probe_timeout=0)}
    assert checks["cann_python_deps"].status == status, checks["cann_python_deps"]
    if status == "warn":
        assert "3.20" in checks["cann_python_deps"].message and "onnx" in checks["cann_python_deps"].message


def test_mindspore_tables_reach_2_11():
    tables = yaml.safe_load((DATA_DIR / "compatibility.yaml").read_text(encoding="utf-8"))["tables"]
    versions = [v for row in tables["mindspore_releases"]["rows"] for v in row["mindspore"]]
    assert "2.11.0" in versions and "2.10.0" in versions


# --- freshness against a stand-in index --------------------------------------------------------------------------


def _index(tmp_path: Path, projects: dict[str, list[str]]) -> Path:
    for name, versions in projects.items():
        folder = tmp_path / "pypi" / name
        folder.mkdir(parents=True)
        doc = {"info": {"name": name, "version": versions[-1]},
               "releases": {v: [{"filename": f"{name}-{v}.tar.gz", "url": f"../../files/{name}-{v}.tar.gz",
                                 "yanked": False}] for v in versions}}
        (folder / "json").write_text(json.dumps(doc), encoding="utf-8")
    return tmp_path


@pytest.fixture()
def stand_in(tmp_path):
    known = freshness.known_versions()
    projects = {name: [entry["version"]] for name, entry in known.items()}
    projects["torch-npu"] = [known["torch-npu"]["version"], "99.0.0", "100.0.0rc1"]  # rc ignored
    projects["vllm-ascend"] = ["0.23.0", "0.23.0.post1", "0.30.0rc2"]  # a .post the stack accepts; a newer rc
    for stack in stack_check.stacks().values():  # every package a stack pins is on the stand-in at that version
        for name, spec in stack["packages"].items():
            version = freshness._stack_version(spec)
            if version and name not in projects and name != "triton-ascend":
                projects[name] = [version]
    root = _index(tmp_path, projects)
    simple = root / "simple" / "triton-ascend" / "index.html"  # the Ascend pip mirror's page for what is not on PyPI
    simple.parent.mkdir(parents=True)
    simple.write_text('<a href="../../files/triton_ascend-3.2.2-cp311-cp311-manylinux_2_27_aarch64.whl">'
                      'triton_ascend-3.2.2-cp311-cp311-manylinux_2_27_aarch64.whl</a>\n'
                      '<a href="../../files/triton_ascend-3.3.0-cp311-cp311-manylinux_2_27_aarch64.whl">'
                      'triton_ascend-3.3.0-cp311-cp311-manylinux_2_27_aarch64.whl</a>', encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    handler.log_message = lambda *a, **k: None
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", root
    server.shutdown()


def test_known_versions_cover_the_pins():
    known = freshness.known_versions()
    assert {"torch", "torch-npu", "mindspore", "mindstudio-probe", "vllm", "ms-swift", "transformers"} <= set(known)


def test_newest_release_ignores_prereleases_and_yanked():
    doc = {"releases": {"1.0": [{"yanked": False}], "2.0rc1": [{"yanked": False}], "1.5": [{"yanked": True}],
                        "1.2.post1": [{"yanked": False}]}}
    assert pypi.newest_release(doc) == "1.2.post1"
    assert pypi.version_key("2.10.0.post4") > pypi.version_key("2.10.0") and pypi.version_key("2.9") < pypi.version_key("2.10")


def test_freshness_behind_against_stand_in(stand_in):
    url, _ = stand_in
    r = _run("freshness", "--index-url", url, env={"NPULAB_OUTSIDE_INDEX": f"{url}/simple"})
    assert r.returncode == 1, r.stdout + r.stderr
    packages, _, per_stack = r.stdout.partition("各软件栈")
    assert "torch-npu" in packages and "99.0.0" in packages and "落后" in packages and "100.0.0rc1" not in packages
    assert "100.0.0rc1" in per_stack  # shown as a newer release candidate, not counted as behind
    r = _run("freshness", "--json", "--package", "torch", env={"NPULAB_PYPI_URL": url})
    data = json.loads(r.stdout)
    assert r.returncode == 0 and data["behind"] == 0 and data["packages"][0]["state"] == "current"


def test_freshness_reads_each_stack_against_its_index(stand_in):
    """Per stack: a .post the stack's range accepts is current, a newer rc is shown but not behind, and what comes
    from the Ascend mirror (triton-ascend 3.2.2) is compared with that index's page."""
    url, _ = stand_in
    r = _run("freshness", "--json", "--index-url", url, env={"NPULAB_OUTSIDE_INDEX": f"{url}/simple"})
    rows = {(s["stack"], s["package"]): s for s in json.loads(r.stdout)["stacks"]}
    vllm = rows[("vllm-ascend", "vllm-ascend")]
    assert vllm["state"] == "current" and vllm["newest"] == "0.23.0.post1" and vllm["prerelease"] == "0.30.0rc2"
    mirror = rows[("vllm-ascend", "triton-ascend")]
    assert mirror["index"].endswith("/simple") and mirror["newest"] == "3.3.0" and mirror["state"] == "held"
    assert rows[("triton-ascend", "torch")]["state"] in ("current", "held")  # pinned with its stack
    assert rows[("course", "torch-npu")]["state"] == "behind"  # the stand-in has 99.0.0
    assert r.returncode == 1


def test_freshness_live_stacks():
    """The live path, when PyPI answers: vLLM-Ascend's newer releases on PyPI are release candidates only."""
    from npulab.env import stacks

    if not stacks.reachable(pypi.DEFAULT_INDEX + "/pypi/vllm-ascend/json", timeout=10):
        pytest.skip("连不上 PyPI：跳过 freshness 的联网检查")
    rows = {r["package"]: r for r in freshness.stack_report({"vllm-ascend"}) if r["stack"] == "vllm-ascend"}
    assert rows["vllm-ascend"]["state"] == "current", rows
    assert rows["vllm-ascend"]["prerelease"] is None or "rc" in rows["vllm-ascend"]["prerelease"]


def test_freshness_absent_package(stand_in):
    url, root = stand_in
    import shutil

    shutil.rmtree(root / "pypi" / "vllm")
    r = _run("freshness", "--json", "--package", "vllm", "--index-url", url)
    assert r.returncode == 0 and json.loads(r.stdout)["packages"][0]["state"] == "absent"


def test_freshness_offline_and_bad_usage():
    r = _run("freshness", "--index-url", "http://127.0.0.1:9")  # nothing listens on the discard port
    assert r.returncode == 2 and "无法查询 PyPI" in r.stderr and "Traceback" not in r.stderr
    r = _run("freshness", "--index-url", "ftp://x")
    assert r.returncode == 2 and "http://" in r.stderr
    r = _run("freshness", "--package", "left-pad")
    assert r.returncode == 2 and "没有钉住或提到" in r.stderr


def test_ci_never_runs_freshness():
    assert "freshness" not in (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "freshness" not in (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    workflow = (REPO_ROOT / ".github" / "workflows" / "freshness.yml").read_text(encoding="utf-8")
    assert "schedule" in workflow and "npulab freshness" in workflow


def test_read_members_from_a_wheel_without_range_support(tmp_path):
    """scripts/extract_cli_flags.py reads single members of a release; the stand-in server ignores Range headers."""
    import zipfile

    files = tmp_path / "files"
    files.mkdir()
    with zipfile.ZipFile(files / "tool-1.0-py3-none-any.whl", "w") as zf:
        zf.writestr("tool/cli.py", "import argparse\np = argparse.ArgumentParser()\np.add_argument('--real-flag')\n"
                                   "sub = p.add_subparsers()\nsub.add_parser('run')\n")
        zf.writestr("tool/other.py", "x = 1\n")
    folder = tmp_path / "pypi" / "tool"
    folder.mkdir(parents=True)
    (folder / "json").write_text(json.dumps({"info": {"version": "1.0"}, "releases": {"1.0": [
        {"filename": "tool-1.0-py3-none-any.whl", "url": "../../files/tool-1.0-py3-none-any.whl",
         "size": (files / "tool-1.0-py3-none-any.whl").stat().st_size}]}}), encoding="utf-8")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        import importlib.util
        import os

        os.environ["NPULAB_PYPI_URL"] = f"http://127.0.0.1:{server.server_address[1]}"
        members = pypi.read_members("tool", "1.0", re.compile(r"cli\.py$"), tmp_path / "cache")
        assert list(members) == ["tool/cli.py"]
        spec = importlib.util.spec_from_file_location("extract", REPO_ROOT / "scripts" / "extract_cli_flags.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        assert module.argparse_flags(members) == ({"--real-flag"}, {"run"})
        fields, bools = module.dataclass_fields({"a.py": "@dataclass\nclass A:\n    lr: float = 1.0\n    flag: bool = False\n"})
        assert fields == {"lr", "flag"} and bools == {"flag"}
    finally:
        os.environ.pop("NPULAB_PYPI_URL", None)
        server.shutdown()
