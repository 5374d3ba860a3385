"""Generate a lab's exercise notebook from its solution notebook (the single source).

In the solution, every answer sits between ``# BEGIN SOLUTION`` and ``# END SOLUTION``; the
``# STUB: ...`` lines inside that block are what the exercise shows instead (indentation kept).
Cells tagged ``solution`` are left out of the exercise, and so is "（参考答案）" in the title.
"""

from __future__ import annotations

import copy
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import t
from npulab.core.notebook_cells import tags
from npulab.core.paths import REPO_ROOT

SOLUTIONS_DIR = REPO_ROOT / "notebooks" / "solutions"
BEGIN, END, STUB = "# BEGIN SOLUTION", "# END SOLUTION", "# STUB:"
TITLE_MARK = "（参考答案）"


def strip_solution(source: str) -> str:
    """Replace each solution block of ``source`` by its stub lines."""
    out, inside = [], False
    for line in source.splitlines():
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise ValueError(t("labexport.nested"))
            inside = True
        elif marker == END:
            if not inside:
                raise ValueError(t("labexport.end_without_begin"))
            inside = False
        elif inside:
            if marker.startswith(STUB):
                indent = line[: len(line) - len(line.lstrip())]
                out.append(indent + marker[len(STUB):].strip())
        else:
            out.append(line)
    if inside:
        raise ValueError(t("labexport.no_end"))
    return "\n".join(out)


def exercise_from_solution(solution):
    """The exercise version of a solution notebook."""
    nb = copy.deepcopy(solution)
    cells = []
    for cell in nb.cells:
        if "solution" in tags(cell):
            continue
        if cell.cell_type == "code":
            cell.source = strip_solution(cell.source)
            cell.outputs, cell.execution_count = [], None
        else:
            cell.source = cell.source.replace(TITLE_MARK, "")
        cells.append(cell)
    nb.cells = cells
    nb.metadata.setdefault("course", {})["role"] = "exercise"
    return nb


def exercise_path(solution_path: Path) -> Path:
    return solution_path.parent.parent / solution_path.name.replace("_solution.ipynb", ".ipynb")


def export_all(check_only: bool = False) -> list[Path]:
    """Write (or, with ``check_only``, compare) every exercise; return those that were out of date."""
    import nbformat

    stale = []
    for solution_path in sorted(SOLUTIONS_DIR.glob("*_solution.ipynb")):
        target = exercise_path(solution_path)
        text = nbformat.writes(exercise_from_solution(nbformat.read(str(solution_path), as_version=4))) + "\n"
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            stale.append(target)
            if not check_only:
                target.write_text(text, encoding="utf-8")
    return stale


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(
        name, help=t(f"cli.tool.{name}"),
        description="由 notebooks/solutions/*_solution.ipynb 生成 notebooks/ 下的练习版本。",
    )
    parser.add_argument("--check", action="store_true", help="只检查练习版本是否与参考答案同步，不写文件")
    parser.set_defaults(run=run)


def run(args) -> int:
    try:
        stale = export_all(check_only=args.check)
    except ValueError as err:
        raise UsageError(t("labexport.bad_markers", err=err)) from None
    for path in stale:
        where = path.relative_to(REPO_ROOT)
        print(t("labexport.stale", path=where) if args.check else t("labexport.updated", path=where))
    if not stale:
        print(t("labexport.in_sync"))
    return EXIT_FAIL if (stale and args.check) else EXIT_OK
