"""lint-npu, Triton kernels judged by Triton's own interpreter: a cell's literal ``@triton.jit`` functions and their
launches ``kernel[grid](...)`` run under ``TRITON_INTERPRET=1`` (Triton's interpreter, which runs a kernel's programs
one by one on CPU tensors) in a child forked from lint's process (``npulab.lint.in_child``), so Triton itself refuses
what its compiler would refuse: a non-constexpr where a constexpr is required, a block above Triton's element limit,
operands of ``tl.dot`` of different dtypes, a mask that is not boolean, a pointer and a value of different shapes in
``tl.store``, a missing kernel argument, a meta-parameter given both by the launch and by a ``triton.Config``.

What runs: the cell's Python with every top-level statement blanked except imports of ``torch``, ``triton``,
``triton.language`` and ``math``, the Triton-decorated functions, assignments built from literals, ``torch`` tensor
factories, ``triton.cdiv``/``next_power_of_2``/``Config`` and the names kept before, and launches of the kept kernels
(``_kept``: a statement naming anything else is blanked and the names it binds are forgotten). The text is written to a
file in a scratch directory at its own line numbers (``triton.jit`` reads a kernel's source from its file). In the
child, tensors made for ``"npu"``/``"cuda"`` are CPU tensors of the same shape and dtype; a factory above
``cpu_values.MAX_ELEMENTS`` elements (or ``MAX_TOTAL`` in all) stops the run quietly; a grid keeps at most
``MAX_PROGRAMS`` programs (the first ones: fewer programs can only hide an error); an autotuner runs each config once
instead of timing it. An upstream refusal that Triton-Ascend documents as lifted on Ascend (a ``tl.arange`` range or a
block shape that is not a power of two: npulab/data/triton_ascend_lifted.yaml, with sources) is not reported. A finding
is an exception whose traceback passes through Triton, of a class in ``_ERRORS``, and not about a driver, a device or
the interpreter itself; a child that crashes or does not answer in time is unknown. A program the interpreter ran to
its end runs once more in the same child with each launch lowered by Triton's front end (``triton_front_end``), which
judges what the interpreter skips.
"""

from __future__ import annotations

import ast
import math
import os
import re
import sys
import tempfile
import traceback
from functools import cache

from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR, shared_yaml
from npulab.lint import cpu_values, in_child, triton_front_end

MAX_PROGRAMS = 64  # programs of one launch the interpreter runs (each runs the kernel body in Python)
_MODULES = frozenset({"torch", "triton", "triton.language", "math"})
_DECORATORS = frozenset({"triton.jit", "triton.autotune", "triton.heuristics"})
_TRITON_CALLS = frozenset({"cdiv", "next_power_of_2", "Config", "jit", "autotune", "heuristics"})
_FACTORIES = frozenset({"randn", "rand", "zeros", "ones", "empty", "full", "arange", "randint", "tensor",
                        "empty_like", "zeros_like", "ones_like", "randn_like", "rand_like", "full_like"})
_DTYPES = frozenset({"float16", "float32", "float64", "bfloat16", "float", "half", "int8", "int16", "int32", "int64",
                     "uint8", "bool", "long", "int"})
_METHODS = frozenset({"npu", "cuda", "cpu", "to", "contiguous", "t", "view", "reshape", "float", "half", "bfloat16",
                      "int", "long", "bool", "numel", "size", "stride", "dim", "transpose", "permute", "clone",
                      "element_size", "new_empty", "new_zeros", "new_ones", "expand", "unsqueeze", "squeeze", "flatten"})
_BUILTINS = frozenset({"range", "min", "max", "len", "int", "float", "bool", "abs", "tuple", "list", "dict", "str",
                       "True", "False", "None", "print", "zip", "enumerate", "sum", "round", "isinstance"})
_ERRORS = ("ValueError", "TypeError", "AssertionError", "IndexError", "KeyError", "RuntimeError", "CompilationError",
           "CompileTimeAssertionFailure", "UnsupportedLanguageConstruct")
_NOT_THE_USER = re.compile(r"driver|cuda|device|interpret|not (yet )?(supported|implemented)|no module", re.IGNORECASE)
# the front end's own refusals say "not supported" of the language; only the stand-in driver is not the user's
_NOT_THE_USER_LOWERED = re.compile(r"driver|no module", re.IGNORECASE)


