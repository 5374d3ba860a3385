"""lint-npu, the Hugging Face stack judged by its own released code: a cell's ``TrainingArguments(…)``,
``GenerationConfig(…)``, peft's ``LoraConfig(…)`` / ``AdaLoraConfig(…)``, accelerate's ``Accelerator(…)`` — any class of
transformers, peft, accelerate or tokenizers called with literal arguments (or with such calls, or names the cell bound
to them, as arguments) — is built in a child forked from lint's process (``npulab.lint.in_child``), after the cell's own
literal ``os.environ`` settings. What the class's ``__init__`` / ``__post_init__`` raises, or warns, is the finding, in
the package's own words: no rule per argument. A call of such an object, or of its method, with literal arguments
(``tok(texts, padding="max")``) is made the same way on the object built as the cell built it (its attributes set
by the cell, ``core.pre_tokenizer = …``, set again). A cell's ``from transformers.x import Y`` is resolved by
importing it the same way: a module or name the installed release lacks is reported.

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
import tempfile
import warnings

from npulab.core.i18n import t
from npulab.env.env_values import python_settings
from npulab.lint import in_child
from npulab.lint.calls import calls

PACKAGES = ("transformers", "peft", "accelerate", "tokenizers")
# huggingface_hub's strict dataclasses (transformers 5's configurations) raise their validators' ValueError wrapped
_ERRORS = frozenset({"ValueError", "TypeError", "AssertionError", "KeyError", "NotImplementedError",
                     "StrictDataclassClassValidationError", "StrictDataclassFieldValidationError"})
# methods whose call leaves the child (files, the Hub): never made
_LEAVES = re.compile(r"^(save|push|from_|to_json_file|download|upload|register)")
_WARNINGS = frozenset({"UserWarning", "FutureWarning", "DeprecationWarning"})
# the machine, not the arguments: an optional package, an accelerator, a network, a process group
_NOT_THE_CELL = re.compile(r"pip install|not installed|is not available|requires? (a |an )?(gpu|cuda|xpu|npu|mps)|"
                           r"\bcuda\b|\bnpu\b|\bhpu\b|network|connection|internet|process group|torch\.distributed",
                           re.IGNORECASE)
_IMPORTED: dict[str, object] = {}  # dotted name -> the released object, or the ImportError/AttributeError text


class _Build:
    """A literal call of a package's class, with the attributes the cell then set on it, built only in the child
    (``repr`` keys in_child's memo)."""

    def __init__(self, cls, args: tuple, kwargs: dict, settings: tuple = ()):
        self.cls, self.args, self.kwargs, self.settings = cls, args, kwargs, settings

    def __repr__(self) -> str:
        return (f"{self.cls.__module__}.{self.cls.__qualname__}{self.args!r}{sorted(self.kwargs.items())!r}"
                f"{self.settings!r}")

    def build(self):
        made = self.cls(*(_built(a) for a in self.args), **{k: _built(v) for k, v in self.kwargs.items()})
        for attribute, value in self.settings:
            setattr(made, attribute, _built(value))
        return made

    def setting(self, attribute: str, value) -> _Build:
        return _Build(self.cls, self.args, self.kwargs, (*self.settings, (attribute, value)))


class _Use:
    """A call of a built object (``method`` None) or of its method with literal arguments."""

    def __init__(self, receiver: _Build, method: str | None, args: tuple, kwargs: dict):
        self.receiver, self.method, self.args, self.kwargs = receiver, method, args, kwargs

    def __repr__(self) -> str:
        return f"{self.receiver!r}.{self.method}{self.args!r}{sorted(self.kwargs.items())!r}"

    def build(self):
        with warnings.catch_warnings():  # the object's own refusal or warning is its construction's finding
            warnings.simplefilter("ignore")
            try:
                made = self.receiver.build()
            except Exception:
                return None
        called = made if self.method is None else getattr(made, self.method)
        return called(*(_built(a) for a in self.args), **{k: _built(v) for k, v in self.kwargs.items()})


def _built(value):
    return in_child.built(value, _Build)


def _in_child(environ: dict, build: _Build) -> None:
    quiet = os.open(os.devnull, os.O_WRONLY)  # the package's own log lines stay out of lint's report
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.environ.update(environ)
    os.chdir(tempfile.mkdtemp())  # what a call writes stays out of the course
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


def _literal(node: ast.expr, imported: dict[str, str], bound: dict):
    """The value a literal argument stands for, a ``_Build`` for a nested call of a package's class or a name the cell
    bound to one (``bound``: name -> [(line, _Build or None)]); raises ValueError where the argument is not known."""
    if isinstance(node, ast.Call):
        build = _call(node, imported, bound)
        if build is None:
            raise ValueError("not a literal call")
        return build
    if isinstance(node, ast.Name):
        build = _bound_at(bound, node)
        if build is None:
            raise ValueError("not a built name")
        return build
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_literal(e, imported, bound) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {ast.literal_eval(k): _literal(v, imported, bound) for k, v in zip(node.keys, node.values, strict=True)}
    return ast.literal_eval(node)


def _arguments(node: ast.Call, imported: dict[str, str], bound: dict) -> tuple[tuple, dict] | None:
    if any(k.arg is None for k in node.keywords):
        return None
    try:
        return (tuple(_literal(a, imported, bound) for a in node.args),
                {k.arg: _literal(k.value, imported, bound) for k in node.keywords})
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None


def _call(node: ast.Call, imported: dict[str, str], bound: dict | None = None) -> _Build | None:
    found = next((full for _line, _w, full, call in calls(ast.Module(body=[ast.Expr(node)], type_ignores=[]), imported)
                  if call is node), None)
    if not found or not _root(found):
        return None
    cls = _released(found)
    if not isinstance(cls, type) or _module_class(cls):
        return None
    given = _arguments(node, imported, bound or {})
    return None if given is None else _Build(cls, *given)


def _bound_at(bound: dict, name: ast.Name) -> _Build | None:
    """What ``name`` holds where it is read: the build of its last binding on an earlier line, if it was one."""
    earlier = [build for line, build in bound.get(name.id, []) if line < name.lineno]
    return earlier[-1] if earlier else None


def _bindings(tree: ast.Module, imported: dict[str, str]) -> dict:
    """name -> [(line, _Build or None)] of the cell's assignments in line order: ``x = Class(…)`` binds a build, an
    attribute set on a built name (``x.attr = literal``) binds the build with that setting, any other binding None."""
    bound: dict = {}
    for node in sorted((n for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign))),
                       key=lambda n: n.lineno):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                build = _call(node.value, imported, bound) if isinstance(node.value, ast.Call) and len(targets) == 1 \
                    else None
                bound.setdefault(target.id, []).append((node.lineno + 0.5, build))
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and node.value is not None:
                build = _bound_at(bound, target.value)
                if build is not None:
                    try:
                        build = build.setting(target.attr, _literal(node.value, imported, bound))
                    except (ValueError, TypeError, SyntaxError, RecursionError):
                        build = None
                    bound[target.value.id].append((node.lineno + 0.5, build))
    return bound


