"""The real npu-smi / ascend-dmi outputs kept in ``npulab/data/samples/`` (see ``index.yaml`` there)."""

from __future__ import annotations

from pathlib import Path

from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR, load_yaml

SAMPLES_DIR = DATA_DIR / "samples"


def index() -> dict[str, dict]:
    """File name → kind, hardware, tool version, source, complete, note."""
    return load_yaml(SAMPLES_DIR / "index.yaml")


def names(kind: str | None = None) -> list[str]:
    """Sample file names, optionally only those of one kind (``info``, ``topo``, ``dmi`` …)."""
    return [name for name, meta in index().items() if kind is None or meta["kind"] == kind]


def path(name: str) -> Path:
    """Path of a sample file; KeyError (Chinese) for a name that is not in the index."""
    if name not in index():
        raise KeyError(t("smi.unknown_sample", name=repr(name), names=", ".join(index())))
    return SAMPLES_DIR / name


def text(name: str) -> str:
    """The text of a sample."""
    return path(name).read_text(encoding="utf-8")
