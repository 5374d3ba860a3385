"""Finding and reading the files a migration scan looks at: Python files, notebooks, shell scripts, CUDA sources.

A file is read into *chunks* of Python source, each parsed on its own: a ``.py`` file is one chunk,
a notebook gives one chunk per code cell (IPython magics and ``!shell`` lines translated to Python,
line numbers kept). ``%%writefile x.py`` cells are scanned as the Python file they write, shell
cells (``%%bash``, ``%%sh``, ``%%writefile x.sh``) as shell text. Whatever cannot be read, decoded
or parsed becomes a :class:`~npulab.migrate.model.ScanError`, and the scan goes on.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.i18n import t
from npulab.core.notebook_cells import NotebookError, cell_magic, cell_source, parse_notebook, python_source
from npulab.migrate.model import ScanError

PYTHON_SUFFIXES = {".py", ".pyw"}
NOTEBOOK_SUFFIXES = {".ipynb"}
CUDA_SUFFIXES = {".cu", ".cuh"}
SHELL_SUFFIXES = {".sh", ".bash"}
SCANNED_SUFFIXES = PYTHON_SUFFIXES | NOTEBOOK_SUFFIXES | CUDA_SUFFIXES | SHELL_SUFFIXES
SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "venv", ".ipynb_checkpoints", "build", "dist", "_build"}
MAX_SOURCE_BYTES = 2 * 2**20  # a hand-written .py or .cu file is far smaller; bigger ones are generated
MAX_NOTEBOOK_BYTES = 64 * 2**20  # notebooks carry outputs (images), only their code is read
SHELL_MAGICS = {"bash", "sh", "script", "system"}
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_KERNEL = re.compile(r"__global__")


def split_lines(text: str) -> list[str]:
    """Lines as Python's tokenizer counts them (``\\n``, ``\\r\\n``, ``\\r``), line endings kept."""
    return _LINES.findall(text)


@dataclass
class Chunk:
    """One unit of source: a whole Python file, or one notebook code cell."""

    raw: str  # the text as stored in the file or cell
    source: str  # what is parsed: for cells, magics translated to Python (same line numbers)
    kind: str = "python"  # "python" or "shell"
    cell: int | None = None  # code-cell number from 1 (notebooks)
    index: int | None = None  # position in the notebook's cell list (for writing back)
    tree: ast.Module | None = None
    raw_lines: list[str] = field(default_factory=list)
    source_lines: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.raw_lines = split_lines(self.raw)
        self.source_lines = split_lines(self.source)


@dataclass
class SourceFile:
    """A scanned Python file or notebook and how to write it back."""

    path: Path
    display: str
    kind: str  # "python", "notebook" or "shell"
    chunks: list[Chunk]
    encoding: str = "utf-8"
    notebook: dict | None = None  # the notebook's JSON (notebooks only)


@dataclass(frozen=True)
class CudaSource:
    """A ``.cu``/``.cuh`` file: custom CUDA code that has to be rewritten for the NPU."""

    display: str
    lines: int
    kernels: int
    first_kernel_line: int


def discover(paths: list[str | Path]) -> tuple[list[tuple[Path, str]], list[ScanError]]:
    """(file, display path) pairs under ``paths`` (folders recursively, in sorted order), and missing paths."""
    found: list[tuple[Path, str]] = []
    errors: list[ScanError] = []
    seen: set[str] = set()

    def add(path: Path, display: str) -> None:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            found.append((path, display))

    for entry in paths:
        path = Path(entry)
        if path.is_dir():
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    if Path(name).suffix.lower() in SCANNED_SUFFIXES and not name.startswith("."):
                        add((Path(folder) / name).absolute(), str(Path(folder) / name))
        elif path.exists() or path.is_symlink():
            add(path.absolute(), str(path))  # named explicitly: read whatever its suffix (scripts without .py)
        else:
            errors.append(ScanError(str(path), t("migrate.missing")))
    return found, errors


def _read_bytes(path: Path, limit: int) -> bytes:
    size = path.stat().st_size
    if size > limit:
        raise _Unreadable(t("migrate.too_large", size=size / 2**20, limit=limit / 2**20))
    return path.read_bytes()


class _Unreadable(Exception):
    """A file that cannot be scanned; the message (Chinese) goes into the errors list."""


def decode_python(data: bytes) -> tuple[str, str]:
    """Decode Python source as Python does (BOM, ``# -*- coding: ... -*-``); return (text, encoding)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        raise _Unreadable(t("migrate.not_utf8_decl", error=err)) from None
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise _Unreadable(t("migrate.bad_encoding", encoding=encoding, line=line)) from None
    except LookupError:
        raise _Unreadable(t("migrate.unknown_encoding", encoding=repr(encoding))) from None


def parse(source: str) -> ast.Module:
    """``ast.parse`` without warnings; raises _Unreadable with a message in the reader's language when it fails."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences etc. are not this tool's business
            return ast.parse(source)
    except SyntaxError as err:
        raise _Unreadable(t("migrate.syntax_error", line=err.lineno, message=err.msg)) from None
    except ValueError as err:  # NUL bytes
        raise _Unreadable(t("migrate.unparsable", error=err)) from None
    except (RecursionError, MemoryError):
        raise _Unreadable(t("migrate.too_deep")) from None


