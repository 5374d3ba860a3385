"""MindStudio Probe (``msprobe``, PyPI ``mindstudio-probe``) without an NPU: dump two runs and compare them.

What the course found (mindstudio-probe 26.2.0, torch 2.13 CPU, no CANN): the package installs with the
course's numpy<2 pin (pip then picks pandas 3.0.x); ``msprobe -h`` and ``msprobe compare`` run (they log one
"Please verify that the CANN environment" error line and go on); ``PrecisionDebugger`` dumps statistics of
a PyTorch model on the CPU at levels L0 (modules), L1 (APIs) and mix. ``PrecisionDebugger`` is a singleton
in a process, so the two runs are two *steps* of one debugger (step0, step1).

The demonstration runs in a subprocess: importing msprobe patches Triton and prints log lines with
paths, none of which should reach the notebook's kernel or the rendered page. The two runs differ in one
real way a device port can differ — the GELU implementation (exact erf vs the tanh approximation) — so
the comparison has a known first divergent module.
"""

from __future__ import annotations

import csv
import importlib.util
import json
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

SCRIPT = r'''
import json
import sys

import torch
from torch import nn
from msprobe.msprobe import main
from msprobe.pytorch import PrecisionDebugger


def build(approximate):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.GELU(approximate=approximate), nn.Linear(32, 32),
                         nn.LayerNorm(32), nn.Linear(32, 4))


x = torch.randn(8, 16, generator=torch.Generator().manual_seed(1)) * 3
config = {"task": "statistics", "dump_path": "dump", "rank": [], "step": [], "level": sys.argv[1],
          "statistics": {"scope": [], "list": [], "data_mode": ["forward"], "summary_mode": "statistics"}}
with open("config.json", "w") as f:
    json.dump(config, f)
debugger = PrecisionDebugger(config_path="config.json")  # one debugger per process: the runs are its steps


def dump(model, inputs):
    debugger.start(model)
    with torch.no_grad():
        model(inputs)
    debugger.stop()
    debugger.step()


dump(build("none"), x)  # step0: the golden run (exact GELU)
dump(build("tanh"), x)  # step1: the run under test (tanh-approximated GELU)
big = build("none").half()  # step2: float16 with large weights and inputs, so the first Linear overflows
with torch.no_grad():
    big[0].weight.mul_(100)
dump(big, (x * 1000).half())

sys.argv = ["msprobe", "compare", "-tp", "dump/step1", "-gp", "dump/step0", "-o", "compare"]
main()
sys.argv = ["msprobe", "overflow_check", "-i", "dump/step2", "-o", "overflow"]
main()
'''

COLUMNS = ("NPU Name", "NPU Dtype", "Bench Dtype", "MaxRelativeErr", "NormRelativeErr", "Result")
RESULTS = {"pass": lambda: t("pt.msprobe_pass"), "warning": lambda: t("pt.msprobe_warning"),
           "error": lambda: t("pt.msprobe_error")}  # msprobe's verdicts, in the course's words


def available() -> bool:
    """True when the msprobe package is importable (without importing it)."""
    return importlib.util.find_spec("msprobe") is not None


def version() -> str | None:
    """The installed mindstudio-probe version, or None."""
    return metadata_version("mindstudio-probe")


@dataclass
class CompareRun:
    """The rows of msprobe's compare CSV (the columns in ``COLUMNS``), how long it took and the dump files."""

    rows: list[dict[str, str]]
    seconds: float
    dump_files: list[str]
    overflow_ops: list[str]  # op_name of each anomaly msprobe overflow_check reported for the float16 run

    def outputs(self) -> list[dict[str, str]]:
        """Only the module outputs (not API rows, inputs or parameters), in execution order."""
        return [r for r in self.rows if r["NPU Name"].startswith("Module.") and ".output." in r["NPU Name"]]

    def compare_table(self, title: str = "") -> Table:
        """The module outputs as a course table: Chinese headers, errors as short percentages, verdicts in Chinese."""
        return Table(
            [t("pt.msprobe_col_output"), t("pt.msprobe_col_dtypes"), t("pt.msprobe_col_max_rel"),
             t("pt.msprobe_col_norm_rel"), t("pt.msprobe_col_result")],
            [[r["NPU Name"], f'{r["NPU Dtype"]} / {r["Bench Dtype"]}', percent_text(r["MaxRelativeErr"]),
              percent_text(r["NormRelativeErr"]), result_text(r["Result"])] for r in self.outputs()],
            title, code_columns=[0],
            notes=[t("pt.msprobe_note")])

    def first_over(self, percent: float) -> dict[str, str] | None:
        """The first module output whose NormRelativeErr exceeds ``percent`` (msprobe writes it in %)."""
        for r in self.outputs():
            value = percentage(r["NormRelativeErr"])
            if value is not None and value > percent:
                return r
        return None


def percentage(text: str) -> float | None:
    """'0.25%' → 0.25; 'N/A' → None."""
    try:
        return float(text.strip().rstrip("%"))
    except (ValueError, AttributeError):
        return None


def percent_text(text: str) -> str:
    """'0.000123456%' → '0.000123%'; a value msprobe could not compute ('N/A') stays as it is."""
    value = percentage(text)
    return (str(text).strip() or "—") if value is None else f"{value:.3g}%"


def result_text(text: str) -> str:
    """'pass' → '通过（pass）'; an unknown verdict stays as msprobe wrote it."""
    word = RESULTS.get(str(text).strip().lower())
    return t("pt.msprobe_result", word=word(), result=str(text).strip()) if word else str(text)


def dump_and_compare(level: str = "mix", workdir: str | os.PathLike | None = None, timeout: float = 600) -> CompareRun:
    """Dump three runs of a small model with msprobe on the CPU, compare two, check the third for overflow.

    step0 (exact GELU) is the golden run, step1 (tanh GELU) the run under test, step2 a float16 run built to
    overflow in its first Linear; then ``msprobe compare`` (step1 vs step0) and ``msprobe overflow_check`` (step2).
    """
    if not available():
        raise RuntimeError(t("pt.no_msprobe"))
    work = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="msprobe-"))
    (work / "run.py").write_text(SCRIPT, encoding="utf-8")
    env = dict(os.environ, TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "run.py", level], cwd=work, env=env, capture_output=True, text=True,
                          timeout=timeout)
    seconds = time.perf_counter() - start
    found = sorted((work / "compare").glob("compare_result_*.csv"))
    if proc.returncode != 0 or not found:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-5:])
        raise RuntimeError(t("pt.msprobe_failed", code=proc.returncode, tail=tail))
    with open(found[-1], encoding="utf-8-sig", newline="") as f:
        rows = [{k: r.get(k, "") for k in COLUMNS} for r in csv.DictReader(f)]
    overflow_ops = []
    for report in sorted((work / "overflow").glob("*.json")):
        data = json.loads(report.read_text(encoding="utf-8"))
        for entries in data.values():
            overflow_ops += [e.get("op_name", "") for e in entries if isinstance(e, dict)]
    dumps = sorted(str(p.relative_to(work / "dump")).split("/proc")[0] + "/…/" + p.name
                   for p in (work / "dump").rglob("*.json"))
    return CompareRun(rows, seconds, dumps, overflow_ops)
