"""Signatures of the functions an ``npu`` cell calls, read from released sources without importing them.

Sources, per package (the version the course pins):

- torch_npu (+ torchair, npugraph_ex inside it): the pinned wheel (the one lint-npu already caches): the ``def``
  of every Python function and class ``__init__``, and the registered operator schemas of
  ``torch_npu/csrc/aten/npu_native_functions*.yaml`` (``torch_npu.npu_*`` are ``torch.ops.npu`` operators);
- msprobe (PyPI ``mindstudio-probe``) and MindSpore: the installed package, when its version is the pinned one
  (both are in the course's CPU environment, requirements.txt); otherwise they are "not checkable";
- anything resolved to a C extension, a value or an object with no Python ``def`` is reported as "not checkable".

A call is checked for the number of positional arguments and the names of keyword arguments; ``*args`` /
``**kwargs`` in the call or in the definition make the corresponding part uncheckable (accepted).
"""

from __future__ import annotations

import ast
import json
import os
import re
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import metadata, util
from pathlib import Path

from npulab.core.i18n import language, t
from npulab.lint.field_classes import synthesized_init
from npulab.pytorch.torch_npu_names import dotted_parts

FORMAT = 1
_PRESERVING = {"builtin", "jit",  # triton.language: @builtin keeps the signature (plus _builder); kernels are @jit
               "staticmethod", "classmethod", "wraps", "property", "cache", "lru_cache", "overload", "deprecated",
               "no_type_check", "final", "abstractmethod", "contextmanager",
               # MindSpore 2.10: each wrapper binds the caller's arguments to the function's own signature and calls
               # it with them unchanged (_checkparam.py args_type_check, ops/primitive.py prim_attr_register and
               # prim_arg_register, graph/_utils/cell_attr_register.py)
               "args_type_check", "prim_attr_register", "prim_arg_register", "cell_attr_register"}
# (decorators defined in the package's own sources are also recognised by their code: forwards_unchanged)


@dataclass
class Signature:
    """Parameters of one callable: positional names, how many are required, keyword-only names, ``*``/``**``."""

    positional: list[str]
    required: int = 0
    keyword_only: list[str] = field(default_factory=list)
    varargs: bool = False
    varkw: bool = False
    posonly: int = 0  # the first ``posonly`` positional names cannot be given by keyword
    origin: str = ""  # where it was read: "def", "schema" or "pyi"
    keyword_required: list[str] = field(default_factory=list)  # keyword-only names without a default
    types: dict[str, str] = field(default_factory=dict)  # parameter -> its schema type (``int``, ``Tensor?``), schemas only

    def problem(self, positional: int, keywords: list[str], more_positional: bool = False,
                more_keywords: bool = False) -> str | None:
        """Why a call does not fit; None when it does. ``positional`` counts the plain positional arguments (those
        before any ``*x``), ``keywords`` the named ones; ``more_positional`` / ``more_keywords`` say that a ``*x`` /
        ``**x`` splat may add any number more, so only what they cannot change is checked."""
        if positional > len(self.positional) and not self.varargs:
            return t("lint.signature.too_many", most=len(self.positional), given=positional)
        names = set(self.positional[self.posonly:]) | set(self.keyword_only)
        for kw in keywords:
            if kw not in names and not self.varkw:
                return t("lint.signature.no_such_keyword", keyword=kw)
            if kw in self.positional[:positional]:
                return t("lint.signature.given_twice", keyword=kw)
        if not more_keywords:
            given = set(keywords)
            missing = [] if more_positional else \
                [n for n in self.positional[positional:self.required] if n not in given or n in self.positional[:self.posonly]]
            missing += [n for n in self.keyword_required if n not in given]
            if missing:
                return t("lint.signature.missing", names=t("lint.sep").join(f"`{n}`" for n in missing))
        return None

    def text(self) -> str:
        """``(a, b, *, c)`` for messages."""
        parts = list(self.positional)
        if self.varargs:
            parts.append("*args")
        elif self.keyword_only:
            parts.append("*")
        parts += self.keyword_only
        if self.varkw:
            parts.append("**kwargs")
        return "(" + ", ".join(parts) + ")"


