"""The CUDA → NPU migration analyzer: find every CUDA-specific use a port to Ascend must handle.

Python files, the code cells of notebooks and ``.cu`` sources are read with Python's ``ast`` (not
regular expressions over raw text). Every finding has a severity: ``auto`` (a safe rewrite exists;
``--diff`` shows it, ``--write`` applies it, adding ``import torch_npu`` where needed), ``manual`` (a
person must decide; the suggestion says what) or ``blocker`` (no NPU path yet; the suggestion names
the alternative). The rules and mappings are data (``npulab/data/migration_rules.yaml``,
``cuda_npu_symbols.yaml``, ``migration_costs.yaml``).

>>> result = scan_source("x = torch.zeros(3).cuda()\\n")
>>> [(f.rule, f.severity) for f in result.findings]
[('import-torch-npu', 'auto'), ('cuda-method', 'auto')]

Command line: ``python -m npulab migrate PATH... [--json] [--diff] [--write]``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

from npulab.core.i18n import t
from npulab.migrate.model import AUTO, BLOCKER, MANUAL, SEVERITIES, Finding, ScanError
from npulab.migrate.result import ScanResult

__all__ = ["AUTO", "BLOCKER", "MANUAL", "SEVERITIES", "Finding", "ScanError", "ScanResult", "scan", "scan_source",
           "write", "build_parser", "run"]


def scan(paths: Iterable[str | Path] | str | Path) -> ScanResult:
    """Scan files and folders (recursively: ``*.py``, ``*.ipynb``, ``*.cu``, ``*.cuh``).

    Unreadable, undecodable, unparsable or huge files go to ``errors`` and the scan goes on.
    """
    from npulab.migrate import analyzer, sources

    if isinstance(paths, (str, Path)):
        paths = [paths]
    found, errors = sources.discover(list(paths))
    result = ScanResult(errors=list(errors))
    for path, display in found:
        item, problems = sources.read(path, display)
        result.errors += problems
        if item is None:
            continue
        result.files_scanned += 1
        if isinstance(item, sources.CudaSource):
            result.cuda_sources.append(item)
            result.findings.append(analyzer.cuda_source_finding(item))
            continue
        result.files[display] = item
        try:
            result.findings += analyzer.analyze(item)
        except Exception as err:  # a rule tripped over unusual code: report it, keep scanning the others
            result.errors.append(ScanError(display, t("migrate.internal_error", error=f"{type(err).__name__}: {err}")))
    return result


def scan_source(text: str, name: str = "snippet.py") -> ScanResult:
    """Scan Python source given as a string (written to a temporary file named ``name``)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_text(text, encoding="utf-8")
        result = scan([path])
    files = list(result.files.values())
    for item in files:
        item.display = name
    result.findings = [_renamed(f, name) for f in result.findings]
    result.errors = [ScanError(name, e.message) for e in result.errors]
    result.files = {name: files[0]} if files else {}
    return result


def _renamed(finding: Finding, name: str) -> Finding:
    from dataclasses import replace

    return replace(finding, path=name)


def write(result: ScanResult) -> tuple[list[str], list[ScanError]]:
    """Apply the auto rewrites of ``result`` to the files; (written paths, errors)."""
    from npulab.migrate.rewrite import write as write_changes

    return write_changes(result.changes())


def build_parser(subparsers, name: str):
    """Add the ``migrate`` sub-command (see ``npulab.migrate.cli``)."""
    from npulab.migrate.cli import build_parser as build

    return build(subparsers, name)


def run(args) -> int:
    from npulab.migrate.cli import run as run_cli

    return run_cli(args)
