"""lint-npu, the Hugging Face stack judged by its own released code: a cell's ``TrainingArguments(…)``,
``GenerationConfig(…)``, peft's ``LoraConfig(…)`` / ``AdaLoraConfig(…)``, accelerate's ``Accelerator(…)`` — any class of
transformers, peft or accelerate called with literal arguments (or with such calls as arguments) — is built in a child
forked from lint's process (``npulab.lint.in_child``), after the cell's own literal ``os.environ`` settings. What the
class's ``__init__`` / ``__post_init__`` raises, or warns, is the finding, in the package's own words: no rule per
argument. A cell's ``from transformers.x import Y`` is resolved by importing it the same way: a module or name the
installed release lacks is reported.

The package is imported in lint's process only when an NPU cell imports from it (importing transformers or peft takes
seconds; the course's NPU cells do not), then each child only builds. An error that speaks of the machine rather than
the arguments (a missing optional package, no GPU, the network) is not the cell's error. A model class (a torch
module) is never built.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import warnings

from npulab.core.i18n import t
from npulab.env.env_values import python_settings
from npulab.lint import in_child
from npulab.lint.calls import calls

PACKAGES = ("transformers", "peft", "accelerate")
_ERRORS = frozenset({"ValueError", "TypeError", "AssertionError", "KeyError", "NotImplementedError"})
_WARNINGS = frozenset({"UserWarning", "FutureWarning", "DeprecationWarning"})
# the machine, not the arguments: an optional package, an accelerator, a network, a process group
_NOT_THE_CELL = re.compile(r"pip install|not installed|is not available|requires? (a |an )?(gpu|cuda|xpu|npu|mps)|"
                           r"\bcuda\b|\bnpu\b|\bhpu\b|network|connection|internet|process group|torch\.distributed",
                           re.IGNORECASE)
_IMPORTED: dict[str, object] = {}  # dotted name -> the released object, or the ImportError/AttributeError text


class _Build:
    """A literal call of a package's class, built only in the child (``repr`` keys in_child's memo)."""

    def __init__(self, cls, args: tuple, kwargs: dict):
        self.cls, self.args, self.kwargs = cls, args, kwargs

    def __repr__(self) -> str:
        return f"{self.cls.__module__}.{self.cls.__qualname__}{self.args!r}{sorted(self.kwargs.items())!r}"

    def build(self):
        return self.cls(*(_built(a) for a in self.args), **{k: _built(v) for k, v in self.kwargs.items()})


def _built(value):
    if isinstance(value, _Build):
        return value.build()
    if isinstance(value, (list, tuple)):
        return type(value)(_built(v) for v in value)
    if isinstance(value, dict):
        return {k: _built(v) for k, v in value.items()}
    return value


def _in_child(environ: dict, build: _Build) -> None:
    quiet = os.open(os.devnull, os.O_WRONLY)  # the package's own log lines stay out of lint's report
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.environ.update(environ)
    build.build()


def _released(dotted: str):
    """The object ``dotted`` names in the installed release, or the str of why it cannot be imported."""
    if dotted not in _IMPORTED:
        module, _, name = dotted.rpartition(".")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    _IMPORTED[dotted] = importlib.import_module(dotted)
                except ImportError:
                    _IMPORTED[dotted] = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError) as err:
            _IMPORTED[dotted] = f"{type(err).__name__}: {err}"
        except Exception:  # the package itself cannot load here: nothing is judged
            _IMPORTED[dotted] = None
    return _IMPORTED[dotted]


def _module_class(cls: type) -> bool:
    """A model (a torch module): building one with a default configuration would allocate its full weights."""
    return any(f"{base.__module__}.{base.__qualname__}" == "torch.nn.modules.module.Module" for base in cls.__mro__)


def _root(dotted: str) -> bool:
    return dotted.split(".")[0] in PACKAGES


def _literal(node: ast.expr, imported: dict[str, str]):
    """The value a literal argument stands for, a ``_Build`` for a nested call of a package's class; raises
    ValueError where the argument is not known."""
    if isinstance(node, ast.Call):
        build = _call(node, imported)
        if build is None:
            raise ValueError("not a literal call")
        return build
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_literal(e, imported) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {ast.literal_eval(k): _literal(v, imported) for k, v in zip(node.keys, node.values, strict=True)}
    return ast.literal_eval(node)


def _call(node: ast.Call, imported: dict[str, str]) -> _Build | None:
    found = next((full for _line, _w, full, call in calls(ast.Module(body=[ast.Expr(node)], type_ignores=[]), imported)
                  if call is node), None)
    if not found or not _root(found):
        return None
    cls = _released(found)
    if not isinstance(cls, type) or _module_class(cls):
        return None
    try:
        args = tuple(_literal(a, imported) for a in node.args)
        kwargs = {k.arg: _literal(k.value, imported) for k in node.keywords if k.arg}
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    if any(k.arg is None for k in node.keywords):
        return None
    return _Build(cls, args, kwargs)


def _imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, dotted) of each module or name a cell imports from the packages."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if _root(a.name)]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module and _root(node.module):
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names if a.name != "*"]
    return out


def _version(dotted: str) -> str:
    root = dotted.split(".")[0]
    return f"{root} {getattr(_released(root), '__version__', '?')}"


def findings(tree: ast.Module, imported: dict[str, str]) -> list[tuple[int, str, str, str]]:
    """(line, written, kind, sentence) for each import the installed release lacks and each literal construction its
    own checks refuse or warn about."""
    names = _imports(tree)
    if not names:
        return []
    out = []
    for line, dotted in names:
        got = _released(dotted)
        if isinstance(got, str):
            out.append((line, dotted, "unknown-name",
                        t("lint.hf.import", line=line, written=dotted, package=_version(dotted), error=got)))
    environ = {s.name: s.value for s in python_settings(tree) if s.python_type == "str"}
    inner: set[int] = set()  # calls built with the outer call (ast.walk meets the outer one first)
    for line, written, full, node in calls(tree, imported):
        if id(node) in inner or not _root(full):
            continue
        build = _call(node, imported)
        if build is None:
            continue
        inner |= {id(a) for a in ast.walk(node) if a is not node}
        heard = in_child.outcome(_in_child, (environ, build), {}, name=full)
        said = _said(heard)
        if said:
            out.append((line, written, "argument-value",
                        t("lint.hf.refused", line=line, written=written, package=_version(full), said=said)))
    return out


def _said(heard: dict | None) -> str | None:
    """The child's refusal or first own warning, unless it speaks of the machine."""
    if heard is None:
        return None
    if "error" in heard:
        said = f"{heard['error']}: {heard['message'].strip().splitlines()[0] if heard['message'].strip() else ''}"
        return None if heard["error"] not in _ERRORS or _NOT_THE_CELL.search(heard["message"]) else said
    for category, message in heard.get("warnings", []):
        if category in _WARNINGS and not _NOT_THE_CELL.search(message):
            return f"{category}: {message.strip().splitlines()[0] if message.strip() else ''}"
    return None