def from_def(node: ast.FunctionDef | ast.AsyncFunctionDef, drop_first: bool = False,
             preserves: Callable[[ast.expr], bool] | None = None) -> Signature | None:
    """The signature of a ``def``; None when a decorator may change it (``preserves`` may vouch for one)."""
    for deco in node.decorator_list:
        func = deco.func if isinstance(deco, ast.Call) else deco
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in _PRESERVING and not name.startswith("_") and not (preserves and preserves(deco)):
            return None
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    posonly = len(args.posonlyargs)
    if drop_first and positional:
        positional, posonly = positional[1:], max(0, posonly - 1)
    required = len(positional) - len(args.defaults)
    keyword_required = [a.arg for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True) if default is None]
    return Signature(positional, max(required, 0), [a.arg for a in args.kwonlyargs], args.vararg is not None,
                     args.kwarg is not None, posonly, "def", keyword_required)


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current))
    return [p.strip() for p in parts]


_SCHEMA = re.compile(r"^\s*-?\s*func:\s*(\w+)(?:\.\w+)?\((.*)\)\s*->")


def from_schema(line: str) -> tuple[str, Signature] | None:
    """(op name, signature) of an operator schema line ``func: name(.overload)(Tensor self, *, int x=1) -> T``."""
    match = _SCHEMA.match(line)
    if not match:
        return None
    positional, keyword_only, keyword_required, required, star = [], [], [], 0, False
    types = {}
    for arg in _split_top(match.group(2)):
        if arg == "*":
            star = True
            continue
        decl, _, default = arg.partition("=")
        name = decl.split()[-1]
        types[name] = " ".join(decl.split()[:-1])
        if star:
            keyword_only.append(name)
            if not default:
                keyword_required.append(name)
        else:
            positional.append(name)
            required += not default
    return match.group(1), Signature(positional, required, keyword_only, origin="schema",
                                     keyword_required=keyword_required, types=types)


# --- the signature table of a source tree ----------------------------------------------------------------


