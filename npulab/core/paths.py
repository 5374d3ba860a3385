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


# libyaml's loader (in PyYAML's wheels) parses the package's 1.6 MB of data about eight times faster than the pure-Python
# one, with the same safe constructors: every process (a notebook kernel, a CLI run, a book build) loads some of it
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(source: Any) -> Any:
    """``yaml.safe_load`` of a string or an open text file, through libyaml when PyYAML has it."""
    return yaml.load(source, Loader=_SAFE_LOADER)


@functools.cache
def _parsed(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return parse_yaml(f)


def load_yaml(path: Path | str) -> Any:
    """A YAML data file, parsed once per process; each caller gets its own copy, so no one can change another's."""
    return copy.deepcopy(_parsed(Path(path).resolve()))


def shared_yaml(path: Path | str) -> Any:
    """The same file as ``load_yaml``, parsed once per process, without the copy: for readers on a hot path (lint-npu
    reads its tables once per cell), which must not change what they get."""
    return _parsed(Path(path).resolve())
