"""``python -m npulab trace PATH``: summarise a profiler result from the command line.

PATH is either a Chrome trace (``torch.profiler``'s ``export_chrome_trace`` output, or Ascend's
``trace_view.json``) or a ``torch_npu.profiler`` result folder (``*_ascend_pt`` or its
``ASCEND_PROFILER_OUTPUT``). The summary answers the questions of lesson 05/04: top operators by self time,
idle ratio and gaps, data-loader share, host-only operators; for an Ascend folder also kernel time by
type, AI CPU kernels, device busy time per step and the Free share of ``step_trace_time.csv``.
"""

from __future__ import annotations

import json
from pathlib import Path

from npulab.core.cli import EXIT_OK, UsageError
from npulab.core.display import text_table as table
from npulab.core.i18n import t


def _chrome_summary(path: Path, top: int, min_gap_us: float) -> dict:
    from npulab.ascend_tools.profiler_output import DEVICE_PROCESS_PATTERN
    from npulab.pytorch import profile_trace

    try:
        trace = profile_trace.load(path, device_process_pattern=DEVICE_PROCESS_PATTERN)
        usage = profile_trace.utilisation(trace, min_gap_us)
    except (OSError, ValueError, KeyError, TypeError) as err:  # json errors are ValueErrors
        raise UsageError(t("trace.unreadable", path=path, error=err)) from None
    loader = profile_trace.loader_time(trace)
    host = profile_trace.host_only_ops(trace)
    return {
        "source": str(path),
        "steps": len(trace.steps),
        "top_ops": [{"name": s.name, "calls": s.calls, "self_us": round(s.self_us, 1), "total_us": round(s.total_us, 1),
                     "share": round(s.share, 4)} for s in profile_trace.top_ops(trace, top)],
        "busy_basis": usage.basis,
        "window_us": round(usage.window_us, 1),
        "busy_us": round(usage.busy_us, 1),
        "idle_ratio": round(usage.idle_ratio, 4),
        "gaps": [{"us": round(g.dur, 1), "before": g.before, "after": g.after, "inside": list(g.inside)}
                 for g in sorted(usage.gaps, key=lambda g: -g.dur)[:top]],
        "loader_share": round(loader.share, 4),
        "host_only_ops": None if host is None else [{"name": h.name, "calls": h.calls, "us": round(h.total_us, 1)}
                                                    for h in host[:top]],
    }


def _ascend_summary(path: Path, top: int) -> dict:
    from npulab.ascend_tools import profiler_output as po

    try:
        out = po.find_output_dir(path)
    except po.ProfilerOutputError as err:
        raise UsageError(str(err)) from None
    summary: dict = {"source": str(out), "files": po.present_files(out)}
    try:
        if (out / "kernel_details.csv").is_file():
            kernels = po.kernel_details(out / "kernel_details.csv")
            summary["kernel_types"] = [{"type": k.type, "calls": k.calls, "us": round(k.total_us, 1),
                                        "share": round(k.share, 4)} for k in po.time_by_type(kernels, top)]
            summary["ai_cpu"] = [{"type": k.type, "calls": k.calls, "us": round(k.total_us, 1)}
                                 for k in po.ai_cpu_kernels(kernels)]
            summary["device_busy"] = [{"step": b.step, "span_us": round(b.span_us, 1), "idle_ratio": round(b.idle_ratio, 4),
                                       "largest_gap_us": round(b.largest_gap_us, 1), "gap_after": b.gap_after}
                                      for b in po.device_busy(kernels)]
        if (out / "step_trace_time.csv").is_file():
            summary["steps"] = [{"step": s.step, "computing_us": s.computing, "comm_not_overlapped_us": s.comm_not_overlapped,
                                 "free_us": s.free, "free_ratio": round(s.free_ratio, 4)}
                                for s in po.step_trace_time(out / "step_trace_time.csv")]
    except (po.ProfilerOutputError, OSError, KeyError) as err:
        raise UsageError(t("trace.read_failed", path=out, error=err)) from None
    return summary


def _print_chrome(s: dict) -> None:
    print(t("trace.chrome_head", source=s["source"], steps=s["steps"], window_ms=s["window_us"] / 1e3))
    print(table([t("trace.col_op"), t("trace.col_calls"), t("trace.col_self_ms"), t("trace.col_total_ms"),
                 t("trace.col_share")],
                [[o["name"], o["calls"], round(o["self_us"] / 1e3, 3), round(o["total_us"] / 1e3, 3), f"{o['share']:.1%}"]
                 for o in s["top_ops"]]))
    print(t("trace.busy_line", basis=s["busy_basis"], idle=s["idle_ratio"], loader=s["loader_share"]))
    if s["gaps"]:
        sep = t("trace.list_separator")
        print(table([t("trace.col_gap_ms"), t("trace.col_before"), t("trace.col_after"), t("trace.col_annotations")],
                    [[round(g["us"] / 1e3, 3), g["before"], g["after"], sep.join(g["inside"]) or None] for g in s["gaps"]]))
    if s["host_only_ops"] is None:
        print(t("trace.no_device_activity"))
    else:
        print(t("trace.host_only") + (t("trace.none") if not s["host_only_ops"] else ""))
        if s["host_only_ops"]:
            print(table([t("trace.col_op"), t("trace.col_count"), t("trace.col_host_us")],
                        [[h["name"], h["calls"], h["us"]] for h in s["host_only_ops"]]))


def _print_ascend(s: dict) -> None:
    present, absent = t("trace.present"), t("trace.absent")
    print(t("trace.files", source=s["source"],
            files=t("trace.files_separator").join(f"{k} {present if v else absent}" for k, v in s["files"].items())))
    if "kernel_types" in s:
        print(table([t("trace.col_kernel_type"), t("trace.col_count"), t("trace.col_us"), t("trace.col_share")],
                    [[k["type"], k["calls"], k["us"], f"{k['share']:.1%}"] for k in s["kernel_types"]]))
        sep = t("trace.list_separator")
        print(t("trace.ai_cpu") + (t("trace.none") if not s["ai_cpu"] else sep.join(f"{k['type']}×{k['calls']}" for k in s["ai_cpu"])))
        for b in s["device_busy"]:
            print(t("trace.device_busy", step=b["step"], idle=b["idle_ratio"], gap=b["largest_gap_us"],
                    after=b["gap_after"] or "—"))
    for st in s.get("steps", []):
        print(t("trace.step_time", step=st["step"], computing=st["computing_us"], comm=st["comm_not_overlapped_us"],
                free=st["free_ratio"]))


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help=t(f"cli.tool.{name}"),
                                   description=__doc__.splitlines()[0])
    parser.add_argument("path", help="Chrome trace 文件（.json），或 torch_npu.profiler 的结果目录")
    parser.add_argument("--top", type=int, default=10, help="每张表显示的行数（默认 10）")
    parser.add_argument("--min-gap-us", type=float, default=100.0, help="计为间隙的最短时长，微秒（默认 100）")
    parser.add_argument("--json", action="store_true", help="输出 JSON")
    parser.set_defaults(run=run)


def run(args) -> int:
    path = Path(args.path)
    if not path.exists():
        raise UsageError(t("trace.no_path", path=path))
    if args.top < 1:
        raise UsageError(t("trace.bad_top"))
    summary = _ascend_summary(path, args.top) if path.is_dir() else _chrome_summary(path, args.top, args.min_gap_us)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    elif path.is_dir():
        _print_ascend(summary)
    else:
        _print_chrome(summary)
    return EXIT_OK
