"""``python -m npulab migrate PATH... [--json] [--diff] [--write]``: the analyzer on the command line.

Exit codes: 0 when the scan completed (with or without findings; files it could not read are listed
under errors), 1 when ``--write`` could not write a file, 2 on a usage error (e.g. a path that does not exist).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import t


def build_parser(subparsers, name: str):
    """Add the ``migrate`` sub-command."""
    parser = subparsers.add_parser(
        name, help=t(f"cli.tool.{name}"),
        description="用 Python 的 ast 扫描 .py 文件、.ipynb 笔记本的代码单元、shell 脚本和 .cu 源文件（文件夹递归），"
                    "报告每一处 CUDA 专用用法及其严重程度：可自动改写 / 需人工判断 / 暂无 NPU 路径。"
                    "退出码：0 扫描完成（无论有无发现），1 --write 写入失败，2 用法错误。")
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="文件或文件夹（递归）")
    parser.add_argument("--json", action="store_true", help="以 JSON 输出（files_scanned、findings、errors、effort）")
    parser.add_argument("--diff", action="store_true", help="打印可自动改写部分的统一 diff（含需要时添加的 import torch_npu）")
    parser.add_argument("--write", action="store_true", help="把可自动改写的部分写回文件（改写后仍须能被解析）")
    parser.set_defaults(run=run)
    return parser


def run(args) -> int:
    from npulab.migrate import scan
    from npulab.migrate.rewrite import unified_diff, write

    missing = [str(p) for p in args.paths if not p.exists() and not p.is_symlink()]
    if missing:
        raise UsageError(t("migrate.no_path", paths=t("migrate.list_sep").join(missing)))
    result = scan(args.paths)
    changes = result.changes() if (args.diff or args.write) else []
    diff = unified_diff(changes) if args.diff else ""
    written, write_errors = write(changes) if args.write else ([], [])
    rescan = scan([c.path for c in changes if c.display in written]) if written else None
    if args.json:
        doc = result.to_dict()
        if args.diff:
            doc["diff"] = diff
        if args.write:
            doc["written"] = written
            doc["write_errors"] = [e.to_dict() for e in write_errors]
            doc["remaining"] = rescan.counts() if rescan else None
        print(json.dumps(doc, ensure_ascii=False, indent=2))
    elif args.diff and not args.write:
        sys.stdout.write(diff)
        if not diff:
            print(t("migrate.nothing_to_rewrite"), file=sys.stderr)
    else:
        print(result.report())
        if args.write:
            from npulab.migrate.display import counts_text

            print(t("migrate.written", n=len(written), files=t("migrate.list_sep").join(written) or t("migrate.written_none")))
            for error in write_errors:
                print(t("migrate.not_written", path=error.path, message=error.message))
            if rescan is not None:
                print(t("migrate.rescan", counts=counts_text(rescan.counts(), t("migrate.semi_sep"))))
    return EXIT_FAIL if write_errors else EXIT_OK