def _uses(tree: ast.Module, imported: dict[str, str], bound: dict):
    """(line, written, _Use) of each call of a built name or of its method with literal arguments."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name, method = (func, None) if isinstance(func, ast.Name) else \
            (func.value, func.attr) if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else (None, None)
        receiver = _bound_at(bound, name) if name is not None else None
        if receiver is None or (method and (method.startswith("_") or _LEAVES.match(method))):
            continue
        given = _arguments(node, imported, bound)
        if given is not None:
            yield node.lineno, ast.unparse(func), receiver, _Use(receiver, method, *given)


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
    bound = _bindings(tree, imported)
    inner: set[int] = set()  # calls built with the outer call (ast.walk meets the outer one first)
    for line, written, full, node in calls(tree, imported):
        if id(node) in inner or not _root(full):
            continue
        build = _call(node, imported, bound)
        if build is None:
            continue
        inner |= {id(a) for a in ast.walk(node) if a is not node}
        said = _judged(full, environ, build)
        if said:
            out.append((line, written, "argument-value",
                        t("lint.hf.refused", line=line, written=written, package=_version(full), said=said)))
    for line, written, receiver, use in _uses(tree, imported, bound):
        _released("torch")  # a call that returns tensors imports torch: in the parent once, not in each child
        full = f"{receiver.cls.__module__}.{receiver.cls.__qualname__}"
        said = _judged(full, environ, use)
        if said:
            out.append((line, written, "argument-value",
                        t("lint.hf.called", line=line, written=written, package=_version(full), said=said)))
    return out


def _judged(full: str, environ: dict, build: _Build | _Use) -> str | None:
    return _said(in_child.outcome(_in_child, (environ, build), {}, name=full))


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