def read_python(path: Path, display: str) -> SourceFile:
    """A Python file as one chunk; raises _Unreadable."""
    text, encoding = decode_python(_read_bytes(path, MAX_SOURCE_BYTES))
    chunk = Chunk(text, text)
    chunk.tree = parse(text)
    return SourceFile(path, display, "python", [chunk], encoding)


def cell_chunk(raw: str) -> Chunk | None:
    """The chunk of one code cell, or None for a cell in another language (``%%html``, ``%%R`` ...)."""
    magic = cell_magic(raw)
    if magic is not None:
        name, arg, first = magic
        if name == "writefile":
            suffix = Path(arg.split()[-1]).suffix.lower() if arg.split() else ""
            body = "\n" * (first + 1) + "".join(split_lines(raw)[first + 1:])
            if suffix in PYTHON_SUFFIXES:
                return Chunk(raw, body)
            return Chunk(raw, body, kind="shell") if suffix in {".sh", ".bash"} else None
        if name in SHELL_MAGICS:
            return Chunk(raw, "\n" * (first + 1) + "".join(split_lines(raw)[first + 1:]), kind="shell")
    source = python_source(raw)
    return None if source is None else Chunk(raw, source)


def read_notebook(path: Path, display: str) -> tuple[SourceFile, list[ScanError]]:
    """A notebook, one chunk per code cell; cells that do not parse become errors (the others are scanned)."""
    try:
        nb = parse_notebook(_read_bytes(path, MAX_NOTEBOOK_BYTES))
    except NotebookError as err:
        raise _Unreadable(t("migrate.not_scanned_because", error=err)) from None
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    language = str((meta.get("kernelspec") or {}).get("language") or (meta.get("language_info") or {}).get("name")
                   or "python").lower()
    if language != "python":
        raise _Unreadable(t("migrate.not_python_notebook", language=language))
    chunks, errors, number = [], [], 0
    for index, cell in enumerate(nb["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        number += 1
        try:
            chunk = cell_chunk(cell_source(cell))
            if chunk is None:
                continue
            if chunk.kind == "python":
                chunk.tree = parse(chunk.source)
        except _Unreadable as err:
            errors.append(ScanError(display, t("migrate.cell_error", number=number, error=err)))
            continue
        except Exception as err:  # IPython's translator may fail on odd input: report it, keep scanning
            errors.append(ScanError(display, t("migrate.cell_untranslatable", number=number, error=type(err).__name__)))
            continue
        chunk.cell, chunk.index = number, index
        chunks.append(chunk)
    return SourceFile(path, display, "notebook", chunks, "utf-8", nb), errors


def read_shell(path: Path, display: str) -> SourceFile:
    """A shell script (launch scripts set CUDA_VISIBLE_DEVICES, call nvidia-smi) as one shell chunk."""
    data = _read_bytes(path, MAX_SOURCE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unreadable(t("migrate.not_utf8")) from None
    return SourceFile(path, display, "shell", [Chunk(text, text, kind="shell")])


def read_cuda(path: Path, display: str) -> CudaSource:
    """Size and kernel count of a CUDA source file."""
    text = _read_bytes(path, MAX_SOURCE_BYTES).decode("utf-8", "replace")
    lines = split_lines(text)
    kernel_lines = [i for i, line in enumerate(lines, start=1) if _KERNEL.search(line)]
    return CudaSource(display, len(lines), len(kernel_lines), kernel_lines[0] if kernel_lines else 1)


def read(path: Path, display: str) -> tuple[SourceFile | CudaSource | None, list[ScanError]]:
    """Read one file; (None, [error]) when it cannot be scanned."""
    try:
        suffix = path.suffix.lower()
        if suffix in CUDA_SUFFIXES:
            return read_cuda(path, display), []
        if suffix in NOTEBOOK_SUFFIXES:
            return read_notebook(path, display)
        if suffix in SHELL_SUFFIXES:
            return read_shell(path, display), []
        return read_python(path, display), []
    except _Unreadable as err:
        return None, [ScanError(display, str(err))]
    except IsADirectoryError:
        return None, [ScanError(display, t("migrate.is_dir"))]
    except PermissionError:
        return None, [ScanError(display, t("migrate.no_permission"))]
    except OSError as err:
        return None, [ScanError(display, t("migrate.read_failed", error=err.strerror or err))]
