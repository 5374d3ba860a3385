"""Reading course notebooks, the one place for it: which files are notebooks, their cells, tags, the ``npu`` tag,
and a cell's source as plain Python. lint-npu, migrate, record, the labs, the workshop and conftest use it.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from npulab.core.i18n import t
from npulab.core.paths import REPO_ROOT

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
# folders that never hold course notebooks; pytest.ini (norecursedirs) and _config.yml (exclude_patterns) list
# the same folders, and tests/test_notebook_structure.py keeps them in agreement with this set
IGNORED_DIRS = frozenset({"_build", ".venv", ".ipynb_checkpoints"})
# cell magics whose body is Python (the course's %%npu gate, timing, capturing); any other is not Python
PYTHON_CELL_MAGICS = frozenset({"npu", "time", "timeit", "capture", "prun"})
_TIMED_LINE = re.compile(r"^(\s*)%(?:time|timeit|prun)\s+(?!-)(.*)$")


class NotebookError(ValueError):
    """A file that is not a readable nbformat-4 notebook; the message is a sentence in npulab's language."""


# --- files -----------------------------------------------------------------------------------------------------


def _skipped(name: str) -> bool:
    return name in IGNORED_DIRS or name.startswith(".")


def find_notebooks(paths: Iterable[Path | str] | None = None) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Notebooks under ``paths`` (files or folders, recursively; default: the course folders), sorted, and
    ``(path, reason)`` for each given path that is missing or not a notebook."""
    roots = [Path(p) for p in paths] if paths else [REPO_ROOT / d for d in COURSE_DIRS if (REPO_ROOT / d).is_dir()]
    found: list[Path] = []
    errors: list[tuple[Path, str]] = []
    for root in roots:
        if root.is_dir():
            for folder, dirs, files in os.walk(root):
                dirs[:] = sorted(d for d in dirs if not _skipped(d))
                found += [Path(folder) / f for f in sorted(files) if f.endswith(".ipynb")]
        elif not root.exists():
            errors.append((root, t("cells.missing_path")))
        elif root.suffix != ".ipynb":
            errors.append((root, t("cells.not_notebook")))
        else:
            found.append(root)
    return found, errors


def iter_notebooks(paths: Iterable[Path | str] | None = None) -> Iterator[Path]:
    """The notebooks of :func:`find_notebooks`, ignoring paths that are not notebooks."""
    yield from find_notebooks(paths)[0]


def read(path: Path | str):
    """The notebook at ``path`` as an nbformat v4 NotebookNode."""
    import nbformat

    return nbformat.read(str(path), as_version=4)


def parse_notebook(data: bytes | str) -> dict:
    """A notebook's JSON as a dict, checked to be nbformat 4 with well-formed cells; NotebookError otherwise."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
        nb = json.loads(text)
    except UnicodeDecodeError:
        raise NotebookError(t("cells.not_utf8")) from None
    except ValueError as err:
        raise NotebookError(t("cells.bad_json", error=err)) from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotebookError(t("cells.no_cells"))
    if not isinstance(nb.get("nbformat", 4), int) or nb.get("nbformat", 4) < 4:
        raise NotebookError(t("cells.old_format", version=repr(nb.get("nbformat"))))
    for i, cell in enumerate(nb["cells"]):
        source = cell.get("source", "") if isinstance(cell, dict) else None
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(x, str) for x in source)):
            raise NotebookError(t("cells.bad_source", number=i + 1))
        if not isinstance(cell.get("metadata", {}), dict):
            raise NotebookError(t("cells.bad_metadata", number=i + 1))
    return nb


# --- cells -----------------------------------------------------------------------------------------------------


def cell_source(cell) -> str:
    """A cell's source as one string (nbformat stores it as a string or a list of lines)."""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def tags(cell) -> list[str]:
    """Tags of a cell (an empty list when there are none or they are malformed)."""
    value = cell.get("metadata", {}).get("tags", [])
    return list(value) if isinstance(value, list) else []


def is_npu_cell(cell) -> bool:
    """A code cell that needs an Ascend NPU (tag ``npu``)."""
    return cell.get("cell_type") == "code" and NPU_TAG in tags(cell)


def code_cells(nb) -> list[tuple[int, dict]]:
    """(code cell number from 1, cell) pairs, numbered as Jupyter numbers code cells."""
    return list(enumerate((c for c in nb.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"),
                          start=1))


def cell_magic(source: str) -> tuple[str, str, int] | None:
    """(magic name, its argument line, index of its line) of a cell that starts with ``%%``; None otherwise."""
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not lines[first].startswith("%%"):
        return None
    name, _, arg = lines[first][2:].partition(" ")
    return name.strip(), arg.strip(), first


@functools.lru_cache(maxsize=1024)
def python_source(source: str) -> str | None:
    """A cell's source as plain Python with the same line numbers; None for a shell or other non-Python cell."""
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    while first is not None and lines[first].startswith("%%"):
        magic = (lines[first][2:].split() or [""])[0]
        if magic not in PYTHON_CELL_MAGICS:
            return None  # %%bash, %%sh, %%script, %%writefile, %%html, ...
        lines[first] = ""
        first = next((i for i in range(first + 1, len(lines)) if lines[i].strip()), None)
    lines = [_TIMED_LINE.sub(r"\1\2", line) for line in lines]  # %time f(x) -> f(x): the code is Python
    leading = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    return "\n" * leading + _transformer().transform_cell("\n".join(lines))  # IPython drops leading blank lines


@functools.cache
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager  # IPython's own magic and ``!`` rewriting

    return TransformerManager()
