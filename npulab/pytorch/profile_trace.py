"""Read a ``torch.profiler`` Chrome trace and answer a performance engineer's first questions.

``torch_npu.profiler`` has the same API shape as ``torch.profiler`` and writes the same Chrome trace format
(``trace_view.json`` under ``ASCEND_PROFILER_OUTPUT``), so the analysis here reads either. The questions:

1. which operators take the time (self time: an operator's duration minus that of the operators it calls);
2. how busy the device is, and where the gaps between its work are (host-bound stretches);
3. how much of each step waits for the data loader;
4. which operators ran on the host only, launching nothing on the device (the CPU-fallback signature
   when the model is meant to run on an accelerator);
5. a timeline plot of a few steps.

Without an accelerator the "device" is the CPU itself: busy time is then the time covered by top-level
``aten`` operators on the main thread, and a gap is time in which Python ran no operator at all.
Times in a Chrome trace are microseconds.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from npulab.core.i18n import t

OP_CATS = {"cpu_op", "operator"}  # PyTorch host operators (torch.profiler; older traces use "Operator")
KERNEL_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}  # device activity in torch.profiler traces
LAUNCH_CATS = {"cuda_runtime", "cuda_driver", "privateuse1_runtime", "privateuse1_driver"}
ANNOTATION_CAT = "user_annotation"
STEP_PATTERN = re.compile(r"^ProfilerStep#(\d+)$")
DATALOADER_PATTERN = re.compile(r"DataLoader|dataloader|data_load")


@dataclass(frozen=True)
class Event:
    """One complete event ("ph": "X") of a Chrome trace; ``ts`` and ``dur`` in microseconds."""

    name: str
    cat: str
    ts: float
    dur: float
    pid: Any
    tid: Any
    args: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def end(self) -> float:
        return self.ts + self.dur


@dataclass
class Trace:
    """The complete events of a trace, plus the process names from its metadata events."""

    events: list[Event]
    process_names: dict[Any, str] = field(default_factory=dict)
    device_processes: frozenset = frozenset()  # pids whose events are device activity (Ascend trace_view)
    source: str | None = None  # the file it was read from, for tools that take the file (msprof-analyze compare)

    def by_cat(self, cats: Iterable[str]) -> list[Event]:
        wanted = {c.lower() for c in cats}
        return [e for e in self.events if e.cat.lower() in wanted]

    @property
    def ops(self) -> list[Event]:
        return self.by_cat(OP_CATS)

    @property
    def kernels(self) -> list[Event]:
        return [e for e in self.events if e.cat.lower() in KERNEL_CATS or e.pid in self.device_processes]

    @property
    def steps(self) -> list[Event]:
        return sorted((e for e in self.events if STEP_PATTERN.match(e.name)), key=lambda e: e.ts)

    def window(self) -> tuple[float, float]:
        """Start and end of the profiled steps (of all events when there are no step markers)."""
        spans = self.steps or self.events
        if not spans:
            raise ValueError(t("pt.no_complete_events"))
        return min(e.ts for e in spans), max(e.end for e in spans)


def load(source: str | os.PathLike | dict | list, device_process_pattern: str | None = None) -> Trace:
    """Read a Chrome trace (path, parsed dict, or a bare event list as Ascend's trace_view.json may be).

    ``device_process_pattern``: a regular expression on process names whose events count as device
    activity (for Ascend traces, e.g. ``"Ascend Hardware"``).
    """
    data = source
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8") as f:
            data = json.load(f)
    raw = data.get("traceEvents", []) if isinstance(data, dict) else data
    if not isinstance(raw, list):
        raise ValueError(t("pt.not_chrome_trace"))
    events, names = [], {}
    for e in raw:
        if not isinstance(e, dict):
            continue
        if e.get("ph") == "M" and e.get("name") == "process_name":
            names[e.get("pid")] = str(e.get("args", {}).get("name", ""))
        elif e.get("ph") == "X" and "dur" in e:
            events.append(Event(str(e.get("name", "")), str(e.get("cat", "")), float(e["ts"]), float(e["dur"]),
                                e.get("pid"), e.get("tid"), e.get("args") or {}))
    device = frozenset()
    if device_process_pattern:
        rx = re.compile(device_process_pattern)
        device = frozenset(pid for pid, n in names.items() if rx.search(n))
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    return Trace(sorted(events, key=lambda e: (e.ts, -e.dur)), names, device, path)


# --- self time ---------------------------------------------------------------------------------------

def _nest(events: list[Event]) -> dict[int, list[int]]:
    """Children (direct callees) of each event, by time containment on the same thread."""
    children: dict[int, list[int]] = defaultdict(list)
    by_thread: dict[tuple, list[int]] = defaultdict(list)
    for i, e in enumerate(events):
        by_thread[(e.pid, e.tid)].append(i)
    for idx in by_thread.values():
        idx.sort(key=lambda i: (events[i].ts, -events[i].dur))
        stack: list[int] = []
        for i in idx:
            while stack and events[i].ts >= events[stack[-1]].end - 1e-9:
                stack.pop()
            if stack:
                children[stack[-1]].append(i)
            stack.append(i)
    return children


def self_times(events: list[Event]) -> list[float]:
    """Self time of each event: its duration minus the durations of its direct children."""
    children = _nest(events)
    return [max(0.0, e.dur - sum(events[c].dur for c in children.get(i, ()))) for i, e in enumerate(events)]


def top_level(events: list[Event]) -> list[Event]:
    """Events not contained in another event of the list on the same thread."""
    children = _nest(events)
    nested = {c for cs in children.values() for c in cs}
    return [e for i, e in enumerate(events) if i not in nested]


@dataclass(frozen=True)
class OpStat:
    """Operators of one name: calls, summed self and total time (µs), and share of all operator self time."""

    name: str
    calls: int
    self_us: float
    total_us: float
    share: float


def _in_window(trace: Trace, events: list[Event]) -> list[Event]:
    start, end = trace.window()
    return [e for e in events if e.ts >= start and e.end <= end + 1e-6]


def top_ops(trace: Trace, n: int = 10, *, device: bool = False) -> list[OpStat]:
    """The ``n`` operator names with the largest summed self time (device kernels with ``device=True``)."""
    events = _in_window(trace, trace.kernels if device else trace.ops)
    selfs = self_times(events) if not device else [e.dur for e in events]
    agg: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for e, s in zip(events, selfs, strict=True):
        a = agg[e.name]
        a[0] += 1
        a[1] += s
        a[2] += e.dur
    total = sum(a[1] for a in agg.values()) or 1.0
    stats = [OpStat(name, int(a[0]), a[1], a[2], a[1] / total) for name, a in agg.items()]
    return sorted(stats, key=lambda s: -s.self_us)[:n]


# --- busy time, idle ratio and gaps ------------------------------------------------------------------

@dataclass(frozen=True)
class Gap:
    """A stretch with no busy interval, with the work before/after it and the annotations covering it."""

    start: float
    end: float
    before: str
    after: str
    inside: tuple[str, ...]

    @property
    def dur(self) -> float:
        return self.end - self.start


@dataclass
class Utilisation:
    """How busy the device (or, without one, the host's operators) was over the profiled window."""

    basis: str  # "设备 kernel" | "顶层主机算子"
    window_us: float
    busy_us: float
    gaps: list[Gap]

    @property
    def idle_ratio(self) -> float:
        return 1.0 - self.busy_us / self.window_us if self.window_us > 0 else 0.0


def _merge(intervals: list[tuple[float, float, str]]) -> list[tuple[float, float, str, str]]:
    """Union of intervals, keeping the first and last name in each merged interval."""
    merged: list[list] = []
    for s, e, name in sorted(intervals):
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1][1], merged[-1][3] = e, name
        else:
            merged.append([s, e, name, name])
    return [tuple(m) for m in merged]


def busy_basis(trace: Trace) -> tuple[str, list[Event]]:
    """What counts as busy: device kernels when the trace has any, else top-level host operators."""
    kernels = _in_window(trace, trace.kernels)
    if kernels:
        return t("pt.basis_kernels"), kernels
    return t("pt.basis_host_ops"), top_level(_in_window(trace, trace.ops))


def utilisation(trace: Trace, min_gap_us: float = 100.0) -> Utilisation:
    """Busy time, idle ratio and the gaps of at least ``min_gap_us`` between busy intervals."""
    start, end = trace.window()
    basis, busy_events = busy_basis(trace)
    merged = _merge([(max(e.ts, start), min(e.end, end), e.name) for e in busy_events])
    busy = sum(e - s for s, e, _a, _b in merged)
    annotations = [e for e in trace.by_cat({ANNOTATION_CAT}) if not STEP_PATTERN.match(e.name)]
    gaps, cursor, last = [], start, t("pt.window_start")
    for s, e, first_name, last_name in [*merged, (end, end, t("pt.window_end"), "")]:
        if s - cursor >= min_gap_us:
            inside = tuple(dict.fromkeys(a.name for a in annotations if a.ts < s and a.end > cursor))
            gaps.append(Gap(cursor, s, last, first_name, inside))
        cursor, last = max(cursor, e), last_name
    return Utilisation(basis, end - start, busy, gaps)


# --- data loader -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LoaderTime:
    """Time spent in data-loading events per step (µs) and as a share of the step."""

    per_step_us: tuple[float, ...]
    step_us: tuple[float, ...]

    @property
    def share(self) -> float:
        total = sum(self.step_us)
        return sum(self.per_step_us) / total if total else 0.0


def loader_time(trace: Trace, pattern: re.Pattern | str = DATALOADER_PATTERN) -> LoaderTime:
    """Time inside events whose name matches ``pattern`` (torch.profiler marks ``enumerate(DataLoader)…``)."""
    rx = re.compile(pattern) if isinstance(pattern, str) else pattern
    loads = top_level([e for e in trace.events if rx.search(e.name) and not STEP_PATTERN.match(e.name)])
    steps = trace.steps or [Event("window", "", *_span(trace), None, None)]
    per_step = []
    for st in steps:
        per_step.append(sum(max(0.0, min(e.end, st.end) - max(e.ts, st.ts)) for e in loads))
    return LoaderTime(tuple(per_step), tuple(st.dur for st in steps))


def _span(trace: Trace) -> tuple[float, float]:
    s, e = trace.window()
    return s, e - s


# --- host-only operators (the CPU-fallback signature) ------------------------------------------------

@dataclass(frozen=True)
class HostOnly:
    name: str
    calls: int
    total_us: float


COPY_PATTERN = re.compile(r"(?i)memcpy|memset|copy")


def _is_compute(e: Event) -> bool:
    return e.cat.lower() not in {"gpu_memcpy", "gpu_memset"} and not COPY_PATTERN.search(e.name)


def host_only_ops(trace: Trace, min_us: float = 0.0) -> list[HostOnly] | None:
    """Top-level operators that launched no device *compute* work; None when the trace has no device activity.

    An operator launched compute work when a compute kernel (not a memcpy/memset) carries its ``External id``,
    or a kernel-launch runtime event (``cudaLaunchKernel`` …, not a memcpy) lies inside it on the same thread.
    torch_npu's CPU fallback shows exactly this: host time, copies between device and host, no compute kernel.
    """
    if not trace.kernels:
        return None
    kernel_ids = {e.args.get("External id") for e in trace.kernels if _is_compute(e)} - {None}
    launches = [e for e in trace.by_cat(LAUNCH_CATS) if _is_compute(e)]
    ops = top_level(_in_window(trace, trace.ops))
    by_thread = defaultdict(list)
    for la in launches:
        by_thread[(la.pid, la.tid)].append(la)
    agg: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for op in ops:
        if op.args.get("External id") in kernel_ids:
            continue
        if any(op.ts <= la.ts and la.end <= op.end for la in by_thread.get((op.pid, op.tid), ())):
            continue
        agg[op.name][0] += 1
        agg[op.name][1] += op.dur
    rows = [HostOnly(n, int(c), t) for n, (c, t) in agg.items() if t >= min_us]
    return sorted(rows, key=lambda r: -r.total_us)


# --- recording and plotting --------------------------------------------------------------------------

def quiet_kineto() -> None:
    """Silence kineto's start/stop log lines (printed straight to stderr, they would land in the pages)."""
    os.environ.setdefault("KINETO_LOG_LEVEL", "6")


def profile_steps(step: Callable[[], object], steps: int = 5, *, warmup: int = 1, device: str = "cpu",
                  path: str | os.PathLike | None = None, record_shapes: bool = False) -> Trace:
    """Run ``step()`` ``warmup + steps`` times under ``torch.profiler`` and return the trace of the active steps.

    CUDA activity is recorded when ``device`` is a CUDA device. The Chrome trace is written to ``path``
    (default: a temporary file) and read back.
    """
    quiet_kineto()
    import warnings

    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    activities = [ProfilerActivity.CPU]
    if str(device).startswith("cuda"):
        activities.append(ProfilerActivity.CUDA)
    out = Path(path) if path else Path(tempfile.mkdtemp(prefix="npulab-trace-")) / "trace.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with profile(activities=activities, schedule=schedule(wait=0, warmup=warmup, active=steps, repeat=1),
                     record_shapes=record_shapes) as prof:
            for _ in range(warmup + steps):
                step()
                prof.step()
        prof.export_chrome_trace(str(out))
    del torch
    return load(out)


