"""``python -m npulab lint-npu``: static checks of the notebook cells that need an Ascend NPU.

Cells tagged ``npu`` (and ``skip-execution``) never run in CI, so they are checked without running:

- every ``npu`` cell parses (IPython magics and ``!shell`` lines are handled);
- every ``torch_npu.X`` / ``torch.npu.X`` name exists in the pinned torch_npu wheel (npulab.npu_symbols), and so
  does every ``torchair.X`` / ``npugraph_ex.X`` (shipped inside the wheel as ``torch_npu/dynamo/torchair`` and
  ``torch_npu/dynamo/npugraph_ex``);
- an ``npu`` cell is a leaf: no later non-npu cell reads a name that only npu cells define.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from npulab.cli import EXIT_FAIL, EXIT_OK, EXIT_USAGE, ChineseArgumentParser, UsageError
from npulab.npu_symbols import PACKAGE, TOP_LEVEL, SymbolIndex, dotted_parts, load_index, pinned_version
from npulab.paths import REPO_ROOT

DEFAULT_DIRS = ("chapters", "notebooks")
SKIP_DIRS = {"_build", ".venv", ".ipynb_checkpoints"}
NPU_TAG = "npu"
STANDARD = {"torch": "torch", PACKAGE: PACKAGE, **TOP_LEVEL}  # what these names mean before any import
# cell magics whose body is Python (the course's %%npu gate, timing, capturing); any other is not Python
PYTHON_CELL_MAGICS = {"npu", "time", "timeit", "capture", "prun"}
_TIMED_LINE = re.compile(r"^(\s*)%(?:time|timeit|prun)\s+(?!-)(.*)$")


@dataclass
class Finding:
    """One problem in one cell; ``cell`` counts code cells from 1, as the notebook does."""

    path: str
    cell: int
    cell_id: str | None
    kind: str  # "unknown-name", "syntax-error" or "leaf"
    name: str
    message: str


# --- cells -------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def python_source(source: str) -> str | None:
    """A cell's source as plain Python with the same line numbers; None for a shell or other non-Python cell."""
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    while first is not None and lines[first].startswith("%%"):
        magic = (lines[first][2:].split() or [""])[0]
        if magic not in PYTHON_CELL_MAGICS:
            return None  # %%bash, %%sh, %%script, %%writefile, %%html, ...
        lines[first] = ""
        first = next((i for i in range(first + 1, len(lines)) if lines[i].strip()), None)
    lines = [_TIMED_LINE.sub(r"\1\2", line) for line in lines]  # %time f(x) -> f(x): the code is Python
    leading = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    return "\n" * leading + _transformer().transform_cell("\n".join(lines))  # IPython drops leading blank lines


@functools.cache
def _transformer():
    from IPython.core.inputtransformer2 import TransformerManager  # IPython's own magic and ``!`` rewriting

    return TransformerManager()


def _parse(source: str) -> ast.Module | None:
    """The AST of a cell (SyntaxError when it does not parse); None for a non-Python cell."""
    code = python_source(source)
    if code is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes etc. are not this tool's business
        return ast.parse(code)


def _symbols(source: str):
    import symtable

    code = python_source(source)
    if code is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return symtable.symtable(code, "<cell>", "exec")


def _descendants(table) -> list:
    return [t for child in table.get_children() for t in (child, *_descendants(child))]


def defined_names(source: str) -> set[str]:
    """Names a cell binds in the notebook's namespace (assignments, imports, def/class, ``global``)."""
    table = _symbols(source)
    if table is None:
        return set()
    names = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    for scope in _descendants(table):
        names |= {s.get_name() for s in scope.get_symbols() if s.is_declared_global() and s.is_assigned()}
    return names