def _dotted(node: ast.AST, imported: dict[str, str]) -> str | None:
    """``tl.arange`` -> ``triton.language.arange`` through the cell's imports; None for anything but a name chain."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imported:
        return None
    return ".".join([imported[node.id], *reversed(parts)])


def _is_kernel(node: ast.AST, imported: dict[str, str]) -> bool:
    return isinstance(node, ast.FunctionDef) and any(
        _dotted(d.func if isinstance(d, ast.Call) else d, imported) in _DECORATORS for d in node.decorator_list)


def _bound_inside(node: ast.AST) -> set[str]:
    """Names a statement binds for its own use: parameters, assigned names, loop and comprehension targets."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
    return out


def _safe(stmt: ast.AST, known: set[str], modules: dict[str, str], kernel: bool) -> bool:
    """Whether a statement names only what it binds, the kept names, the kept modules and a few pure builtins, and
    calls from a module or a tensor only what ``_FACTORIES``, ``_TRITON_CALLS`` and ``_METHODS`` allow (a kernel's
    body: any ``triton.language`` member, and a block's own methods). No name or attribute with ``_``."""
    own = _bound_inside(stmt) | known | _BUILTINS | set(modules)
    for n in ast.walk(stmt):
        if isinstance(n, (ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom, ast.Await, ast.Yield)) and n is not stmt:
            return False
        if isinstance(n, ast.Name) and (n.id not in own or n.id.startswith("_")):
            return False
        if isinstance(n, ast.Attribute) and n.attr.startswith("_"):
            return False
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            dotted = _dotted(n.func, modules)
            if dotted is None:
                if n.func.attr not in (_block_methods() if kernel else _METHODS):
                    return False
            elif not _allowed_call(dotted, kernel):
                return False
    return True


@cache
def _block_methods() -> frozenset[str]:
    """What a kernel may call on a block: the public members of ``triton.language.tensor`` (``x.to``, ``x.sum`` …)."""
    try:
        import triton.language as tl
    except ImportError:  # no triton here: findings stops before running anything
        return frozenset()
    return frozenset(name for name in dir(tl.tensor) if not name.startswith("_"))


def _allowed_call(dotted: str, kernel: bool) -> bool:
    home, _, name = dotted.rpartition(".")
    if home in ("triton.language", "math") or dotted.startswith("triton.language."):
        return True
    return (home == "torch" and name in _FACTORIES | _DTYPES and not kernel) or (home == "triton" and name in _TRITON_CALLS)


def _launch(stmt: ast.AST, kernels: set[str]) -> bool:
    value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Subscript)
            and isinstance(value.func.value, ast.Name) and value.func.value.id in kernels)


def _kept(tree: ast.Module, imported: dict[str, str]) -> list[ast.stmt]:
    """The top-level statements the child runs, in order (see the module's docstring)."""
    modules = {name: dotted for name, dotted in imported.items() if dotted in _MODULES}
    known: set[str] = set()
    kernels: set[str] = set()
    kept = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if all(a.name != "*" and (a.asname or a.name.split(".")[0]) in modules for a in stmt.names):
                kept.append(stmt)
            continue
        if _is_kernel(stmt, imported) and all(_safe(d, known, modules, kernel=False) for d in stmt.decorator_list) \
                and all(_safe(b, _bound_inside(stmt) | known | kernels | {stmt.name}, modules, kernel=True)
                        for b in stmt.body):
            kernels.add(stmt.name)
            kept.append(stmt)
            continue
        plain = isinstance(stmt, ast.Assign) and all(isinstance(n, ast.Name) or isinstance(n, ast.Tuple) and all(
            isinstance(e, ast.Name) for e in n.elts) for n in stmt.targets)
        if (plain or _launch(stmt, kernels)) and _safe(stmt.value, known | kernels, modules, kernel=False):
            kept.append(stmt)
            known |= _bound_inside(stmt) - _bound_inside(stmt.value)
            continue
        known -= _bound_inside(stmt)
        kernels -= _bound_inside(stmt)
    return kept if kernels and any(_launch(s, kernels) for s in kept) else []


