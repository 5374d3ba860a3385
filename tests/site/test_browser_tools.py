"""npulab.site.browser_tools: the bundle the tools page unpacks in Pyodide, its publishing, the CLI runner.

The page itself is tested in a real browser by tests/site/built/test_browser_tools.py.
"""

import json
import zipfile

import pytest

from npulab.core.paths import PACKAGE_DIR, REPO_ROOT
from npulab.site import browser_tools


def test_bundle_has_the_tools_and_data_but_no_lab_checkers(tmp_path):
    names = zipfile.ZipFile(browser_tools.build_bundle(tmp_path / "a.zip")).namelist()
    for module in ("npulab/__main__.py", "npulab/env/explain/__init__.py", "npulab/hw/chips_cli.py",
                   "npulab/llm/plan_cli.py", "npulab/ascend_tools/smi/cli.py", "npulab/env/versions_cli.py",
                   "npulab/data/error_catalog.yaml", "npulab/data/compatibility.yaml", "yaml/__init__.py"):
        assert module in names, module
    assert not [n for n in names if "/labs/" in n or "quizzes" in n or n.endswith((".so", ".pyc"))]
    assert (zipfile.ZipFile(tmp_path / "a.zip").read("npulab/data/chips.yaml")
            == (PACKAGE_DIR / "data" / "chips.yaml").read_bytes())


def test_bundle_alone_imports_what_the_worker_imports(tmp_path):
    """The page's worker imports its modules from the bundle only (assets/browser_tools/worker.js): unpacked into an
    empty folder, in an interpreter that sees nothing else (no site-packages: the editable install would answer
    for a module the bundle lacks), each of them imports."""
    import re
    import subprocess
    import sys

    worker = (REPO_ROOT / "assets" / "browser_tools" / "worker.js").read_text(encoding="utf-8")
    modules = set(re.findall(r'pyimport\("([\w.]+)"\)', worker)) | set(re.findall(r"from ([\w.]+) import", worker))
    assert "npulab.site.browser_tools" in modules, modules
    zipfile.ZipFile(browser_tools.build_bundle(tmp_path / "b.zip")).extractall(tmp_path / "site-packages")
    code = "import importlib, sys\n" + "".join(f"importlib.import_module({m!r})\n" for m in sorted(modules))
    run = subprocess.run([sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, {str(tmp_path / 'site-packages')!r})\n"
                          + code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 0, run.stderr


def test_bundle_is_reproducible(tmp_path):
    a = browser_tools.build_bundle(tmp_path / "a.zip").read_bytes()
    assert browser_tools.build_bundle(tmp_path / "b.zip").read_bytes() == a


def test_publish_needs_the_runtime(tmp_path):
    with pytest.raises(browser_tools.RuntimeMissing, match="make site-runtime"):
        browser_tools.publish(tmp_path / "site", runtime_dir=tmp_path / "nothing")


def test_publish_copies_runtime_bundle_and_script(tmp_path):
    runtime = tmp_path / "pyodide"
    runtime.mkdir()
    for name in browser_tools.RUNTIME_FILES:
        (runtime / name).write_text(name)
    sizes = browser_tools.publish(tmp_path / "site", runtime_dir=runtime)
    tools = tmp_path / "site" / browser_tools.SITE_FOLDER
    assert sorted(p.name for p in (tools / "pyodide").iterdir()) == sorted(browser_tools.RUNTIME_FILES)
    assert sizes["bundle"] == (tools / "npulab.zip").stat().st_size
    assert all((tools / script).is_file() for script in browser_tools.SCRIPTS)


def test_run_cli_returns_the_cli_output_and_exit_code():
    ok = json.loads(browser_tools.run_cli(["chips", "910B3", "--json"]))
    assert ok["code"] == 0 and json.loads(ok["stdout"])["key"] == "910B3"
    bad = json.loads(browser_tools.run_cli(["chips", "nope"]))
    assert bad["code"] == 2 and "芯片表里没有" in bad["stderr"]
    usage = json.loads(browser_tools.run_cli(["llm-plan"]))  # argparse exits: caught, not raised
    assert usage["code"] == 2 and usage["stderr"]


def test_tools_page_names_real_commands():
    """Each ``python -m npulab X`` on the tools page (and its JupyterLab table) is a tool of the CLI."""
    import re

    from npulab.__main__ import TOOLS
    from npulab.core.paths import REPO_ROOT

    text = (REPO_ROOT / "about" / "tools.md").read_text(encoding="utf-8")
    named = set(re.findall(r"python -m npulab ([a-z-]+)", text))
    assert {"explain", "smi", "chips", "llm-plan", "versions"} <= named <= set(TOOLS)
    for name in browser_tools.SCRIPTS:
        script = (browser_tools.SOURCE_DIR / name).read_text(encoding="utf-8")
        assert not re.search(r"[\"'`]https?://", script), f"{name} requests only the site's own files (no address)"
