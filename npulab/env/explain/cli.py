"""The text report, the doctor notes for environment-dependent findings, and ``python -m npulab explain``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.env.explain.catalog import load_catalog

if TYPE_CHECKING:
    from npulab.env.explain import Report

CASEBOOK = "chapters/01_environment/03_troubleshooting_casebook.ipynb"


def environment_notes(report: Report, environ: Mapping[str, str] | None = None,
                      diagnose: Callable[[], list] | None = None) -> None:
    """Attach to each finding the doctor checks its entry names (run once, without importing torch_npu)."""
    env = os.environ if environ is None else environ
    wanted = {f.category: next((e.doctor for e in load_catalog() if e.id == f.category), ()) for f in report.findings}
    checks = {}
    if any(wanted.values()):
        if diagnose is None:
            from npulab.env.doctor import diagnose as doctor_diagnose

            def diagnose():
                return doctor_diagnose(environ=env, probe_timeout=0)
        checks = {c.id: c for c in diagnose()}
    for finding in report.findings:
        notes = [{"check": cid, "status": checks[cid].status, "message": checks[cid].message}
                 for cid in wanted[finding.category] if cid in checks]
        if finding.category == "npu_oom" and env.get("PYTORCH_CUDA_ALLOC_CONF") and not env.get("PYTORCH_NPU_ALLOC_CONF"):
            notes.append({"check": "PYTORCH_NPU_ALLOC_CONF", "status": "warn",
                          "message": "当前环境设置了 PYTORCH_CUDA_ALLOC_CONF 而没有设置 PYTORCH_NPU_ALLOC_CONF："
                                     "前者对 NPU 不起作用。"})
        finding.environment = notes


_MARKS = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-"}
NOTHING_FOUND = ("没有识别出已知的昇腾错误。请确认日志包含最早出现的那条报错（多进程时看每个 rank 的日志），"
                 "并运行 `python -m npulab doctor` 检查本机环境。")


def render(report: Report) -> str:
    """The human-readable report (Chinese)."""
    if report.lines_read == 0:
        return "输入为空：没有读到任何日志行。" + NOTHING_FOUND
    if not report.findings:
        return f"读取了 {report.lines_read} 行。" + NOTHING_FOUND
    families = [f for f in report.findings if f.kind == "family"]
    rules = [f for f in report.findings if f.kind == "rule"]
    head = f"读取了 {report.lines_read} 行，" + (f"识别出 {len(families)} 类问题（最可能的根因排在最前）" if families
                                            else "知识库里没有对应的案例：下面先读报错行本身说了什么，最后是通用排查" if rules
                                            else "知识库里没有对应的案例，下面是通用排查")
    out = [head + "：", ""]
    if report.root_error is not None:
        out += [f"根错误行：第 {report.root_error.line} 行：{report.root_error.text}"]
    if report.codes:
        out.append("错误码：")
        out += [f"  第 {h.line} 行 {h.info.describe()}" for h in report.codes]
    out.append("")
    for i, f in enumerate(report.findings, 1):
        codes = f"  错误码：{'、'.join(f.codes)}" if f.codes and f.kind == "family" else ""
        out.append(f"{i}. [{f.category}] {f.title}{codes}")
        out.append("   证据：")
        out += [f"     第 {e.line} 行：{e.text}" for e in f.evidence]
        if f.kind != "generic":
            out.append(f"   原因：{f.cause}")
        out.append(f"   修复：{f.fix}")
        for note in f.environment:
            out.append(f"   本机现在：{_MARKS.get(note['status'], '?')} {note['check']}  {note['message']}")
        out.append(f"   来源：{'；'.join(f.sources)}")
        if f.casebook:
            out.append(f"   案例：{CASEBOOK}#{f.casebook}")
        out.append("")
    out.append("修复后可以运行 `python -m npulab doctor` 复查本机环境。")
    return "\n".join(out)


def _open_input(source: str | None) -> tuple[BinaryIO, bool]:
    """The stream to read and whether it must be closed; ``None`` on a terminal asks for a paste."""
    if source is None or source == "-":
        if source is None and sys.stdin.isatty():
            print("请粘贴日志，结束后另起一行按 Ctrl-D（Windows 上按 Ctrl-Z 再回车）：", file=sys.stderr)
        return sys.stdin.buffer, False
    path = Path(source)
    if path.is_dir():
        raise UsageError(f"{source} 是目录：请给出日志文件的路径（或用 - 表示从标准输入读取）")
    if not path.exists():
        raise UsageError(f"找不到文件 {source}（用 - 表示从标准输入读取）")
    try:
        return path.open("rb"), True
    except OSError as err:
        raise UsageError(f"无法读取 {source}：{err.strerror or err}") from None


def build_parser(subparsers, name: str) -> None:
    """Add the ``explain`` sub-command."""
    parser = subparsers.add_parser(
        name, help="读昇腾报错日志：指出是哪一类问题、证据在哪一行、怎么修",
        description="读取日志（文件或标准输入，任意大小；UTF-8/GBK/GB18030/混合编码、颜色码、Windows 换行均可），"
                    "识别常见的昇腾错误并给出原因、修复方法与公开来源。退出码：0 未识别出问题，1 识别出问题，2 用法错误。")
    parser.add_argument("log", nargs="?", default=None, help="日志文件；- 表示标准输入；省略时在终端里提示粘贴")
    parser.add_argument("--json", action="store_true",
                        help='以 JSON 输出：{"lines_read", "root_error", "codes", "findings": [{"category", "kind", '
                             '"codes", "title", "cause", "fix", "evidence", "sources", "rule"?}]}；kind 为 family（知识库）、'
                             'rule（按报错行本身的结构读出）或 generic（通用排查），rule 是读这一行的规则')
    parser.add_argument("--no-env", dest="env", action="store_false",
                        help="不检查本机环境（默认会对与环境有关的问题附上 doctor 的检查结果）")
    parser.set_defaults(run=run)


def run(args) -> int:
    """Explain the log named by ``args.log``; print text or JSON; return 0, 1 or 2."""
    from npulab.env.explain import explain_stream

    stream, close = _open_input(args.log)
    try:
        report = explain_stream(stream)
    except OSError as err:
        raise UsageError(f"读取日志时出错：{err.strerror or err}") from None
    finally:
        if close:
            stream.close()
    if args.env:
        environment_notes(report)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render(report))
    return EXIT_FAIL if report.findings else EXIT_OK