def used_names(source: str) -> set[str]:
    """Global names a cell reads, at top level or inside its functions (names it binds itself included)."""
    table = _symbols(source)
    if table is None:
        return set()
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    for scope in _descendants(table):
        names |= {s.get_name() for s in scope.get_symbols() if s.is_global() and s.is_referenced()}
    tree = _parse(source)
    names |= {n.target.id for n in tree.body if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    if "get_ipython" not in source:
        names.discard("get_ipython")  # introduced by the magics' transformation
    return names


def _code_cells(nb: dict) -> list[tuple[int, dict]]:
    """(code cell number from 1, cell) pairs."""
    cells = [c for c in nb.get("cells", []) if c.get("cell_type") == "code"]
    return list(enumerate(cells, start=1))


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def is_npu_cell(cell: dict) -> bool:
    """Whether a cell carries the ``npu`` tag."""
    tags = cell.get("metadata", {}).get("tags")
    return isinstance(tags, list) and NPU_TAG in tags


# --- checks ------------------------------------------------------------------------------------------


def check_leaves(nb: dict, path: str = "") -> list[Finding]:
    """Non-npu cells after an npu cell that read a name only npu cells define."""
    cells = []
    for number, cell in _code_cells(nb):
        try:
            cells.append((number, cell, defined_names(_source(cell)), used_names(_source(cell))))
        except SyntaxError:
            cells.append((number, cell, set(), set()))
    plain = set().union(*(defined for _, cell, defined, _ in cells if not is_npu_cell(cell)))
    findings, npu_only = [], {}  # name -> number of the npu cell that defined it first
    for number, cell, defined, used in cells:
        if is_npu_cell(cell):
            for name in sorted(defined - plain):
                npu_only.setdefault(name, number)
            continue
        for name in sorted(used & npu_only.keys()):
            findings.append(Finding(path, number, cell.get("id"), "leaf", name, (
                f"读取了 `{name}`，它只在第 {npu_only[name]} 个代码单元（npu 单元）里定义；没有 NPU 时这些单元不运行，"
                f"这里会 NameError。请在非 npu 单元里也定义它，或把本单元也标为 npu。")))
    return findings


def check_notebook(nb: dict, index: Callable[[], SymbolIndex], path: str = "") -> tuple[list[Finding], int]:
    """Syntax, torch_npu names and leaves of one notebook; returns (findings, npu cells checked).

    ``index`` is called only when a cell names something in torch_npu, so plain notebooks need no wheel.
    """
    findings: list[Finding] = []
    aliases = dict(STANDARD)  # name -> the torch_npu path it stands for ("torch" for torch itself)
    checked = 0
    for number, cell in _code_cells(nb):
        npu = is_npu_cell(cell)
        checked += npu
        try:
            tree = _parse(_source(cell))
        except SyntaxError as err:
            if npu:
                findings.append(Finding(path, number, cell.get("id"), "syntax-error", "",
                                        f"第 {err.lineno} 行有语法错误：{err.msg}"))
            continue
        if tree is None:
            continue
        names = list(_imports(tree, aliases))  # consumed for every cell: imports anywhere set the aliases
        if npu:
            seen = set()
            for line, written, dotted in sorted(names + _chains(tree, aliases)):
                if written not in seen:  # one finding per name and cell
                    seen.add(written)
                    findings += _check_name(index, line, written, dotted, path, number, cell)
    return sorted(findings + check_leaves(nb, path), key=lambda f: f.cell), checked


def _canonical(parts: list[str], aliases: dict[str, str]) -> list[str] | None:
    """``torch.npu.x`` -> torch_npu.npu.x, ``tnp.x`` -> torch_npu.x; None when not about torch_npu."""
    root = aliases.get(parts[0])
    if root == "torch":
        return [PACKAGE, *parts[1:]] if len(parts) > 1 and parts[1] == "npu" else None
    return [*root.split("."), *parts[1:]] if root else None


def _imports(tree: ast.Module, aliases: dict[str, str]):
    """Update ``aliases`` from a cell's imports; yield (line, written, torch_npu path) of each imported name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                dotted = _canonical(parts, STANDARD)
                if dotted and len(dotted) > 1:
                    yield node.lineno, alias.name, dotted
                if alias.asname:  # import torch_npu.profiler as prof, import torch as th
                    target = ".".join(dotted) if dotted else STANDARD.get(alias.name)
                    _rebind(aliases, alias.asname, target)
                else:  # import torch_npu.profiler binds torch_npu
                    _rebind(aliases, parts[0], STANDARD.get(parts[0]))
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                if alias.name == "*":
                    continue
                written = f"{node.module}.{alias.name}"
                dotted = _canonical(written.split("."), STANDARD)  # from torch import npu, from torch_npu.npu import amp
                if dotted:
                    yield node.lineno, written, dotted
                _rebind(aliases, alias.asname or alias.name, ".".join(dotted) if dotted else None)


def _rebind(aliases: dict[str, str], name: str, target: str | None) -> None:
    if target:
        aliases[name] = target
    else:
        aliases.pop(name, None)


def _chains(tree: ast.Module, aliases: dict[str, str]) -> list[tuple[int, str, list[str]]]:
    """(line, written, torch_npu path) of each attribute chain on a torch_npu alias."""
    chains, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Attribute) and (parts := dotted_parts(node)):
            if not isinstance(node.ctx, ast.Load):
                parts = parts[:-1]  # setting an attribute may create it: check where it is set
            dotted = _canonical(parts, aliases)
            if dotted and len(dotted) > 1:
                chains.append((node.lineno, ".".join(parts), dotted))
            continue  # the inner attributes are prefixes of this chain
        stack.extend(ast.iter_child_nodes(node))
    return chains


def _check_name(index: Callable[[], SymbolIndex], line: int, written: str, dotted: list[str], path: str,
                number: int, cell: dict) -> list[Finding]:
    """A finding when the torch_npu path ``dotted`` (``written`` in the cell) does not exist."""
    missing = index().missing(".".join(dotted))
    if missing is None:
        return []
    shown = written.split(".")
    cut = len(shown) - len(dotted) + len(missing.prefix.split("."))  # where the missing part sits in `written`
    if cut <= 0:
        return []  # the missing part is in an imported alias: its import line reports it
    shown_prefix = ".".join(shown[:cut])
    where = f"`{shown_prefix}`" + (f"（{missing.prefix}）" if shown_prefix != missing.prefix else "")
    guesses = "、".join(f"`{shown_prefix}.{s}`" for s in missing.suggestions)
    message = (f"第 {line} 行：`{written}` 不存在——torch_npu {index().version} 的 {where}中没有 `{missing.name}`"
               + (f"；是不是 {guesses}？" if guesses else "。"))
    return [Finding(path, number, cell.get("id"), "unknown-name", written, message)]


# --- files and the command line ---------------------------------------------------------------------


def find_notebooks(paths: list[Path]) -> tuple[list[Path], list[dict]]:
    """Notebooks under ``paths`` (files or folders, recursively) and errors for paths that are not."""
    found, errors = [], []
    for path in paths:
        if path.is_dir():
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                found += [Path(folder) / f for f in sorted(files) if f.endswith(".ipynb")]
        elif not path.exists():
            errors.append({"path": _shown(path), "message": "路径不存在"})
        elif path.suffix != ".ipynb":
            errors.append({"path": _shown(path), "message": "不是 .ipynb 笔记本"})
        else:
            found.append(path)
    return found, errors


def read_notebook(path: Path) -> dict:
    """A notebook as a dict; UsageError when it cannot be read or is not a notebook."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"读不到文件（{err.strerror}）") from None
    except UnicodeDecodeError:
        raise UsageError("不是 UTF-8 文本，不是笔记本") from None
    except ValueError as err:
        raise UsageError(f"不是有效的 JSON（{err}）") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise UsageError("不是 Jupyter 笔记本（缺少 cells 列表）")
    if not isinstance(nb.get("nbformat", 4), int) or nb.get("nbformat", 4) < 4:
        raise UsageError(f"nbformat {nb.get('nbformat')!r} 不受支持，只支持 nbformat 4")
    for i, cell in enumerate(nb["cells"]):
        source = cell.get("source", "") if isinstance(cell, dict) else None
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(x, str) for x in source)):
            raise UsageError(f"第 {i + 1} 个单元格式不对（source 应是字符串或字符串列表）")
        if not isinstance(cell.get("metadata", {}), dict):
            raise UsageError(f"第 {i + 1} 个单元格式不对（metadata 应是对象）")
    return nb


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def build_parser(subparsers, name: str) -> ChineseArgumentParser:
    """Add the ``lint-npu`` sub-command."""
    parser = subparsers.add_parser(
        name, help="静态检查笔记本中的 NPU 单元（语法、torch_npu 名字、叶子单元）",
        description="检查带 npu 标签的单元：能否解析、用到的 torch_npu / torch.npu 名字在钉住的 torch_npu 版本里"
                    "是否存在、后面的非 npu 单元是否依赖只在 npu 单元里定义的名字。退出码：0 无问题，1 有问题，2 用法错误。")
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
    paths = args.paths or [REPO_ROOT / d for d in DEFAULT_DIRS if (REPO_ROOT / d).is_dir()]
    notebooks, errors = find_notebooks(paths)
    loaded: list[SymbolIndex] = []

    def index() -> SymbolIndex:
        if not loaded:
            loaded.append(load_index(version, args.cache_dir))
        return loaded[0]

    findings: list[Finding] = []
    cells = scanned = 0
    for path in notebooks:
        try:
            nb = read_notebook(path)
        except UsageError as err:
            errors.append({"path": _shown(path), "message": str(err)})
            continue
        found, checked = check_notebook(nb, index, _shown(path))
        findings += found
        cells += checked
        scanned += 1
    if args.json:
        print(json.dumps({"torch_npu_version": version, "files_scanned": scanned, "cells_checked": cells,
                          "findings": [asdict(f) for f in findings], "errors": errors}, ensure_ascii=False, indent=2))
    else:
        for error in errors:
            print(f"错误：{error['path']}：{error['message']}", file=sys.stderr)
        for f in findings:
            print(f"{f.path}：第 {f.cell} 个代码单元（id {f.cell_id or '无'}）：{f.message}")
        verdict = f"发现 {len(findings)} 个问题" if findings else "未发现问题"
        print(f"lint-npu：检查了 {scanned} 个笔记本中的 {cells} 个 npu 单元（torch_npu {version}），{verdict}。")
    return EXIT_USAGE if errors else EXIT_FAIL if findings else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """``python -m npulab.lint_npu``: the same command without the other tools."""
    parser = ChineseArgumentParser(prog="python -m npulab")
    build_parser(parser.add_subparsers(dest="tool", parser_class=ChineseArgumentParser), "lint-npu")
    args = parser.parse_args(["lint-npu", *(sys.argv[1:] if argv is None else argv)])
    try:
        return int(args.run(args))
    except UsageError as err:
        print(f"错误：{err}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
