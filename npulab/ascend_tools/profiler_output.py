"""Parsers for what ``torch_npu.profiler`` writes under ``ASCEND_PROFILER_OUTPUT`` (text export).

Column names follow the CANN profiling reference ("timeline和summary数据", atlasprofiling_16_1149; "op_statistic",
atlasprofiling_16_0068) and torch_npu's own header list
(Ascend/pytorch ``torch_npu/profiler/analysis/prof_common_func/_csv_headers.py``, e.g. at commit 1e849b0). Files differ between
versions (``Block Dim`` vs ``Block Num``, ``Step Id`` vs ``Step ID``, an optional ``Device_id`` column, extra
columns with ``aic_metrics``), so every reader looks columns up by name, accepts the known aliases and
ignores columns it does not know. ``N/A`` and empty cells become None.

| file | one row is | the question it answers |
|---|---|---|
| ``kernel_details.csv`` | one task executed on the NPU | which kernels take the time; which ran on AI CPU |
| ``op_statistic.csv`` | one operator type (summed) | where the device time goes, by operator type |
| ``step_trace_time.csv`` | one step | computing vs communication vs free (idle) time per step |
| ``trace_view.json`` | Chrome trace | the timeline; read with ``npulab.pytorch.profile_trace.load`` |
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from npulab.core.i18n import t

OUTPUT_DIR = "ASCEND_PROFILER_OUTPUT"
FILES = ("trace_view.json", "kernel_details.csv", "op_statistic.csv", "step_trace_time.csv")
DEVICE_PROCESS_PATTERN = r"Ascend Hardware"  # trace_view.json: the process holding the NPU's task timeline


class ProfilerOutputError(ValueError):
    """A file that is not what its name says (missing columns), or a folder without profiler output."""


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    text = text.strip().rstrip("\t")
    if text in ("", "N/A", "NA", "-"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def read_rows(path: str | os.PathLike) -> list[dict[str, str]]:
    """Rows of a CSV as dicts with stripped keys and values (a UTF-8 BOM is tolerated)."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        if reader.fieldnames is None:
            return []
        rows = []
        for row in reader:
            rows.append({(k or "").strip(): (v or "").strip() for k, v in row.items() if k is not None})
        return rows


def _column(row: dict[str, str], *names: str) -> str | None:
    for name in names:
        if name in row:
            return row[name]
    return None


def _require(rows: list[dict[str, str]], path, *groups: tuple[str, ...]) -> None:
    if not rows:
        return
    keys = set(rows[0])
    missing = [" / ".join(g) for g in groups if not keys.intersection(g)]
    if missing:
        raise ProfilerOutputError(t("prof.missing_columns", name=Path(path).name, missing=", ".join(missing),
                                     present=", ".join(sorted(keys))))


# --- kernel_details.csv ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Kernel:
    """One task on the NPU (µs)."""

    step: int | None
    name: str
    type: str
    core: str  # Accelerator Core: AI_CORE, AI_VECTOR_CORE, AI_CPU, MIX_AIC, HCCL …
    start_us: float
    dur_us: float
    wait_us: float | None
    block_dim: float | None

    @property
    def on_ai_cpu(self) -> bool:
        return "CPU" in self.core.upper().replace(" ", "_")


def kernel_details(path: str | os.PathLike) -> list[Kernel]:
    """Rows of ``kernel_details.csv``."""
    rows = read_rows(path)
    _require(rows, path, ("Name",), ("Type",), ("Accelerator Core",), ("Start Time(us)",), ("Duration(us)",))
    out = []
    for r in rows:
        step = _number(_column(r, "Step Id", "Step ID"))
        out.append(Kernel(int(step) if step is not None else None, r["Name"], r["Type"], r["Accelerator Core"],
                          _number(r["Start Time(us)"]) or 0.0, _number(r["Duration(us)"]) or 0.0,
                          _number(_column(r, "Wait Time(us)")), _number(_column(r, "Block Dim", "Block Num"))))
    return out


@dataclass(frozen=True)
class TypeTime:
    type: str
    calls: int
    total_us: float
    share: float


def time_by_type(kernels: list[Kernel], n: int = 10) -> list[TypeTime]:
    """Kernel time summed by operator type, largest first (the same view as op_statistic.csv)."""
    agg: dict[str, list[float]] = {}
    for k in kernels:
        a = agg.setdefault(k.type, [0, 0.0])
        a[0] += 1
        a[1] += k.dur_us
    total = sum(a[1] for a in agg.values()) or 1.0
    rows = [TypeTime(t, int(a[0]), a[1], a[1] / total) for t, a in agg.items()]
    return sorted(rows, key=lambda r: -r.total_us)[:n]


@dataclass(frozen=True)
class DeviceBusy:
    """Union of kernel intervals per step: busy time, span (first start → last end) and the largest gap."""

    step: int | None
    span_us: float
    busy_us: float
    largest_gap_us: float
    gap_after: str

    @property
    def idle_ratio(self) -> float:
        return 1.0 - self.busy_us / self.span_us if self.span_us > 0 else 0.0


