"""Reading course notebooks: tags, NPU cells, the notebooks that make up the course."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from npulab.paths import REPO_ROOT

NPU_TAG = "npu"
SKIP_TAG = "skip-execution"
# the tag vocabulary shared by Jupyter Book and nbval (DESIGN.md); conftest.py documents the mapping
KNOWN_TAGS = frozenset(
    {
        NPU_TAG,
        SKIP_TAG,
        "raises-exception",
        "hide-input",
        "remove-input",
        "hide-output",
        "remove-output",
        "remove-cell",
        "nbval-ignore-output",
        "solution",  # markdown/code that the exercise version of a lab leaves out
    }
)
COURSE_DIRS = ("chapters", "notebooks")
IGNORED_PARTS = {"_build", ".venv", ".ipynb_checkpoints"}


def tags(cell) -> list[str]:
    """Tags of a cell (an empty list when there are none or they are malformed)."""
    value = cell.get("metadata", {}).get("tags", [])
    return list(value) if isinstance(value, list) else []


def is_npu_cell(cell) -> bool:
    return cell.get("cell_type") == "code" and NPU_TAG in tags(cell)


def iter_notebooks(paths: Iterable[Path | str] | None = None) -> Iterator[Path]:
    """Notebooks under ``paths`` (default: the course folders), sorted, skipping build output."""
    roots = [Path(p) for p in paths] if paths else [REPO_ROOT / d for d in COURSE_DIRS]
    for root in roots:
        candidates = [root] if root.is_file() else sorted(root.rglob("*.ipynb"))
        for path in candidates:
            if not IGNORED_PARTS.intersection(path.parts) and not any(p.startswith(".") for p in path.parts[-3:]):
                yield path


def read(path: Path | str):
    """The notebook at ``path`` as an nbformat v4 NotebookNode."""
    import nbformat

    return nbformat.read(str(path), as_version=4)
