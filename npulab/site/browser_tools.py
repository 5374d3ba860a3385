"""The course's tools in the learner's browser: the site serves Pyodide and this package, the page runs the CLI.

The tools page (``about/tools.md``) runs ``python -m npulab explain|smi|chips|llm-plan|versions`` client-side:
the same ``npulab.__main__.main`` with ``--json``, inside Pyodide (CPython compiled to WebAssembly). Nothing is
implemented twice: :func:`run_cli` calls the CLI and hands its JSON to the page, which only draws it.

At site-build time :func:`publish` puts into ``<site>/_tools/``:

- ``pyodide/``: the runtime from the npm package pinned in ``assets/browser_tools/package-lock.json`` (installed by
  ``make site-runtime``); the page loads it from there, never from a CDN, and only when the learner uses a tool;
- ``npulab.zip``: this package (code and data) and PyYAML's pure-Python modules, both as this build uses them
  (Pyodide's core has no PyYAML; the pure-Python ``yaml`` reads the same files the same way);
- ``tools.js`` and ``worker.js``: the page's script and the worker that runs Pyodide (``assets/browser_tools``).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import zipfile
from importlib import metadata
from pathlib import Path

from npulab.core.paths import PACKAGE_DIR, REPO_ROOT

SOURCE_DIR = REPO_ROOT / "assets" / "browser_tools"
RUNTIME_DIR = SOURCE_DIR / "node_modules" / "pyodide"
# what loadPyodide fetches for a bare start (no packages): the loader, the lock file, the engine and the stdlib
RUNTIME_FILES = ("pyodide.mjs", "pyodide-lock.json", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
SITE_FOLDER = "_tools"
BUNDLE_NAME = "npulab.zip"
SCRIPTS = ("tools.js", "worker.js")  # the page's script, and the worker that runs Pyodide off the main thread
_FIXED_TIME = (2026, 1, 1, 0, 0, 0)  # every entry gets this date: the same tree gives the same zip
# what the tools import (python -m npulab explain|smi|chips|llm-plan|versions): the lower layers, this module and
# the data; not the course's lab checkers or quizzes, which the public site must not carry
BUNDLED = ("__init__.py", "__main__.py", "core", "hw", "env", "ascend_tools", "llm", "data",
           "site/__init__.py", "site/browser_tools.py")
LEFT_OUT = ("data/quizzes", "data/signature_stubs")


class RuntimeMissing(RuntimeError):
    """The npm package with the Pyodide runtime is not installed."""


def _bundle_files() -> list[tuple[Path, str]]:
    """(file, name in the zip) for npulab and PyYAML's pure-Python modules; no caches, no compiled extensions."""
    import yaml

    def wanted(path: Path) -> bool:
        rel = path.relative_to(PACKAGE_DIR).as_posix()
        return (any(rel == part or rel.startswith(part + "/") for part in BUNDLED)
                and not any(rel.startswith(part + "/") for part in LEFT_OUT)
                and "__pycache__" not in path.parts and path.suffix not in {".pyc", ".so"})

    files = [(p, p.relative_to(PACKAGE_DIR.parent).as_posix()) for p in sorted(PACKAGE_DIR.rglob("*"))
             if p.is_file() and wanted(p)]
    yaml_dir = Path(yaml.__file__).parent
    files += [(p, f"yaml/{p.name}") for p in sorted(yaml_dir.glob("*.py"))]
    licence = next((f for f in metadata.distribution("PyYAML").files or () if f.name == "LICENSE"), None)
    if licence is not None:  # PyYAML's MIT licence travels with its code
        files.append((Path(licence.locate()), "yaml/LICENSE"))
    return files


def build_bundle(dest: Path) -> Path:
    """Write the zip the page unpacks into Pyodide's site-packages; return its path."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for path, name in _bundle_files():
            info = zipfile.ZipInfo(name, _FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, path.read_bytes())
    return dest


def publish(outdir: Path, runtime_dir: Path = RUNTIME_DIR) -> dict[str, int]:
    """Copy the runtime, the bundle and the page script into ``<outdir>/_tools``; return the bytes of each part."""
    missing = [name for name in RUNTIME_FILES if not (runtime_dir / name).is_file()]
    if missing:
        raise RuntimeMissing(f"没有找到 Pyodide 运行时（{runtime_dir}：缺少 {'、'.join(missing)}）："
                             "先运行 make site-runtime（npm ci --prefix assets/browser_tools）")
    target = Path(outdir) / SITE_FOLDER
    (target / "pyodide").mkdir(parents=True, exist_ok=True)
    runtime = 0
    for name in RUNTIME_FILES:
        shutil.copyfile(runtime_dir / name, target / "pyodide" / name)
        runtime += (runtime_dir / name).stat().st_size
    bundle = build_bundle(target / BUNDLE_NAME).stat().st_size
    for script in SCRIPTS:
        shutil.copyfile(SOURCE_DIR / script, target / script)
    return {"runtime": runtime, "bundle": bundle, "scripts": sum((target / s).stat().st_size for s in SCRIPTS)}


def run_cli(argv: list[str]) -> str:
    """Run ``python -m npulab ARGV`` in this process; JSON of its exit code, standard output and standard error."""
    from npulab.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse exits on a usage error after printing it
            code = exit_.code if isinstance(exit_.code, int) else 2
    return json.dumps({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}, ensure_ascii=False)