class SourceTree:
    """Python modules of one package (module name -> source text), resolved without importing them."""

    def __init__(self, package: str, version: str, sources: dict[str, str], packages: set[str],
                 schemas: dict[str, list[Signature]] | None = None):
        self.package, self.version, self.sources, self.packages = package, version, sources, packages
        self.schemas = {name: _unique(sigs) for name, sigs in (schemas or {}).items()}
        self.extensions: set[str] = set()
        self.alternates = lambda dotted: []  # other definitions of the same name that may replace it at run time
        self._trees: dict[str, ast.Module | None] = {}
        self._resolved: dict[tuple[str, str], tuple] = {}  # (dotted, language) -> (answer, NameNotFound, defined at)
        self._defined_at = ""  # where the last resolve found a def or class: module.name
        self.names_checked = False  # whether an unknown name is an error (a test shows every public name resolves)
        self.stub_modules: set[str] = set()  # modules read from .pyi stubs

    def tree(self, module: str) -> ast.Module | None:
        if module not in self._trees:
            stored = dict.get(self.sources, module)
            if isinstance(stored, Path):  # an installed file: parsed once per process, whichever tree asks
                self._trees[module] = _parsed_file(stored)
                return self._trees[module]
            text = self.sources.get(module)
            self._trees[module] = _parsed(text) if text is not None else None
        return self._trees[module]

    def resolve(self, dotted: str, depth: int = 0) -> tuple[str, list[Signature] | None]:
        """(what ``dotted`` is, its signatures); signatures None when not checkable. Raises KeyError when unknown.
        A name asked for again (a set of cells calls the same few APIs thousands of times) is answered from a memo
        of the first answer, in the language it was given in."""
        if depth:
            return self._resolve(dotted, depth)
        key = (dotted, language())
        if key not in self._resolved:
            self._defined_at = ""
            try:
                self._resolved[key] = (self._resolve(dotted, 0), None, self._defined_at)
            except NameNotFound as err:
                self._resolved[key] = (None, err, self._defined_at)
        answer, unknown, self._defined_at = self._resolved[key]
        if unknown is not None:
            raise NameNotFound(unknown.dotted, unknown.certain)
        return answer

    def _resolve(self, dotted: str, depth: int) -> tuple[str, list[Signature] | None]:
        if depth > 12:
            return t("lint.what.circular"), None
        parts = dotted.split(".")
        parent = ".".join(parts[:-1])
        if len(parts) > 1 and parent in self.sources and self.tree(parent) is not None:
            bound = _top_level(self.tree(parent), parts[-1])
            if bound is not None and not isinstance(bound, ast.Import):  # `from .x import x`: the name, not the module
                return self._lookup(parent, [parts[-1]], depth)
        for cut in range(len(parts), 0, -1):  # the longest prefix that is a module
            module = ".".join(parts[:cut])
            if module in self.sources:
                rest = parts[cut:]
                break
        else:
            return t("lint.what.outside"), None
        if rest and f"{module}.{rest[0]}" in self.extensions:
            return t("lint.what.c_extension"), None
        if not rest:
            return t("lint.what.module"), None
        return self._lookup(module, rest, depth)

    def definition(self, dotted: str) -> str:
        """Where ``dotted`` is defined (``mindspore.set_context`` -> ``mindspore.context.set_context``); '' when
        it is not a def or class of these sources."""
        self._defined_at = ""
        try:
            self.resolve(dotted)
        except NameNotFound:
            return ""
        return self._defined_at

    def names_in(self, module: str, depth: int = 0) -> set[str]:
        """The names a module binds (its own, those of its star imports, its submodules) — for suggestions."""
        tree = self.tree(module)
        if tree is None or depth > 6:
            return set()
        names = {m[len(module) + 1:].split(".")[0] for m in self.sources if m.startswith(module + ".")}
        for node in _flat(tree.body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if alias.name == "*" and isinstance(node, ast.ImportFrom):
                        names |= self.names_in(self._absolute(module, node), depth + 1)
                    else:
                        names.add(alias.asname or alias.name.split(".")[0])
            elif isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        return {n for n in names if not n.startswith("_")}

    def function(self, dotted: str) -> ast.FunctionDef | None:
        """The ``def`` of ``module.function`` or ``module.Class.method`` as these sources spell it."""
        parts = dotted.split(".")
        for cut in (len(parts) - 1, len(parts) - 2):
            tree = self.tree(".".join(parts[:cut])) if cut > 0 else None
            if tree is None:
                continue
            found = _top_level(tree, parts[cut])
            if cut == len(parts) - 2 and isinstance(found, ast.ClassDef):
                found = _class_member(found, parts[-1])
            if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return found
        return None

    def settable(self, dotted: str) -> tuple[str, set[str]] | None:
        """(class, names) for a module-level object ``dotted`` whose class's ``__setattr__`` acts only on the names it
        compares with (``torch_npu.npu.config``: ``if name == "allow_internal_format"``): setting any other name does
        nothing. None when that is not known."""
        found = self.setter(dotted)
        if found is None:
            return None
        _, cls_name, setter = found
        argument = setter.args.args[1].arg
        names = {c.comparators[0].value for c in ast.walk(setter) if isinstance(c, ast.Compare)
                 and isinstance(c.left, ast.Name) and c.left.id == argument and isinstance(c.ops[0], ast.Eq)
                 and isinstance(c.comparators[0], ast.Constant)}
        others = any(isinstance(n, ast.Call) and "setattr" in ast.unparse(n.func) or
                     isinstance(n, ast.Attribute) and n.attr == "__dict__" for n in ast.walk(setter))
        return (cls_name, names) if names and not others else None

    def setter(self, dotted: str) -> tuple[str, str, ast.FunctionDef] | None:
        """(module, class, its ``__setattr__``) of the class of a module-level object ``dotted``
        (``torch_npu.npu.matmul = _allowHF32Matmul()``); None when it has none or it is not known."""
        module, _, name = dotted.rpartition(".")
        value = self.assigned(module, name) if module in self.sources else None
        parts = dotted_parts(value.func) if isinstance(value, ast.Call) else None
        if not parts:
            return None
        head = _top_level(self.tree(module), parts[0])
        if isinstance(head, ast.ImportFrom):
            alias = next(a for a in head.names if (a.asname or a.name) == parts[0])
            base = f"{self._absolute(module, head)}.{alias.name}"
        elif isinstance(head, ast.ClassDef) or (head is None and f"{module}.{parts[0]}" in self.sources):
            base = f"{module}.{parts[0]}"  # a class of the module, or a submodule its imports bind
        else:
            return None
        where = self.definition(".".join([base, *parts[1:]]))
        cls_module, _, cls_name = where.rpartition(".")
        cls = _top_level(self.tree(cls_module), cls_name) if cls_module in self.sources else None
        setter = _class_member(cls, "__setattr__") if isinstance(cls, ast.ClassDef) else None
        if not isinstance(setter, ast.FunctionDef) or len(setter.args.args) < 3:
            return None
        return cls_module, cls_name, setter

    def assigned(self, module: str, name: str) -> ast.expr | None:
        """The expression of a module-level ``NAME = …``; None when there is none."""
        tree = self.tree(module)
        found = _top_level(tree, name) if tree is not None else None
        return found.value if isinstance(found, ast.Assign) else None

    def constant(self, module: str, name: str):
        """The literal value of a module-level ``NAME = <literal>``; None when there is none."""
        value = self.assigned(module, name)
        try:
            return ast.literal_eval(value) if value is not None else None
        except ValueError:
            return None

    def _lookup(self, module: str, rest: list[str], depth: int) -> tuple[str, list[Signature] | None]:
        tree = self.tree(module)
        if tree is None:
            return t("lint.what.unparsable"), None
        name = rest[0]
        found = _top_level(tree, name)
        if found is None:
            if module == self.package and name in self.schemas and len(rest) == 1:
                return t("lint.what.schema"), self.schemas[name]
            certain = True
            for node in _flat(tree.body):  # star imports
                if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                    source = self._absolute(module, node)
                    if source not in self.sources:
                        certain = False  # from a C extension or another package: its names are not read here
                        continue
                    try:
                        what, sigs = self._lookup(source, rest, depth + 1)
                    except NameNotFound as err:
                        certain = certain and err.certain
                        continue
                    return what, sigs
            if f"{module}.{name}" in self.sources:
                return self.resolve(f"{module}.{'.'.join(rest)}", depth + 1)
            if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body):
                return t("lint.what.module_getattr"), None
            if name in _declared_all(tree):
                return t("lint.what.declared_all"), None
            certain = certain and module not in self.stub_modules  # a .pyi stub may leave names out
            raise NameNotFound(f"{module}.{name}", certain and not _dynamic_names(self.sources[module]))
        if isinstance(found, ast.ImportFrom):
            source = self._absolute(module, found)
            alias = next(a for a in found.names if (a.asname or a.name) == name)
            target = f"{source}.{alias.name}" + ("." + ".".join(rest[1:]) if rest[1:] else "")
            if target.split(".")[0] not in self.roots():
                return t("lint.what.reexport"), None
            return self.resolve(target, depth + 1)
        if isinstance(found, ast.Import):
            return t("lint.what.module_alias"), None
        if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._defined_at = ".".join([module, *rest[:2]]) if isinstance(found, ast.ClassDef) else f"{module}.{name}"
        if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if len(rest) > 1:
                return t("lint.what.function_attribute"), None
            if module == self.package and name in self.schemas:
                return t("lint.what.function"), [s for s in [from_def(found)] if s] + self.schemas[name] or None
            overloads = _overloads(tree.body, name)
            if overloads:  # typing.overload variants (the .pyi stubs of C functions): a call fits one of them
                return t("lint.what.overloads"), overloads
            sig = from_def(found, preserves=lambda deco: self._preserves(module, deco))
            return (t("lint.what.function"), [sig]) if sig else (t("lint.what.decorated_function"), None)
        if isinstance(found, ast.ClassDef):
            if len(rest) == 1:
                return self._class_init(module, found, depth)
            if len(rest) == 2:
                method = _class_member(found, rest[1])
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        (overloads := _overloads(found.body, rest[1], drop_first=True)):
                    return t("lint.what.method_overloads"), overloads
                if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list)
                    sig = from_def(method, drop_first=not static, preserves=lambda deco: self._preserves(module, deco))
                    return (t("lint.what.method"), [sig]) if sig else (t("lint.what.decorated_method"), None)
            return t("lint.what.member"), None
        if module == self.package and name in self.schemas and len(rest) == 1:
            return t("lint.what.schema"), self.schemas[name]
        documented = _documented_alias(found)
        if documented and len(rest) == 1 and documented.split(".")[0] in self.roots():
            return self.resolve(documented, depth + 1)  # linear = _add_docstr(torch._C._nn.linear, "...")
        return t("lint.what.assigned"), None

    def _class_init(self, module: str, cls: ast.ClassDef, depth: int) -> tuple[str, list[Signature] | None]:
        init = _class_member(cls, "__init__") or synthesized_init(cls)
        if isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                (overloads := _overloads(cls.body, "__init__", drop_first=True)):
            return t("lint.what.class_overloads"), overloads
        if isinstance(init, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sig = from_def(init, drop_first=True, preserves=lambda deco: self._preserves(module, deco))
            return (t("lint.what.class"), [sig]) if sig else (t("lint.what.decorated_init"), None)
        if any((getattr(d, "id", None) or getattr(d, "attr", None)) == "dataclass" or
               (isinstance(d, ast.Call) and (getattr(d.func, "id", None) or getattr(d.func, "attr", None)) == "dataclass")
               for d in cls.decorator_list):
            fields = [s.target.id for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            return "dataclass", [Signature(fields, 0, origin="def")]
        if cls.bases or cls.keywords:
            return t("lint.what.inherited_init"), None
        return t("lint.what.class"), [Signature([], 0, origin="def")]

    def _preserves(self, module: str, deco: ast.expr) -> bool:
        """Whether a decorator of these sources hands the caller's ``*args, **kwargs`` on to the function unchanged
        (mindspore.dataset's ``@check_*`` validators, ``opt_init_args_register`` …): then the function's own
        signature is what a call must fit."""
        func = deco.func if isinstance(deco, ast.Call) else deco
        if not isinstance(func, ast.Name) or self.tree(module) is None:
            return False
        bound = _top_level(self.tree(module), func.id)
        if isinstance(bound, ast.ImportFrom):
            alias = next(a for a in bound.names if (a.asname or a.name) == func.id)
            definition = self.function(f"{self._absolute(module, bound)}.{alias.name}")
        else:
            definition = bound if isinstance(bound, ast.FunctionDef) else None
        return definition is not None and forwards_unchanged(definition)

    def roots(self) -> set[str]:
        """Top-level names this tree answers for (torch_npu, torchair, npugraph_ex)."""
        if not hasattr(self, "_roots"):
            self._roots = {m.split(".")[0] for m in self.sources}
        return self._roots

    def _absolute(self, module: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = module.split(".") if module in self.packages else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        return ".".join(base + ([node.module] if node.module else []))


class NameNotFound(KeyError):
    """A name the sources do not define; ``certain`` is False where the module may define names at run time
    (``globals()``, a star import from a C extension or another package)."""

    def __init__(self, dotted: str, certain: bool = True):
        super().__init__(dotted)
        self.dotted, self.certain = dotted, certain


def _dynamic_names(source: str) -> bool:
    """Whether a module binds names it does not spell out (``globals()[…] =``, ``setattr(sys.modules[…]``)."""
    return "globals()" in source or "sys.modules[__name__]" in source or "setattr(sys.modules" in source


def _unique(sigs: list[Signature]) -> list[Signature]:
    seen, out = set(), []
    for sig in sigs:
        key = json.dumps(asdict(sig), sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(sig)
    return out


def _top_level(tree: ast.Module, name: str):
    """The last top-level statement that binds ``name`` (def, class, import, assignment), searching if/try blocks."""
    return _bindings(tree).get(name)


@cache
def _bindings(tree: ast.Module) -> dict[str, ast.stmt]:
    """Name -> the last top-level statement of a module that binds it (built once per parsed module)."""
    found: dict[str, ast.stmt] = {}
    for node in _flat(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] = node
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                if a.name != "*":
                    found[a.asname or a.name.split(".")[0]] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    found[target.id] = node
    return found


@cache
def _declared_all(tree: ast.Module) -> set[str]:
    """The string names of a module's ``__all__`` (``=``, ``+=``, ``.extend``/``.append`` of literals)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        value = None
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                value = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("extend", "append") \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "__all__" and node.args:
            value = node.args[0]
        if isinstance(value, (ast.List, ast.Tuple)):
            names |= {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            names.add(value.value)
    return names



def _documented_alias(node: ast.stmt) -> str | None:
    """``x = _add_docstr(a.b.c, "...")`` -> ``a.b.c`` (torch gives its C functions docstrings this way)."""
    value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
    if isinstance(value, ast.Call) and value.args:
        func = value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", "")
        parts = []
        target = value.args[0]
        while isinstance(target, ast.Attribute):
            parts.append(target.attr)
            target = target.value
        if func.endswith("add_docstr") and isinstance(target, ast.Name):
            return ".".join([target.id, *reversed(parts)])
    return None


def forwards_unchanged(decorator: ast.FunctionDef) -> bool:
    """Whether a decorator's wrapper calls the wrapped function (a parameter of the decorator or of a function
    around the wrapper) with its own ``*args, **kwargs`` (after ``self``, at most) and never changes them."""
    params = {a.arg for n in ast.walk(decorator) if isinstance(n, (ast.FunctionDef, ast.Lambda)) for a in n.args.args}
    for wrapper in ast.walk(decorator):
        if not isinstance(wrapper, ast.FunctionDef) or wrapper is decorator or not (wrapper.args.vararg and wrapper.args.kwarg):
            continue
        star, double = wrapper.args.vararg.arg, wrapper.args.kwarg.arg
        for node in ast.walk(wrapper):
            if isinstance(node, ast.Name) and node.id in (star, double) and not isinstance(node.ctx, ast.Load):
                return False  # rebinds them
            if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name) and \
                    node.value.id in (star, double) and (not isinstance(node.ctx, ast.Load) or
                                                         getattr(node, "attr", "") in ("pop", "update", "setdefault", "clear", "popitem")):
                return False  # changes them
        for node in ast.walk(wrapper):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in params:
                args, kws = node.args, node.keywords
                plain = [a for a in args if not isinstance(a, ast.Starred)]
                if len(plain) <= 1 and len(args) == len(plain) + 1 and isinstance(args[-1], ast.Starred) and \
                        isinstance(args[-1].value, ast.Name) and args[-1].value.id == star and len(kws) == 1 and \
                        kws[0].arg is None and isinstance(kws[0].value, ast.Name) and kws[0].value.id == double:
                    return True
    return False


def _overloads(body: list[ast.stmt], name: str, drop_first: bool = False) -> list[Signature]:
    """The signatures of every ``@overload def name`` of a module or class body (with the implementation, if any)."""
    defs = [n for n in _flat(body) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]
    if not any(_decorator_names(d) & {"overload"} for d in defs):
        return []
    sigs = [from_def(d, drop_first) for d in defs]
    return [] if any(s is None for s in sigs) else sigs


def _decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    return {(d.func if isinstance(d, ast.Call) else d).attr if isinstance(d.func if isinstance(d, ast.Call) else d,
                                                                          ast.Attribute)
            else getattr(d.func if isinstance(d, ast.Call) else d, "id", "") for d in node.decorator_list}


def _flat(body):
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            for part in ("body", "orelse", "finalbody"):
                yield from _flat(getattr(node, part, []))
            for handler in getattr(node, "handlers", []):
                yield from _flat(handler.body)


def _class_member(cls: ast.ClassDef, name: str):
    found = None
    for node in _flat(cls.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node
    return found


# --- where the trees come from ----------------------------------------------------------------------------


def _module_of(path: str) -> str | None:
    if not path.endswith(".py"):
        return None
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_package(path: str) -> bool:
    return path.endswith("/__init__.py")


_OPS_YAML = re.compile(r"^torch_npu/csrc/aten/npu_native_functions[^/]*\.ya?ml$")
_EXTENSION = re.compile(r"^(torch_npu/.+?)\.(?:cpython-[^/]*|abi3)\.(?:so|pyd)$")


def torch_npu_tree(wheel: Path, cache_dir: Path) -> SourceTree:
    """The torch_npu wheel's Python sources and operator schemas (schemas cached as JSON beside the wheel)."""
    sources: dict[str, str] = {}
    packages: set[str] = set()
    schemas: dict[str, list[Signature]] = {}
    extensions: set[str] = set()
    with zipfile.ZipFile(wheel) as zf:
        version = wheel.name.split("-")[1]
        for name in zf.namelist():
            if _EXTENSION.match(name):
                extensions.add(_EXTENSION.match(name).group(1).replace("/", "."))
            module = _module_of(name)
            if module and name.startswith("torch_npu/"):
                sources[module] = zf.read(name).decode("utf-8", "replace")
                if _is_package(name):
                    packages.add(module)
            elif _OPS_YAML.match(name):
                section = None
                for line in zf.read(name).decode("utf-8", "replace").splitlines():
                    if line and not line[0].isspace() and not line.startswith(("-", "#")):
                        section = line.split(":", 1)[0].strip()
                    elif section in ("custom", "official", "supported") or section is None:
                        parsed = from_schema(line) if section == "custom" else None
                        if parsed:
                            schemas.setdefault(parsed[0], []).append(parsed[1])
    # torchair / npugraph_ex are importable by these names (torch_npu/dynamo/__init__.py)
    for short in ("torchair", "npugraph_ex"):
        prefix = f"torch_npu.dynamo.{short}"
        for module in [m for m in sources if m == prefix or m.startswith(prefix + ".")]:
            sources[short + module[len(prefix):]] = sources[module]
            if module in packages:
                packages.add(short + module[len(prefix):])
    tree = SourceTree("torch_npu", version, sources, packages, schemas)
    tree.extensions = extensions
    return tree


@cache
def _parsed_file(path: Path) -> ast.Module | None:
    """An installed package's module, parsed (None where it does not parse); the files do not change while we run."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    return _parsed(text)


def _parsed(text: str) -> ast.Module | None:
    """A module's source parsed, its syntax warnings (invalid escapes in old sources) silenced; None where it does not
    parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except SyntaxError:
        return None


class _Files(dict):
    """module -> source text, read from its file on first use (torch has 2,000 modules; a cell touches a few)."""

    def __getitem__(self, module: str) -> str:
        value = super().__getitem__(module)
        if isinstance(value, Path):
            try:
                value = value.read_text(encoding="utf-8", errors="replace")
            except OSError:
                value = ""
            self[module] = value
        return value

    def get(self, module: str, default=None):
        return self[module] if module in self else default


def installed_tree(package: str, distribution: str, pinned: str | tuple[str, ...]) -> SourceTree | str:
    """The installed package's sources (``.py``; ``.pyi`` stubs of C extensions where no ``.py`` exists) when its
    version is ``pinned`` (or one of them; a local label such as ``+cpu`` aside); otherwise the reason, a string."""
    pins = (pinned,) if isinstance(pinned, str) else pinned
    try:
        version = metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return t("lint.tree.not_installed", distribution=distribution)
    if version.split("+")[0] not in pins:
        return t("lint.tree.other_version", distribution=distribution, version=version, pins=t("lint.or").join(pins))
    spec = util.find_spec(package) if "." not in package else None
    if spec is None or not spec.submodule_search_locations:
        return t("lint.tree.no_sources", package=package)
    root = Path(list(spec.submodule_search_locations)[0])
    sources, packages, extensions, stubs = _Files(), set(), set(), {}
    for folder, _, files in os.walk(root):
        for f in files:
            if f.endswith((".so", ".pyd")):  # mindspore/_c_expression.cpython-311-x86_64-linux-gnu.so
                rel = (Path(folder) / f.split(".", 1)[0]).relative_to(root.parent).as_posix()
                extensions.add(rel.replace("/", "."))
            elif f.endswith((".py", ".pyi")):
                rel = (Path(folder) / f).relative_to(root.parent).as_posix()
                module = _module_of(rel.removesuffix("i"))
                if module:
                    if f in ("__init__.py", "__init__.pyi"):
                        packages.add(module)
                    (stubs if f.endswith(".pyi") else sources)[module] = Path(folder) / f
    stub_only = {m for m in stubs if m not in sources}
    for module in stub_only:  # torch/_C/_VariableFunctions.pyi: the signatures of torch.ones & co.
        sources[module] = stubs[module]
    tree = SourceTree(package, version, sources, packages)
    tree.extensions = extensions
    tree.stub_modules = stub_only
    return tree


def stub_tree(path: Path) -> SourceTree:
    """A SourceTree from committed stubs (npulab/data/signature_stubs/*.json, scripts/extract_signature_stubs.py)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    sources, packages = {}, set()
    for file, text in data["files"].items():
        module = _module_of(file)
        if module:
            sources[module] = text
            if _is_package(file):
                packages.add(module)
    root = next(iter(sources)).split(".")[0]
    tree = SourceTree(root, data["version"], sources, packages)
    tree.package = data["package"]
    return tree


def schemas_json(tree: SourceTree) -> str:
    """The operator schemas as JSON (for tests and inspection)."""
    return json.dumps({"format": FORMAT, "version": tree.version,
                       "schemas": {k: [asdict(s) for s in v] for k, v in tree.schemas.items()}})