def plot_timeline(trace: Trace, ax=None, *, steps: int = 2, min_gap_us: float = 100.0, title: str = ""):
    """Lanes for steps/annotations, top-level host operators and device kernels; gaps shaded."""
    import matplotlib.pyplot as plt

    from npulab.core.plotting import use_course_style

    use_course_style()
    if ax is None:
        _fig, ax = plt.subplots(figsize=(9, 3.2))
    all_steps = trace.steps
    start = all_steps[0].ts if all_steps else trace.window()[0]
    end = all_steps[min(steps, len(all_steps)) - 1].end if all_steps else trace.window()[1]
    inside = lambda e: e.end > start and e.ts < end  # noqa: E731
    lanes = [(t("pt.lane_steps"), [e for e in trace.by_cat({ANNOTATION_CAT}) if inside(e)], "#9ecae1"),
             (t("pt.lane_host_ops"), [e for e in top_level(trace.ops) if inside(e)], "#fdae6b")]
    if trace.kernels:
        lanes.append((t("pt.basis_kernels"), [e for e in trace.kernels if inside(e)], "#74c476"))
    for row, (_label, events, color) in enumerate(lanes):
        bars = [((e.ts - start) / 1e3, e.dur / 1e3) for e in events]
        ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=color, edgecolors="white", linewidth=0.3)
    for gap in utilisation(trace, min_gap_us).gaps:
        if gap.end > start and gap.start < end:
            ax.axvspan((gap.start - start) / 1e3, (gap.end - start) / 1e3, color="#de2d26", alpha=0.15, lw=0)
    ax.set_yticks(range(len(lanes)), [lane[0] for lane in lanes])
    ax.set_xlabel(t("pt.timeline_xlabel"))
    ax.set_xlim(0, (end - start) / 1e3)
    ax.set_title(title or t("pt.timeline_title", steps=min(steps, max(1, len(all_steps)))))
    ax.figure.tight_layout()
    return ax