def program(tree: ast.Module, code: str, imported: dict[str, str]) -> str | None:
    """The cell's code with every statement but the kept ones blanked, at its own line numbers; None: nothing to run."""
    kept = _kept(tree, imported)
    if not kept:
        return None
    lines = code.splitlines()
    keep = set()
    for stmt in kept:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
        keep.update(range(first, stmt.end_lineno + 1))
    return "\n".join(text if number in keep else "" for number, text in enumerate(lines, 1)) + "\n"


@cache
def _triton() -> dict:
    """Triton's modules as its interpreter needs them, imported once here so that each forked child finds them loaded:
    imported under ``TRITON_INTERPRET=1`` (Triton's own library functions, ``tl.max`` and the like, are decorated as
    interpreted or as compiled ones when imported) and kept aside, this process's ``sys.modules`` left as it was (the
    course's own kernels, ``npulab.kernels.triton_kernels``, import Triton their own way later in the same process)."""
    return triton_front_end.imported_aside(interpret=True)


def findings(tree: ast.Module, imported: dict[str, str], code: str) -> list[tuple[int, str, str]]:
    """(line, written, message) of the launch or statement Triton's interpreter refused in the cell."""
    if not any(dotted.split(".")[0] == "triton" for dotted in imported.values()):
        return []
    text = program(tree, code, imported)
    if text is None:
        return []
    try:
        modules = _triton()
        triton_front_end.compiled()
    except Exception:  # no triton in this environment
        return []
    with tempfile.TemporaryDirectory(prefix="npulab-triton-") as scratch:
        path = os.path.join(scratch, "cell.py")
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        heard = in_child.outcome(_run, (path,), {}, name=f"triton_run:{text}")
    said = (heard or {}).get("returned")
    if not said or _lifted_on_ascend(said["message"]):
        return []
    line = said["line"]
    written = code.splitlines()[line - 1].strip() if 0 < line <= len(code.splitlines()) else ""
    words = {"line": line, "written": written, "version": modules["triton"].__version__, "error": said["error"],
             "message": said["message"]}
    lowered = said["stage"] == "front_end"
    return [(line, written, t("lint.triton.lowered", **words) if lowered else t("lint.triton.refused", **words))]


def _lifted_on_ascend(message: str) -> bool:
    """Whether Triton-Ascend documents this upstream refusal as lifted on Ascend (npulab/data/triton_ascend_lifted.yaml)."""
    return any(re.search(entry["message"], message) for entry in shared_yaml(DATA_DIR / "triton_ascend_lifted.yaml")["lifted"])


class _Skipped(Exception):
    """A tensor or grid the child does not build or run: the cell stays unknown."""


def _run(path: str) -> dict | None:
    """In the child: run the program under Triton's interpreter, then, if it refused nothing, once more with each
    launch lowered by Triton's front end (``triton_front_end``); the refusal as {line, error, message}, or None."""
    os.environ["TRITON_INTERPRET"] = "1"
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # what a kernel prints (print, tl.device_print) is not lint's output
    sys.modules.update(_triton())  # the interpreted Triton, imported before the fork
    _patch_torch()
    _patch_interpreter()
    with open(path, encoding="utf-8") as source:
        code = compile(source.read(), path, "exec")
    ran, refused = _refused_by(code, path, "interpreter", _NOT_THE_USER)
    if ran:  # only a program the interpreter ran to its end (an Ascend-only API, for one, stops it: unknown)
        del os.environ["TRITON_INTERPRET"]
        triton_front_end.enter()
        _patch_autotuner()
        refused = _refused_by(code, path, "front_end", _NOT_THE_USER_LOWERED)[1]
    return refused


def _refused_by(code, path: str, stage: str, not_the_user: re.Pattern) -> tuple[bool, dict | None]:
    """(whether the program ran to its end, what Triton refused in it)."""
    _MADE[0] = 0
    try:
        exec(code, {"__name__": "npulab_lint_triton_cell", "__file__": path})  # noqa: S102  (only _kept's statements)
    except Exception as err:  # the parent decides nothing more: the refusal is judged here
        refused = _refusal(err, path, not_the_user)
        return False, refused and {**refused, "stage": stage}
    return True, None


