"""The ``npulab`` wheel the site ships (``_static/wheels``), built from this tree when the book is built, so that a
downloaded notebook installs the very package its outputs were made with (:mod:`npulab.site.download_notebooks`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from npulab.core.paths import REPO_ROOT

WHEEL_DIR = Path("_static") / "wheels"


def build(outdir: Path, root: Path = REPO_ROOT) -> str:
    """Build the wheel into ``outdir/_static/wheels`` (replacing older ones); return its file name.

    ``pip wheel --no-deps`` runs on a copy of the package (pyproject.toml and npulab/), so the build leaves no
    ``build/`` or ``*.egg-info`` folder in the checkout."""
    target = Path(outdir) / WHEEL_DIR
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="npulab-wheel-") as tmp:
        shutil.copy2(root / "pyproject.toml", tmp)
        shutil.copytree(root / "npulab", Path(tmp) / "npulab",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "kernel_meta", "rank_0"))
        built = Path(tmp) / "dist"
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "-w", str(built), tmp], check=True, capture_output=True)
        wheel = next(built.glob("npulab-*.whl"))
        for old in target.glob("npulab-*.whl"):
            old.unlink()
        shutil.copy2(wheel, target / wheel.name)
    return wheel.name
