"""Locations inside the course repository, and loading its data files."""

import functools
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = REPO_ROOT / "assets" / "data"


@functools.cache
def load_yaml(path: Path) -> dict:
    """A YAML data file, parsed once per process (callers must not modify the result)."""
    with Path(path).open(encoding="utf-8") as f:
        return yaml.safe_load(f)
