"""Every ``!`` line of every npu cell expands as its author meant: IPython's ``var_expand`` evaluates ``{expr}`` and
fills ``$name`` from the notebook's Python names, and on ANY formatting error it silently returns the whole line unexpanded
(so ``${ASCEND_HOME_PATH}/…/{soc}.ini`` reaches bash with ``{soc}`` literally in it).

The names bound anywhere in the notebook's code cells (assignments, imports, loop targets, defs …) stand in for the
cell's variables, each as a placeholder that accepts attribute and item access; everything else (shell variables
such as ``ASCEND_HOME_PATH``) is unknown, as in the real kernel. A ``{field}`` left after expansion is the bug.
"""

from __future__ import annotations

import ast
import json
import re

import pytest

from npulab.core.paths import REPO_ROOT

NOTEBOOKS = sorted([*REPO_ROOT.glob("chapters/*/*.ipynb"), *REPO_ROOT.glob("notebooks/*.ipynb")])
FIELD = re.compile(r"\{[A-Za-z_]\w*(?:\.\w+|\[[^\]{}]*\])*(?:![rsa])?(?::[^{}]*)?\}")  # a Python format field


class Placeholder:
    """Any value of a notebook variable: attributes and items are placeholders too; formats as a marker."""

    def __getattr__(self, name: str) -> Placeholder:
        return self

    def __getitem__(self, key: object) -> Placeholder:
        return self

    def __call__(self, *args: object, **kwargs: object) -> Placeholder:  # IPython evaluates fields: {job.port(8118)}
        return self

    def _same(self, other: object) -> Placeholder:
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __floordiv__ = __mod__ = _same

    def __format__(self, spec: str) -> str:
        return "VALUE"


def _code(cell: dict) -> str:
    source = "".join(cell["source"])
    return source.split("\n", 1)[1] if source.startswith("%%") else source  # the body of a %%npu cell


def _python(source: str) -> ast.Module | None:
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError:
        return None


def _bound_names(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def _shell_lines(tree: ast.Module) -> list[str]:
    """The command strings of the cell's ``!`` lines (IPython turns them into ``get_ipython().system(...)``)."""
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("system", "getoutput") and node.args
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            out.append(node.args[0].value)
    return out


def _cases() -> list[tuple[str, str, str, frozenset[str]]]:
    cases = []
    for path in NOTEBOOKS:
        cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
        trees = [(c, _python(_code(c))) for c in cells]
        names = frozenset().union(*(_bound_names(t) for _, t in trees if t is not None))
        for cell, tree in trees:
            if "npu" in cell["metadata"].get("tags", []) and tree is not None:
                cases += [(str(path.relative_to(REPO_ROOT)), cell.get("id", "?"), line, names)
                          for line in _shell_lines(tree)]
    return cases


CASES = _cases()


def _expand(_shell, _command: str) -> str:
    return _shell.var_expand(_command)  # depth 0: this frame's two locals join the namespace, as in IPython


@pytest.fixture(scope="module")
def shell():
    from IPython import get_ipython
    from IPython.core.interactiveshell import InteractiveShell

    existing = get_ipython()
    yield existing or InteractiveShell.instance()
    if existing is None:
        InteractiveShell.clear_instance()


def test_the_scan_sees_the_npu_shell_lines():
    assert len(CASES) > 20 and any("platform_config" in line or "npu-smi" in line for _, _, line, _ in CASES)


@pytest.mark.parametrize("where, cell_id, line, names", CASES, ids=[f"{w}#{c}:{i}" for i, (w, c, _, _) in enumerate(CASES)])
def test_every_field_of_an_npu_shell_line_expands(shell, monkeypatch, where, cell_id, line, names):
    monkeypatch.setattr(shell, "user_ns", dict.fromkeys(names, Placeholder()))
    left = FIELD.findall(_expand(shell, line))
    assert not left, (f"{where} 单元 {cell_id}：IPython 不会展开 {left}（整行原样交给 shell）：{line!r}；"
                      "先在 Python 里算好变量，shell 变量写成 $VAR，字面的花括号写成 {{ }}")


def test_the_check_catches_the_old_platform_file_line(shell, monkeypatch):
    old = ('grep -A 10 "SoCInfo" ${ASCEND_HOME_PATH}/*-linux/data/platform_config/'
           '$({sys.executable} -c "import torch, torch_npu; print(torch.npu.get_device_name(0))").ini')
    monkeypatch.setattr(shell, "user_ns", {"sys": Placeholder()})
    assert _expand(shell, old) == old and FIELD.findall(old)  # unexpanded, with {sys.executable} left in it
    assert not FIELD.findall(_expand(shell, 'grep -A 10 "SoCInfo" "{ini}"'.replace("{ini}", "{sys.executable}")))
