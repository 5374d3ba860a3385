"""``python -m npulab smi parse|watch|report``: read npu-smi output anywhere, sample it where npu-smi exists.

Exit codes (npulab.core.cli): 0 done; 1 the input was incomplete (``partial``), npu-smi said the query is not
supported, npu-smi is missing (watch) or the report found a failure; 2 usage error (no such file, text that
is not npu-smi output, bad arguments).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import t


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    if not path.is_file():
        raise UsageError(t("smi.cli_no_file", source=source))
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except OSError as err:
        raise UsageError(t("smi.cli_unreadable", source=source, error=err.strerror or err)) from None


def run_parse(args) -> int:
    from npulab.ascend_tools.smi import KINDS, SmiParseError, SmiUnsupported, as_json, parse
    from npulab.ascend_tools.smi.render import render

    if args.kind and args.kind not in KINDS:
        raise UsageError(t("smi.cli_bad_kind", kinds=", ".join(KINDS)))
    text = _read(args.file)
    try:
        kind, result = parse(text, args.kind or None)
    except SmiUnsupported as err:
        print(t("smi.cli_hint", message=err), file=sys.stderr)
        if args.json:
            print(json.dumps({"supported": False, "message": str(err)}, ensure_ascii=False))
        return EXIT_FAIL
    except SmiParseError as err:
        raise UsageError(str(err)) from None
    data = as_json(result)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(f"[{kind}]")
        print(render(kind, result))
    partial = isinstance(data, dict) and data.get("partial")
    if partial:
        print(t("smi.cli_partial"), file=sys.stderr)
    return EXIT_FAIL if partial else EXIT_OK


def run_watch(args) -> int:
    from npulab.ascend_tools.smi.common import SmiParseError
    from npulab.ascend_tools.smi.monitor import FIELDS, samples, write_csv
    from npulab.core.display import text_table as table

    if args.count < 1:
        raise UsageError(t("smi.cli_bad_count"))
    if args.interval < 0:
        raise UsageError(t("smi.cli_bad_interval"))
    npu_smi = shutil.which("npu-smi")
    if npu_smi is None:
        print(t("smi.cli_no_npu_smi"), file=sys.stderr)
        return EXIT_FAIL
    rows: list[dict] = []
    try:
        for i, batch in enumerate(samples(npu_smi, args.count, args.interval)):
            rows += batch
            shown = [[r[k] for k in FIELDS if k not in ("time", "hbm_total_mb", "memory_total_mb")] for r in batch]
            print(t("smi.cli_sample", index=i + 1, count=args.count, time=batch[0]["time"] if batch else ""))
            print(table(["NPU", "Chip", "Phy", "AI Core %", t("smi.col_hbm_used"), t("smi.col_memory_used"), t("smi.col_power"),
                         t("smi.col_temp"), t("smi.col_health")],
                        shown))
            sys.stdout.flush()
    except SmiParseError as err:
        print(t("smi.cli_error", message=err), file=sys.stderr)
        return EXIT_FAIL
    if args.csv:
        write_csv(Path(args.csv), rows)
        print(t("smi.cli_csv_written", path=args.csv, rows=len(rows)))
    return EXIT_OK


def run_report(args) -> int:
    from npulab.ascend_tools.smi.report import collect

    try:
        summary = collect(args.dir, root=args.root or None)
    except OSError as err:
        raise UsageError(t("smi.cli_unwritable", path=args.dir, error=err.strerror or err)) from None
    print((Path(args.dir) / "summary.md").read_text(encoding="utf-8"))
    print(t("smi.cli_all_files", path=args.dir))
    return EXIT_FAIL if summary["verdict"] == "fail" else EXIT_OK


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(name, help=t(f"cli.tool.{name}"),
                                   description="读懂 npu-smi：解析保存的输出（任何机器），或在昇腾主机上采样与诊断。")
    subs = parser.add_subparsers(dest="smi_command", metavar="<command>", parser_class=type(parser))
    subs.required = True
    p = subs.add_parser("parse", help="解析 npu-smi 的输出文本（自动识别类型）", description="解析 npu-smi 的输出文本。")
    p.add_argument("file", help="保存输出的文件；- 表示标准输入")
    p.add_argument("--json", action="store_true", help="输出 JSON")
    p.add_argument("--kind", default="", help="指定输出类型（默认自动识别），如 info、topo、mapping、list、health")
    p.set_defaults(run=run_parse)
    w = subs.add_parser("watch", help="在昇腾主机上按间隔采样 AI Core 占用、HBM、功耗与温度",
                        description="每隔 --interval 秒运行一次 npu-smi info 并解析，共 --count 次。")
    w.add_argument("--interval", type=float, default=1.0, help="采样间隔（秒，默认 1）")
    w.add_argument("--count", type=int, default=5, help="采样次数（默认 5）")
    w.add_argument("--csv", default="", help="把全部采样写入 CSV 文件")
    w.set_defaults(run=run_watch)
    r = subs.add_parser("report", help="把版本、健康、ECC、PCIe 错误与拓扑收集到一个目录",
                        description="修正版的诊断脚本：缺少的工具会被记录并跳过，不会中断。")
    r.add_argument("dir", help="输出目录（不存在时创建）")
    r.add_argument("--root", default="", help="CANN 安装根目录（默认 /usr/local/Ascend）")
    r.set_defaults(run=run_report)

