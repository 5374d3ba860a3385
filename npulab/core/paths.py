"""Where things are: the package's data files (installed with the package) and, in a checkout, the course root."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

PACKAGE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = PACKAGE_DIR / "data"  # package data: present in a checkout and in an installed wheel alike
REPO_ROOT = PACKAGE_DIR.parent  # the course checkout, when npulab is used from one (see in_checkout)


def in_checkout() -> bool:
    """True when npulab runs from a course checkout (notebooks, requirements files and _toc.yml beside it)."""
    return (REPO_ROOT / "_toc.yml").is_file() and (REPO_ROOT / "chapters").is_dir()


@functools.cache
def _parsed(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return yaml.safe_load(f)


def load_yaml(path: Path | str) -> Any:
    """A YAML data file, parsed once per process; each caller gets its own copy, so no one can change another's."""
    return copy.deepcopy(_parsed(Path(path).resolve()))