def device_busy(kernels: list[Kernel]) -> list[DeviceBusy]:
    """Per step (or for all kernels when there is no Step Id): how busy the NPU was between its first and last task."""
    by_step: dict[int | None, list[Kernel]] = {}
    for k in kernels:
        by_step.setdefault(k.step, []).append(k)
    out = []
    for step, ks in sorted(by_step.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        ks = sorted(ks, key=lambda k: k.start_us)
        busy, cursor, gap, after = 0.0, ks[0].start_us, 0.0, ""
        last_name = ks[0].name
        for k in ks:
            end = k.start_us + k.dur_us
            if k.start_us > cursor:
                if k.start_us - cursor > gap:
                    gap, after = k.start_us - cursor, last_name
                busy += k.dur_us
            elif end > cursor:
                busy += end - cursor
            if end >= cursor:
                cursor, last_name = end, k.name
        span = cursor - ks[0].start_us
        out.append(DeviceBusy(step, span, busy, gap, after))
    return out


def ai_cpu_kernels(kernels: list[Kernel]) -> list[TypeTime]:
    """Operator types that ran on AI CPU, by time: candidates for a missing AI Core implementation or a dtype
    the AI Core kernel does not support (e.g. float64)."""
    return time_by_type([k for k in kernels if k.on_ai_cpu], n=1000)


# --- op_statistic.csv --------------------------------------------------------------------------------

@dataclass(frozen=True)
class OpTypeStat:
    op_type: str
    core_type: str
    count: int
    total_us: float
    avg_us: float | None
    min_us: float | None
    max_us: float | None
    ratio_percent: float | None


def op_statistic(path: str | os.PathLike) -> list[OpTypeStat]:
    """Rows of ``op_statistic.csv``, largest total time first."""
    rows = read_rows(path)
    _require(rows, path, ("OP Type",), ("Count",), ("Total Time(us)", "Total Time"))
    out = [OpTypeStat(r["OP Type"], _column(r, "Core Type") or "", int(_number(r["Count"]) or 0),
                      _number(_column(r, "Total Time(us)", "Total Time")) or 0.0,
                      _number(_column(r, "Avg Time(us)", "Avg Time")), _number(_column(r, "Min Time(us)", "Min Time")),
                      _number(_column(r, "Max Time(us)", "Max Time")), _number(_column(r, "Ratio(%)", "Ratio")))
           for r in rows]
    return sorted(out, key=lambda s: -s.total_us)


# --- step_trace_time.csv -----------------------------------------------------------------------------

@dataclass(frozen=True)
class StepTime:
    """One row of ``step_trace_time.csv`` (µs). Free: time in the step with neither computing nor communication."""

    step: str
    computing: float
    comm_not_overlapped: float
    overlapped: float | None
    communication: float | None
    free: float
    stage: float | None
    bubble: float | None
    preparing: float | None

    @property
    def total(self) -> float:
        """Computing + non-overlapped communication + free: the step's wall time as the file splits it."""
        return self.computing + self.comm_not_overlapped + self.free

    @property
    def free_ratio(self) -> float:
        return self.free / self.total if self.total > 0 else 0.0


def step_trace_time(path: str | os.PathLike) -> list[StepTime]:
    """Rows of ``step_trace_time.csv``."""
    rows = read_rows(path)
    _require(rows, path, ("Step",), ("Computing",), ("Communication(Not Overlapped)",), ("Free",))
    return [StepTime(r["Step"], _number(r["Computing"]) or 0.0, _number(r["Communication(Not Overlapped)"]) or 0.0,
                     _number(_column(r, "Overlapped")), _number(_column(r, "Communication")),
                     _number(r["Free"]) or 0.0, _number(_column(r, "Stage")), _number(_column(r, "Bubble")),
                     _number(_column(r, "Preparing")))
            for r in rows]


# --- the folder --------------------------------------------------------------------------------------

def find_output_dir(path: str | os.PathLike) -> Path:
    """The ``ASCEND_PROFILER_OUTPUT`` folder at ``path``, inside it, or inside one ``*_ascend_pt`` folder below it."""
    p = Path(path)
    if p.name == OUTPUT_DIR and p.is_dir():
        return p
    if (p / OUTPUT_DIR).is_dir():
        return p / OUTPUT_DIR
    found = sorted(p.glob(f"*/{OUTPUT_DIR}")) if p.is_dir() else []
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ProfilerOutputError(t("prof.several_runs", path=p, count=len(found)))
    raise ProfilerOutputError(t("prof.no_output_dir", path=p, name=OUTPUT_DIR))


def present_files(path: str | os.PathLike) -> dict[str, bool]:
    """Which of the four main files exist in the output folder."""
    out = find_output_dir(path)
    return {name: (out / name).is_file() for name in FILES}


def load_trace_view(path: str | os.PathLike):
    """``trace_view.json`` as a ``profile_trace.Trace``, with the NPU's hardware timeline counted as device activity."""
    from npulab.pytorch import profile_trace

    p = Path(path)
    if p.is_dir():
        p = find_output_dir(p) / "trace_view.json"
    return profile_trace.load(p, device_process_pattern=DEVICE_PROCESS_PATTERN)
