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


def _chrome_summary(path: Path, top: int, min_gap_us: float) -> dict:
    from npulab.ascend_tools.profiler_output import DEVICE_PROCESS_PATTERN
    from npulab.pytorch import profile_trace

    try:
        trace = profile_trace.load(path, device_process_pattern=DEVICE_PROCESS_PATTERN)
        usage = profile_trace.utilisation(trace, min_gap_us)
    except (OSError, ValueError, KeyError, TypeError) as err:  # json errors are ValueErrors
        raise UsageError(f"{path} 不是可读的 Chrome trace：{err}") from None
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
            summary["kernel_types"] = [{"type": t.type, "calls": t.calls, "us": round(t.total_us, 1),
                                        "share": round(t.share, 4)} for t in po.time_by_type(kernels, top)]
            summary["ai_cpu"] = [{"type": t.type, "calls": t.calls, "us": round(t.total_us, 1)}
                                 for t in po.ai_cpu_kernels(kernels)]
            summary["device_busy"] = [{"step": b.step, "span_us": round(b.span_us, 1), "idle_ratio": round(b.idle_ratio, 4),
                                       "largest_gap_us": round(b.largest_gap_us, 1), "gap_after": b.gap_after}
                                      for b in po.device_busy(kernels)]
        if (out / "step_trace_time.csv").is_file():
            summary["steps"] = [{"step": s.step, "computing_us": s.computing, "comm_not_overlapped_us": s.comm_not_overlapped,
                                 "free_us": s.free, "free_ratio": round(s.free_ratio, 4)}
                                for s in po.step_trace_time(out / "step_trace_time.csv")]
    except (po.ProfilerOutputError, OSError, KeyError) as err:
        raise UsageError(f"读取 {out} 失败：{err}") from None
    return summary


def _print_chrome(s: dict) -> None:
    print(f"{s['source']}：{s['steps']} 个步骤，采集窗口 {s['window_us'] / 1e3:.2f} ms")
    print(table(["算子", "调用", "自身耗时 (ms)", "总耗时 (ms)", "占比"],
                [[o["name"], o["calls"], round(o["self_us"] / 1e3, 3), round(o["total_us"] / 1e3, 3), f"{o['share']:.1%}"]
                 for o in s["top_ops"]]))
    print(f"\n忙碌依据：{s['busy_basis']}；空闲比例 {s['idle_ratio']:.1%}；数据加载占步骤时间 {s['loader_share']:.1%}")
    if s["gaps"]:
        print(table(["间隙 (ms)", "之前", "之后", "标注"],
                    [[round(g["us"] / 1e3, 3), g["before"], g["after"], "、".join(g["inside"]) or None] for g in s["gaps"]]))
    if s["host_only_ops"] is None:
        print("trace 中没有设备活动：不判断哪些算子没有下发到设备。")
    else:
        print("只在主机上运行的顶层算子：" + ("无" if not s["host_only_ops"] else ""))
        if s["host_only_ops"]:
            print(table(["算子", "次数", "主机时间 (µs)"], [[h["name"], h["calls"], h["us"]] for h in s["host_only_ops"]]))


def _print_ascend(s: dict) -> None:
    print(f"{s['source']}：" + "，".join(f"{k} {'有' if v else '无'}" for k, v in s["files"].items()))
    if "kernel_types" in s:
        print(table(["算子类型", "次数", "耗时 (µs)", "占比"],
                    [[t["type"], t["calls"], t["us"], f"{t['share']:.1%}"] for t in s["kernel_types"]]))
        print("AI CPU 上的算子：" + ("无" if not s["ai_cpu"] else "、".join(f"{t['type']}×{t['calls']}" for t in s["ai_cpu"])))
        for b in s["device_busy"]:
            print(f"step {b['step']}：设备空闲 {b['idle_ratio']:.1%}，最大间隙 {b['largest_gap_us']} µs（在 {b['gap_after'] or '—'} 之后）")
    for st in s.get("steps", []):
        print(f"step {st['step']}：计算 {st['computing_us']} µs，未掩盖的通信 {st['comm_not_overlapped_us']} µs，"
              f"空闲（Free）{st['free_ratio']:.1%}")


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help="汇总 profiler 结果：Chrome trace 或 ASCEND_PROFILER_OUTPUT",
                                   description=__doc__.splitlines()[0])
    parser.add_argument("path", help="Chrome trace 文件（.json），或 torch_npu.profiler 的结果目录")
    parser.add_argument("--top", type=int, default=10, help="每张表显示的行数（默认 10）")
    parser.add_argument("--min-gap-us", type=float, default=100.0, help="计为间隙的最短时长，微秒（默认 100）")
    parser.add_argument("--json", action="store_true", help="输出 JSON")
    parser.set_defaults(run=run)


def run(args) -> int:
    path = Path(args.path)
    if not path.exists():
        raise UsageError(f"{path} 不存在")
    if args.top < 1:
        raise UsageError("--top 须 ≥ 1")
    summary = _ascend_summary(path, args.top) if path.is_dir() else _chrome_summary(path, args.top, args.min_gap_us)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    elif path.is_dir():
        _print_ascend(summary)
    else:
        _print_chrome(summary)
    return EXIT_OK
