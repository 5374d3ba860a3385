"""npulab's layers: no import cycles, and no module imports a layer above its own (docs/DECISIONS.md)."""

from __future__ import annotations

import ast
from pathlib import Path

from npulab.core.paths import PACKAGE_DIR

# a package may import packages of a lower or equal rank only
RANK = {"core": 0, "hw": 1, "env": 2, "pytorch": 3, "kernels": 3, "mindspore": 4, "ascend_tools": 4, "llm": 4,
        "migrate": 5, "bench": 6, "lint": 7, "course": 7, "workshop": 8, "site": 9,
        "testing": 10}
TOP_FILES = {"__init__", "__main__"}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE_DIR.rglob("*.py"):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """npulab modules imported by ``path`` at module level or inside functions."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("npulab"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                out.add(full if full in modules else node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("npulab")}
    return out


def test_every_package_is_ranked():
    packages = {p.name for p in PACKAGE_DIR.iterdir() if (p / "__init__.py").is_file()}
    assert packages <= set(RANK), packages - set(RANK)
    top = [p for p in PACKAGE_DIR.iterdir() if p.suffix == ".py" and p.stem not in TOP_FILES]
    assert not top, f"modules belong in a package: {top}"
    assert len([p for p in PACKAGE_DIR.iterdir() if not p.name.startswith(("_", "."))]) <= 17


def test_no_module_imports_a_higher_layer():
    modules = _modules()
    upward = []
    for name, path in modules.items():
        parts = name.split(".")
        if len(parts) < 2 or parts[1] not in RANK:
            continue
        for target in _imports(path, modules):
            tparts = target.split(".")
            if len(tparts) > 1 and tparts[1] in RANK and RANK[tparts[1]] > RANK[parts[1]]:
                upward.append(f"{name} -> {target}")
    assert not upward, upward


def test_no_import_cycles():
    modules = _modules()
    graph = {name: {t for t in _imports(path, modules) if t in modules and t != name} for name, path in modules.items()}
    # a package's __init__ importing its own submodules is the usual re-export, not a cycle
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert not cycles, cycles