def _refusal(err: BaseException, path: str, not_the_user: re.Pattern) -> dict | None:
    frames = traceback.extract_tb(err.__traceback__)
    inner = err
    while inner.__cause__ is not None:  # the interpreter wraps a kernel's error: InterpreterError(repr(error))
        inner = inner.__cause__
    text = str(inner).strip().splitlines()
    message = text[-1].strip() if text else ""
    name = type(inner).__name__
    through_triton = any(f"{os.sep}triton{os.sep}" in f.filename for f in frames)
    raised_in = traceback.extract_tb(inner.__traceback__)[-1:] or frames[-1:]
    in_backend = any(f"{os.sep}triton{os.sep}backends{os.sep}" in f.filename for f in raised_in)
    if isinstance(inner, _Skipped) or not through_triton or in_backend or name not in _ERRORS \
            or not_the_user.search(message):
        return None
    line = next((f.lineno for f in frames if f.filename == path and f.name == "<module>"), 0)
    return {"line": line, "error": name, "message": message}


_MADE = [0]  # elements the child's torch factories made in the current run of the program


def _patch_torch() -> None:
    """The child's torch: accelerator tensors on the CPU within the element limits. Only the forked child is changed."""
    import torch

    def on_cpu(factory):
        def made(*args, **kwargs):
            kwargs.pop("device", None)
            count = _elements(factory.__name__, args, kwargs)
            _MADE[0] += count
            if count > cpu_values.MAX_ELEMENTS or _MADE[0] > cpu_values.MAX_TOTAL:
                raise _Skipped(factory.__name__)
            return factory(*args, **kwargs)
        return made

    for name in _FACTORIES:
        setattr(torch, name, on_cpu(getattr(torch, name)))
    torch.Tensor.npu = torch.Tensor.cuda = lambda self, *args, **kwargs: self
    to = torch.Tensor.to

    def to_cpu(self, *args, **kwargs):
        args = tuple(a for a in args if not (isinstance(a, (str, torch.device)) and str(a) != "cpu"))
        kwargs.pop("device", None)
        return to(self, *args, **kwargs) if args or kwargs else self
    torch.Tensor.to = to_cpu


def _patch_interpreter() -> None:
    """The child's interpreted Triton: grids cut to MAX_PROGRAMS, an autotuner that runs each config once."""
    from triton.runtime import interpreter

    start = interpreter.GridExecutor.__init__

    def cut(self, fn, arg_names, grid, *rest, **kwargs):
        start(self, fn, arg_names, lambda args: _first_programs(grid(args) if callable(grid) else grid), *rest, **kwargs)
    interpreter.GridExecutor.__init__ = cut
    _patch_autotuner()


def _patch_autotuner() -> None:
    """The Triton in ``sys.modules`` runs each config of an autotuner once instead of timing it (upstream's
    ``do_bench`` needs a GPU driver)."""
    from triton.runtime import autotuner

    autotuner.Autotuner.do_bench = property(lambda self: _once)


def _elements(name: str, args: tuple, kwargs: dict) -> int:
    """How many elements a torch factory call would make, read from its arguments (a tensor it copies or mimics is
    already within the limits: 0); a size it cannot read stops the run."""
    if name.endswith("_like") or name == "tensor":
        return 0
    if name == "arange" and 1 <= len(args) <= 3 and all(isinstance(a, (int, float)) for a in args):
        start, end, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
        return max(math.ceil((end - start) / step), 0)
    if "size" in kwargs:
        size = kwargs["size"]
    elif name in ("full", "randint"):
        size = args[0] if name == "full" and args else args[-1] if args else None
    else:
        size = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
    if name == "arange" or not isinstance(size, (tuple, list)) or not all(isinstance(d, int) for d in size):
        raise _Skipped(name)
    return math.prod(size)


def _first_programs(grid):
    if not isinstance(grid, tuple) or not all(isinstance(d, int) for d in grid):
        return grid  # Triton judges it
    out, room = [], MAX_PROGRAMS
    for size in grid:
        out.append(max(min(size, room), min(size, 1)))
        room = max(room // max(out[-1], 1), 1)
    return tuple(out)


def _once(kernel_call, quantiles=None):
    kernel_call()
    return [0.0, 0.0, 0.0]
