"""``python -m npulab lint-npu``: the command line over :mod:`npulab.lint.notebook`."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE, CourseArgumentParser
from npulab.core.i18n import t
from npulab.core.notebook_cells import NotebookError, find_notebooks, parse_notebook
from npulab.core.paths import REPO_ROOT
from npulab.lint.context import Context
from npulab.lint.notebook import Finding, check_notebook
from npulab.pytorch.torch_npu_names import SymbolIndex, load_index, pinned_version

# --- files and the command line ---------------------------------------------------------------------


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def build_parser(subparsers, name: str) -> CourseArgumentParser:
    """Add the ``lint-npu`` sub-command."""
    parser = subparsers.add_parser(
        name, help=t(f"cli.tool.{name}"),
        description="检查带 npu 标签的单元：能否解析、用到的 torch_npu / torch.npu 名字在钉住的 torch_npu 版本里"
                    "是否存在、MindSpore 名字在钉住的 MindSpore 里是否存在、调用 torch_npu、torch、MindSpore 等的参数个数"
                    "（缺少必需参数、多给位置参数）与关键字是否符合发布包里的签名、枚举参数（如 device_target、mode）的取值"
                    "是否在发布包的校验代码或文档列出的范围内、设置的昇腾环境变量是否为所教版本所知、"
                    "命令行参数是否在工具的参数定义里、用到的特性是否晚于所针对的版本，以及后面的非 npu 单元是否依赖"
                    "只在 npu 单元里定义的名字；课程 Markdown 里的 shell 代码块与 export 也一并检查。"
                    "退出码：0 无问题，1 有问题，2 用法错误。")
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="笔记本或文件夹（递归）；默认为仓库里的 chapters 和 notebooks")
    parser.add_argument("--json", action="store_true", help="以 JSON 输出结果")
    parser.add_argument("--torch-npu-version", metavar="V", help="核对的 torch_npu 版本；默认取 requirements-npu.txt 的钉")
    parser.add_argument("--cache-dir", type=Path, metavar="DIR",
                        help="wheel 与符号索引的缓存目录；默认 $NPULAB_CACHE 或 ~/.cache/npulab/torch_npu")
    parser.set_defaults(run=run)
    return parser


def run(args) -> int:
    """Lint the notebooks named in ``args``; 0 clean, 1 findings, 2 usage errors."""
    version = args.torch_npu_version or pinned_version(REPO_ROOT / "requirements-npu.txt")
    notebooks, missing = find_notebooks(args.paths or None)
    errors = [{"path": _shown(path), "message": reason} for path, reason in missing]
    loaded: list[SymbolIndex] = []

    def index() -> SymbolIndex:
        if not loaded:
            loaded.append(load_index(version, args.cache_dir))
        return loaded[0]

    findings: list[Finding] = []
    context = Context(version, args.cache_dir)
    cells = scanned = 0
    for path in notebooks:
        try:
            nb = parse_notebook(path.read_bytes())
        except OSError as err:
            errors.append({"path": _shown(path), "message": t("lint.report.unreadable", error=err.strerror)})
            continue
        except NotebookError as err:
            errors.append({"path": _shown(path), "message": str(err)})
            continue
        found, checked = check_notebook(nb, index, _shown(path), context)
        findings += found
        cells += checked
        scanned += 1
    unchecked = sorted(context.unchecked, key=lambda u: (u.package, u.name))
    if args.json:
        print(json.dumps({"torch_npu_version": version, "files_scanned": scanned, "cells_checked": cells,
                          "findings": [asdict(f) for f in findings], "errors": errors,
                          "not_checkable": [asdict(u) for u in unchecked],
                          "stack_not_named": [{"path": p, "cell": n, "cell_id": i, "stack": s}
                                              for p, n, i, s in context.unnamed_stacks]},
                         ensure_ascii=False, indent=2))
    else:
        for error in errors:
            print(t("lint.report.error", path=error["path"], message=error["message"]), file=sys.stderr)
        for f in findings:
            cell_id = f.cell_id or t("lint.report.no_id")
            where = t("lint.report.cell", cell=f.cell, id=cell_id) if f.cell else t("lint.report.markdown", id=cell_id)
            print(t("lint.report.finding", path=f.path, where=where, message=f.message))
        if unchecked:
            print(t("lint.report.unchecked", count=len(unchecked)))
            for u in unchecked:
                print(t("lint.report.unchecked_call", name=u.name, reason=u.reason))
        if context.unnamed_stacks:
            print(t("lint.report.unnamed_stacks", count=len(context.unnamed_stacks)))
            for where, number, cell_id, needs in context.unnamed_stacks:
                print(t("lint.report.unnamed_stack", path=where, cell=number, id=cell_id or t("lint.report.no_id"),
                        needs=needs))
        verdict = t("lint.report.found", count=len(findings)) if findings else t("lint.report.clean")
        print(t("lint.report.summary", scanned=scanned, cells=cells, version=version, verdict=verdict))
    return EXIT_USAGE if errors else EXIT_FAIL if findings else EXIT_OK
