"""The code cells of every course notebook as the linter reads them, for the tests that use the executed cells as a
false-positive oracle (a cell that runs in CI is a valid call)."""

from __future__ import annotations

from collections.abc import Iterator

from npulab.core.notebook_cells import cell_source, code_cells, find_notebooks, parse_notebook
from npulab.lint import calls
from npulab.lint.notebook import _parse


def parsed_cells() -> Iterator[tuple[str, int, dict, object, dict[str, str]]]:
    """``(notebook name, cell number, cell, syntax tree, import aliases so far)`` for every code cell that parses,
    in order (the aliases accumulate over a notebook as the kernel's names do)."""
    for path in find_notebooks(None)[0]:
        aliases: dict[str, str] = {}
        for number, cell in code_cells(parse_notebook(path.read_bytes())):
            try:
                tree = _parse(cell_source(cell))
            except SyntaxError:
                continue
            if tree is None:
                continue
            calls.update_aliases(tree, aliases)
            yield path.name, number, cell, tree, aliases
