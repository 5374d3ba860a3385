"""msprof-analyze (PyPI ``msprof-analyze``) without an NPU: its API comparison of two ``torch.profiler`` traces.

What the course found (msprof-analyze 26.2.0, torch 2.13 CPU, no CANN): ``msprof-analyze compare`` takes a
Chrome trace file for ``-d`` and ``-bp`` (a JSON object is read as a GPU trace, a JSON list as NPU data). On a
CPU-only trace the overall comparison stops with "The profiling data does not contain kernel running data" (it
needs device kernels), the operator and memory comparisons run but every device figure in them is 0, the kernel
and communication sheets are empty, and the API comparison (``--enable_api_compare``) reports real numbers: per ``aten``/``record_function`` name, the calls,
total, self and average time of both traces and their ratios. ``advisor`` reads only ``trace_view.json`` (NPU
data) and ``cluster`` only ``*_ascend_pt`` directories, so neither has anything to analyse on this machine.

The comparison runs in a subprocess through the ``compare`` sub-command's own click command (the one
``msprof-analyze compare`` dispatches to), so the advisor's imports (about 3 s) and the tool's log lines stay out
of the notebook. The result is an .xlsx file; openpyxl (a mindstudio-probe dependency) reads it.
"""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from npulab.core.display import Table
from npulab.core.i18n import t
from npulab.env.check import metadata_version

RUN = ("import sys\nfrom msprof_analyze.cli.compare_cli import compare_cli\n"
       "compare_cli(sys.argv[1:], prog_name='msprof-analyze compare')\n")
SHEET = "ApiCompare"
HEADER_ROW = 3  # rows 1-2 name the two traces; row 3 holds the column names; data from row 4
# column names of the ApiCompare sheet, left to right (msprof-analyze 26.2.0)
COLUMNS = ("Order Id", "api name", "Total Duration(ms)", "Self Time(ms)", "Avg Duration(ms)", "Calls",
           "Total Duration(ms)", "Self Time(ms)", "Avg Duration(ms)", "Calls",
           "Diff Total Ratio", "Diff Self Ratio", "Diff Avg Ratio", "Diff Calls Ratio")


def available() -> bool:
    """True when msprof-analyze is importable (without importing it)."""
    return importlib.util.find_spec("msprof_analyze") is not None


def version() -> str | None:
    """The installed msprof-analyze version, or None."""
    return metadata_version("msprof-analyze")


def command(comparison: str | os.PathLike, base: str | os.PathLike, out: str | os.PathLike) -> list[str]:
    """The command line this module runs, as a learner would type it."""
    return ["msprof-analyze", "compare", "-d", str(comparison), "-bp", str(base), "--enable_api_compare", "-o", str(out)]


@dataclass
class ApiRow:
    """One row of the ApiCompare sheet: an API (operator or annotation name) in the base and the comparison trace."""

    name: str
    base_calls: int
    calls: int
    base_self_ms: float
    self_ms: float
    base_total_ms: float
    total_ms: float

    @property
    def calls_ratio(self) -> float:
        """comparison / base, as msprof-analyze's Diff Calls Ratio (inf when the base has none)."""
        return self.calls / self.base_calls if self.base_calls else math.inf


@dataclass
class ApiCompare:
    """The API comparison of two traces: its rows, how long the tool took, the report file and the command."""

    rows: list[ApiRow]
    seconds: float
    report: Path
    argv: list[str]

    def changed_calls(self) -> list[ApiRow]:
        """Rows whose call count differs between the traces, most calls removed first."""
        return sorted((r for r in self.rows if r.calls != r.base_calls), key=lambda r: r.calls - r.base_calls)

    def table(self, title: str = "", limit: int = 8) -> Table:
        """The APIs whose call count changed, with both self times, as a course table."""
        return Table(["API", t("pt.msprof_col_calls"), "Diff Calls Ratio", t("pt.msprof_col_self")],
                     [[r.name, f"{r.base_calls} → {r.calls}", ratio_text(r.calls_ratio),
                       f"{r.base_self_ms:g} → {r.self_ms:g}"] for r in self.changed_calls()[:limit]],
                     title, code_columns=[0],
                     notes=[t("pt.msprof_note")])


def ratio_text(value: float) -> str:
    """0.015625 → '0.0156'; inf → '∞'."""
    return "∞" if math.isinf(value) else f"{value:.3g}"


def read_report(path: str | os.PathLike) -> list[ApiRow]:
    """The rows of the ApiCompare sheet of a msprof-analyze comparison report (.xlsx)."""
    from openpyxl import load_workbook

    book = load_workbook(path, read_only=True, data_only=True)
    try:
        if SHEET not in book.sheetnames:
            raise ValueError(t("pt.msprof_no_sheet", sheet=SHEET, sheets=", ".join(book.sheetnames)))
        rows = list(book[SHEET].iter_rows(values_only=True))
    finally:
        book.close()
    header = tuple(str(c).strip() if c is not None else "" for c in rows[HEADER_ROW - 1])
    if header[:len(COLUMNS)] != COLUMNS:
        raise ValueError(t("pt.msprof_columns", sheet=SHEET, header=header))
    out = []
    for r in rows[HEADER_ROW:]:
        if r[1] is None:
            continue
        out.append(ApiRow(str(r[1]), int(r[5] or 0), int(r[9] or 0), float(r[3] or 0), float(r[7] or 0),
                          float(r[2] or 0), float(r[6] or 0)))
    return out


def api_compare(comparison: str | os.PathLike, base: str | os.PathLike, workdir: str | os.PathLike | None = None,
                timeout: float = 300) -> ApiCompare:
    """Run ``msprof-analyze compare -d COMPARISON -bp BASE --enable_api_compare`` and read its ApiCompare sheet."""
    if not available():
        raise RuntimeError(t("pt.no_msprof"))
    out = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="msprof-analyze-"))
    out.mkdir(parents=True, exist_ok=True)
    argv = command(Path(comparison).resolve(), Path(base).resolve(), out.resolve())
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUN, *argv[2:]], capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    found = sorted(out.glob("performance_comparison_result_*.xlsx"))
    if proc.returncode != 0 or not found:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-4:])
        raise RuntimeError(t("pt.msprof_failed", code=proc.returncode, tail=tail))
    return ApiCompare(read_report(found[-1]), seconds, found[-1], argv)
