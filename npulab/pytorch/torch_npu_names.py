"""The names torch_npu really has: fetch the pinned wheel with pip and index it without importing it.

``import torch_npu`` needs CANN, so the wheel is read as a zip: every ``torch_npu/**/*.py`` is parsed
with ``ast`` and the operator registry (``csrc/aten/npu_native_functions*.yaml``, whose ``custom`` ops
torch_npu exports as ``torch_npu.<op>``) is added. The index is cached as JSON next to the wheel.

A *ref* names where a binding points: ``""`` is opaque (a function, a value, something outside
torch_npu: any attribute below it is accepted), ``"torch_npu.npu"`` is a namespace (module or class)
and ``"torch_npu.npu:streams.Stream"`` means "look ``streams.Stream`` up inside ``torch_npu.npu``".
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.cli import UsageError
from npulab.core.i18n import t

PACKAGE = "torch_npu"
INDEX_FORMAT = 2
OPAQUE = ""
# top-level modules torch_npu registers in sys.modules on import (torch_npu/dynamo/__init__.py: ``import torchair``
# and ``import npugraph_ex`` work after ``import torch_npu``); their own sources import themselves by these names
TOP_LEVEL = {"torchair": f"{PACKAGE}.dynamo.torchair", "npugraph_ex": f"{PACKAGE}.dynamo.npugraph_ex"}
_PIN = re.compile(r"^torch[-_]npu\s*==\s*([\w.+!-]+)\s*$", re.IGNORECASE)
_EXTENSION = re.compile(r"^(torch_npu/.+?)\.(?:cpython-[^/]*|abi3)\.(?:so|pyd)$")
_OPS_YAML = re.compile(r"^torch_npu/csrc/aten/npu_native_functions[^/]*\.ya?ml$")
_OP_NAME = re.compile(r"^\s*-?\s*func:\s*(\w+)", re.MULTILINE)
_PY_VERSIONS = ("3.11", "3.10", "3.12", "3.9")  # the course's Python first; old pins lack cp311 wheels
_PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")


# --- where the wheel comes from ---------------------------------------------------------------------


def default_cache_dir() -> Path:
    """``$NPULAB_CACHE`` or ``~/.cache/npulab/torch_npu``."""
    env = os.environ.get("NPULAB_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "npulab" / "torch_npu"


def pinned_version(requirements: Path) -> str:
    """The ``torch-npu==X`` pin of a requirements file; UsageError when missing."""
    try:
        lines = requirements.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise UsageError(t("pt.lint_unreadable", path=requirements, error=err.strerror)) from None
    for line in lines:
        match = _PIN.match(line.split("#", 1)[0].strip())
        if match:
            return match.group(1)
    raise UsageError(t("pt.lint_no_pin", path=requirements))


def download_wheel(version: str, dest: Path) -> Path:
    """Download the torch_npu wheel of ``version`` into ``dest`` with pip; UsageError when that fails."""
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(t("pt.lint_cache_dir", path=dest, error=err.strerror)) from None
    platforms = [arg for plat in _PLATFORMS for arg in ("--platform", plat)]
    detail = ""
    with tempfile.TemporaryDirectory(dir=dest) as tmp:
        for python in _PY_VERSIONS:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
                   "--retries", "1", "--timeout", "20", "--python-version", python, *platforms,
                   f"torch-npu=={version}", "-d", tmp]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            wheels = sorted(Path(tmp).glob("torch_npu-*.whl"))
            if proc.returncode == 0 and wheels:
                return Path(shutil.move(wheels[0], dest / wheels[0].name))
            output = proc.stderr or proc.stdout
            detail = (output.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
            if "Retrying" in output or "onnection" in output:
                break  # the network, not the Python version: trying other versions will not help
    cmd_hint = (f"python -m pip download --no-deps --only-binary=:all: --python-version 3.11 "
                f"--platform {_PLATFORMS[0]} torch-npu=={version} -d {dest}")
    raise UsageError(t("pt.lint_download_failed", version=version, detail=detail, command=cmd_hint, path=dest))


def torch_npu_path(dotted: str) -> str | None:
    """``torch.npu.x`` -> ``torch_npu.npu.x`` (torch_npu installs itself as torch.npu), ``torchair.x`` ->
    ``torch_npu.dynamo.torchair.x`` (likewise ``npugraph_ex``); None outside torch_npu."""
    if dotted == "torch.npu" or dotted.startswith("torch.npu."):
        return f"{PACKAGE}{dotted[len('torch'):]}"
    head, dot, rest = dotted.partition(".")
    if head in TOP_LEVEL:
        return TOP_LEVEL[head] + dot + rest
    return dotted if dotted == PACKAGE or dotted.startswith(f"{PACKAGE}.") else None


def pinned_index(cache_dir: Path | None = None) -> SymbolIndex:
    """The index of the torch-npu version pinned in the repository's requirements-npu.txt."""
    from npulab.core.paths import REPO_ROOT

    return load_index(pinned_version(REPO_ROOT / "requirements-npu.txt"), cache_dir)


def load_index(version: str, cache_dir: Path | None = None) -> SymbolIndex:
    """The index of torch_npu ``version``: cached JSON, else built from the cached or downloaded wheel."""
    cache_dir = cache_dir or default_cache_dir()
    cached = cache_dir / f"torch_npu-{version}.symbols.json"
    if cached.is_file():
        try:
            data = json.loads(cached.read_text(encoding="utf-8"))
            if data.get("format") == INDEX_FORMAT:
                return SymbolIndex.from_json(data)
        except (OSError, ValueError):
            pass  # a broken cache is rebuilt below
    wheels = sorted(cache_dir.glob(f"torch_npu-{version}-*.whl"))
    wheel = wheels[0] if wheels else download_wheel(version, cache_dir)
    try:
        index = build_index(wheel)
    except (zipfile.BadZipFile, OSError) as err:
        raise UsageError(t("pt.lint_bad_wheel", wheel=wheel, error=err)) from None
    tmp = cached.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(index.to_json(), ensure_ascii=False, sort_keys=True), encoding="utf-8")
        os.replace(tmp, cached)
    except OSError:
        pass  # a read-only cache only costs the next run a rebuild
    return index


# --- the index ----------------------------------------------------------------------------------------


@dataclass
class Namespace:
    """A module or class: its names (name -> ref) and where else members come from."""

    kind: str  # "module" or "class"
    names: dict[str, str] = field(default_factory=dict)
    star: list[str] = field(default_factory=list)  # modules star-imported into a module
    bases: list[str] = field(default_factory=list)  # refs of a class's bases
    all: list[str] | None = None  # a module's literal __all__
    open: bool = False  # __getattr__, a metaclass, a compiled module: any member may exist

    def bind(self, name: str, ref: str) -> None:
        """Bind ``name``; two different bindings (if/else, try/except) make it opaque."""
        self.names[name] = ref if self.names.get(name, ref) == ref else OPAQUE


@dataclass
class Missing:
    """``prefix.name`` does not exist; ``suggestions`` are the closest real members of ``prefix``."""

    prefix: str
    name: str
    suggestions: list[str]


class SymbolIndex:
    """Namespaces of the torch_npu package tree plus its registered operators."""

    def __init__(self, version: str, namespaces: dict[str, Namespace], ops: list[str], stats: dict[str, int]):
        self.version, self.namespaces, self.ops, self.stats = version, namespaces, ops, stats
        self._children: dict[str, list[str]] = {}
        for qual in namespaces:
            parent, _, child = qual.rpartition(".")
            if parent in namespaces and namespaces[parent].kind == "module":
                self._children.setdefault(parent, []).append(child)

    # lookups; ``seen`` cuts cycles (import loops, star-import loops) by answering "opaque"
    def member(self, ns_name: str, name: str, seen: set | None = None) -> str | None:
        """The ref of ``ns_name.name``; None when it does not exist."""
        seen = set() if seen is None else seen
        if (ns_name, name) in seen or len(seen) > 200:
            return OPAQUE
        seen.add((ns_name, name))
        ns = self.namespaces[ns_name]
        if ns.names.get(name, f"{ns_name}:{name}") != f"{ns_name}:{name}":  # ``from . import x`` means the submodule
            return ns.names[name]
        if name.startswith("__") and name.endswith("__"):
            return OPAQUE  # __file__, __name__, __init__, ...: every module and class has some
        if ns.kind == "module":
            if f"{ns_name}.{name}" in self.namespaces:
                return f"{ns_name}.{name}"
            for star in ns.star:
                source = self.namespaces.get(star)
                if source is None:
                    return OPAQUE
                exported = name in source.all if source.all is not None else not name.startswith("_")
                found = self.member(star, name, seen) if exported else None
                if found is not None:
                    return found
        else:
            for base in ns.bases:
                target = self.target(base, seen)
                if target is None or target == OPAQUE or self.namespaces[target].kind != "class":
                    return OPAQUE  # a base from outside torch_npu may bring any member
                found = self.member(target, name, seen)
                if found is not None:
                    return found
        return OPAQUE if ns.open else None

    def target(self, ref: str, seen: set | None = None) -> str | None:
        """The namespace a ref points to, OPAQUE, or None when the chain is broken."""
        seen = set() if seen is None else seen
        head, _, chain = ref.partition(":")
        if head not in self.namespaces:
            return OPAQUE  # "" or a module the wheel does not ship as Python
        current: str | None = head
        for part in chain.split(".") if chain else ():
            found = self.member(current, part, seen)
            if found is None:
                return None
            current = self.target(found, seen)
            if current is None or current == OPAQUE:
                return current
        return current

    def members(self, ns_name: str, depth: int = 0) -> set[str]:
        """Every member name of a namespace (for suggestions)."""
        ns = self.namespaces[ns_name]
        names = set(ns.names) | set(self._children.get(ns_name, ()))
        if depth < 5:
            for source in ns.star:
                if source in self.namespaces:
                    exported = self.namespaces[source].all
                    names |= {n for n in self.members(source, depth + 1)
                              if (n in exported if exported is not None else not n.startswith("_"))}
            for base in ns.bases:
                target = self.target(base)
                if target and target != OPAQUE:
                    names |= self.members(target, depth + 1)
        return names

    def resolve(self, dotted: str) -> str | None:
        """The torch_npu path a name stands for (``torch.npu.x`` is torch_npu.npu.x); None when it does not exist.

        Names below something the wheel cannot tell about (a C extension, a value) count as existing.
        """
        path = torch_npu_path(dotted)
        return path if path and self.missing(path) is None else None

    def elsewhere(self, name: str, limit: int = 3) -> list[str]:
        """Public modules of the package that do have ``name`` (``npu_rms_norm`` is torch_npu.npu_rms_norm, not
        torch_npu.contrib.npu_rms_norm), shortest path first."""
        found = [f"{PACKAGE}.{name}"] if name in self.ops else []  # operators are torch_npu.<op>
        for qual in sorted(self.namespaces, key=lambda q: (q.count("."), q)):
            if self.namespaces[qual].kind == "module" and not any(p.startswith("_") for p in qual.split(".")) \
                    and self.member(qual, name) not in (None, OPAQUE):
                found.append(f"{qual}.{name}")
        return list(dict.fromkeys(found))[:limit]

    def missing(self, dotted: str) -> Missing | None:
        """What is missing from a torch_npu name, with the closest real names; None when nothing is."""
        parts = (torch_npu_path(dotted) or "").split(".")
        if parts[0] != PACKAGE:
            return None
        current = PACKAGE
        for i, part in enumerate(parts[1:], start=1):
            found = self.member(current, part)
            if found is None:
                candidates = self.members(current)
                if not part.startswith("_"):
                    candidates = {c for c in candidates if not c.startswith("_")}
                close = difflib.get_close_matches(part, sorted(candidates), n=3, cutoff=0.6)
                return Missing(".".join(parts[:i]), part, close)
            current = self.target(found)
            if current is None or current == OPAQUE:
                return None
        return None

    def to_json(self) -> dict:
        """A JSON-ready dict; ``from_json`` reads it back."""
        spaces = {}
        for qual, ns in self.namespaces.items():
            entry: dict = {"kind": ns.kind, "names": ns.names}
            entry.update({key: getattr(ns, key) for key in ("star", "bases", "open") if getattr(ns, key)})
            if ns.all is not None:
                entry["all"] = ns.all
            spaces[qual] = entry
        return {"format": INDEX_FORMAT, "torch_npu_version": self.version, "stats": self.stats, "ops": self.ops,
                "namespaces": spaces}

    @classmethod
    def from_json(cls, data: dict) -> SymbolIndex:
        """Read an index written by ``to_json``."""
        spaces = {qual: Namespace(**entry) for qual, entry in data["namespaces"].items()}
        return cls(data["torch_npu_version"], spaces, data["ops"], data["stats"])


# --- building the index from the wheel -------------------------------------------------------------------


def build_index(wheel: Path) -> SymbolIndex:
    """Parse a torch_npu wheel (read as a zip, never imported) into a SymbolIndex."""
    spaces: dict[str, Namespace] = {}
    pending: list[tuple[str, str]] = []  # (target ref, name) set from elsewhere: ``torch_npu.X = ...``
    reads: list[tuple[str, list[str]]] = []  # (ref, chain) the package's own code reads
    ops: set[str] = set()
    stats = {"python_files": 0, "unparsed_files": 0, "extension_modules": 0}
    with zipfile.ZipFile(wheel) as zf:
        version = _wheel_version(wheel, zf)
        for info in zf.infolist():
            path = info.filename
            if path.startswith(f"{PACKAGE}/") and path.endswith(".py"):
                stats["python_files"] += 1
                module, is_pkg = _module_name(path)
                for parent in _parents(module):
                    spaces.setdefault(parent, Namespace("module"))
                text = zf.read(info).decode("utf-8", "replace")
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        tree = ast.parse(text, filename=path)
                except SyntaxError:
                    stats["unparsed_files"] += 1
                    spaces[module] = Namespace("module", open=True)
                    continue
                reader = _ModuleReader(module, is_pkg, spaces)
                reader.read(tree)
                pending += reader.pending
                reads += reader.reads
                ops |= reader.ops
            elif _EXTENSION.match(path):
                stats["extension_modules"] += 1
                module = _EXTENSION.match(path).group(1).replace("/", ".")
                for parent in _parents(module):
                    spaces.setdefault(parent, Namespace("module"))
                spaces[module] = Namespace("module", open=True)
            elif _OPS_YAML.match(path):
                ops |= _yaml_ops(zf.read(info).decode("utf-8", "replace"))
    spaces.setdefault(PACKAGE, Namespace("module"))
    index = SymbolIndex(version, spaces, sorted(ops), stats)
    for ref, name in pending:  # torch_npu.npu_xxx = torch.ops.npu.npu_xxx, setattr(torch_npu, "x", ...)
        target = index.target(ref)
        if target:
            spaces[target].names.setdefault(name, OPAQUE)
    for op in ops:  # torch_npu exports every torch.ops.npu operator as torch_npu.<op>
        spaces[PACKAGE].names.setdefault(op, OPAQUE)
    stats["observed_names"] = sum(_observe(index, ref, chain) for ref, chain in reads)
    stats.update(modules=sum(ns.kind == "module" for ns in spaces.values()),
                 classes=sum(ns.kind == "class" for ns in spaces.values()),
                 names=sum(len(ns.names) for ns in spaces.values()), ops=len(index.ops))
    return index


def _observe(index: SymbolIndex, ref: str, chain: list[str]) -> bool:
    """Accept a module attribute the package's own code reads but C++ defines (torch_npu.hifloat8)."""
    current = index.target(ref)
    for part in chain:
        if not current:
            return False
        found = index.member(current, part)
        if found is None:
            if index.namespaces[current].kind != "module":
                return False
            index.namespaces[current].names[part] = OPAQUE
            return True
        current = index.target(found)
    return False


def _wheel_version(wheel: Path, zf: zipfile.ZipFile) -> str:
    for name in zf.namelist():
        if name.endswith(".dist-info/METADATA"):
            for line in zf.read(name).decode("utf-8", "replace").splitlines():
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    return wheel.name.split("-")[1] if wheel.name.count("-") >= 2 else "unknown"


def _module_name(path: str) -> tuple[str, bool]:
    parts = path[: -len(".py")].split("/")
    is_pkg = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_pkg else parts), is_pkg


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _yaml_ops(text: str) -> set[str]:
    """Operator names of the ``custom`` section of an op-plugin yaml (the ops of torch.ops.npu)."""
    ops: set[str] = set()
    section = None
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith(("-", "#")):
            section = line.split(":", 1)[0].strip()
        elif section == "custom":
            ops.update(_OP_NAME.findall(line))
    return ops


def dotted_parts(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ["a", "b", "c"]; None for anything else (calls, subscripts)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def dotted_name(node: ast.AST) -> str | None:
    """``a.b.c`` as the string "a.b.c"; None for anything else (calls, subscripts)."""
    parts = dotted_parts(node)
    return ".".join(parts) if parts else None


class _ModuleReader:
    """Reads one module's AST into namespaces; collects cross-module assignments and reads."""

    def __init__(self, module: str, is_pkg: bool, spaces: dict[str, Namespace]):
        self.module, self.spaces = module, spaces
        self.package = module if is_pkg else module.rpartition(".")[0]
        self.pending: list[tuple[str, str]] = []
        self.reads: list[tuple[str, list[str]]] = []
        self.aliases: dict[str, str] = {}  # names bound to torch_npu modules anywhere in the file
        self.strings: dict[str, list[str]] = {}  # module-level NAME = "x" / ["a", "b"]
        self.libraries: set[str] = set()  # names bound to torch.library.Library("npu", ...)
        self.ops: set[str] = set()  # operators this file defines or exports from torch.ops.npu

    def read(self, tree: ast.Module) -> None:
        ns = self.spaces.setdefault(self.module, Namespace("module"))
        self.block(tree.body, ns, self.module)
        if ns.all:
            for name in ns.all:
                ns.names.setdefault(name, OPAQUE)
        self.collect(tree)

    def block(self, body: list[ast.stmt], ns: Namespace, qual: str) -> None:
        for stmt in body:
            self.statement(stmt, ns, qual)

    def statement(self, stmt: ast.stmt, ns: Namespace, qual: str) -> None:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ns.bind(stmt.name, OPAQUE)
            if stmt.name in ("__getattr__", "__getattribute__") or (ns.kind == "class" and stmt.name == "__dir__"):
                ns.open = True
            if ns.kind == "module":  # ``global x`` inside a function binds a module name when it runs
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Global):
                        for name in node.names:
                            ns.names.setdefault(name, OPAQUE)
        elif isinstance(stmt, ast.ClassDef):
            cls_qual = f"{qual}.{stmt.name}"
            cls = Namespace("class", bases=[self.base_ref(b) for b in stmt.bases if not _is_object(b)])
            cls.open = bool(stmt.keywords) or any(not _keeps_members(d) for d in stmt.decorator_list)
            self.spaces[cls_qual] = cls
            ns.bind(stmt.name, cls_qual)
            self.block(stmt.body, cls, cls_qual)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for name in _bound_names(target):
                    ns.bind(name, OPAQUE)
            self.assignment(stmt, targets, ns)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for name, ref in self.imports(stmt):
                if name == "*":
                    if ref in self.spaces or ref.startswith(f"{PACKAGE}."):
                        ns.star.append(ref)
                    else:
                        ns.open = True  # star import from outside torch_npu
                else:
                    ns.bind(name, ref)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            for target in [stmt.target] if isinstance(stmt, (ast.For, ast.AsyncFor)) else \
                    [i.optional_vars for i in stmt.items if i.optional_vars]:
                for name in _bound_names(target):
                    ns.bind(name, OPAQUE)
        if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)) or \
                type(stmt).__name__ == "TryStar":
            for part in ("body", "orelse", "finalbody"):
                self.block(getattr(stmt, part, []), ns, qual)
            for handler in getattr(stmt, "handlers", []):
                self.block(handler.body, ns, qual)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                self.block(case.body, ns, qual)

    def assignment(self, stmt: ast.stmt, targets: list[ast.expr], ns: Namespace) -> None:
        """Remember ``__all__`` and module-level string constants (used by ``setattr`` loops)."""
        if ns.kind != "module" or not isinstance(stmt, ast.Assign) or len(targets) != 1:
            return
        value = stmt.value
        if isinstance(value, ast.Call) and (dotted_parts(value.func) or [""])[-1] == "Library" and value.args \
                and _strings(value.args[0], {}) == ["npu"]:
            self.libraries.update(_bound_names(targets[0]))
        strings = _strings(stmt.value, self.strings)
        if isinstance(targets[0], ast.Name) and strings is not None:
            self.strings[targets[0].id] = strings
            if targets[0].id == "__all__":
                ns.all = strings

    def imports(self, stmt: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
        """(bound name, ref) pairs of an import statement."""
        pairs = []
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                name = _in_package(alias.name)
                inside = name == PACKAGE or name.startswith(f"{PACKAGE}.")
                if alias.asname:
                    pairs.append((alias.asname, name if inside else OPAQUE))
                else:
                    root = alias.name.split(".")[0]
                    pairs.append((root, _in_package(root) if inside else OPAQUE))
            return pairs
        if stmt.level:
            base = self.package.split(".")
            base = base[: len(base) - (stmt.level - 1)]
            source = ".".join(base + ([stmt.module] if stmt.module else []))
        else:
            source = _in_package(stmt.module or "")
        inside = source == PACKAGE or source.startswith(f"{PACKAGE}.")
        for alias in stmt.names:
            if alias.name == "*":
                pairs.append(("*", source if inside else OPAQUE))
            else:
                pairs.append((alias.asname or alias.name, f"{source}:{alias.name}" if inside else OPAQUE))
        return pairs

    def base_ref(self, node: ast.expr) -> str:
        parts = dotted_parts(node)
        return f"{self.module}:{'.'.join(parts)}" if parts else OPAQUE

    def chain_ref(self, parts: list[str]) -> tuple[str, list[str]] | None:
        """Where a chain such as ``torch_npu.npu.x`` or ``torch.npu.x`` starts in the index."""
        if parts[0] == "torch" and len(parts) > 1 and parts[1] == "npu":
            return f"{PACKAGE}.npu", parts[2:]
        if parts[0] in self.aliases:
            return self.aliases[parts[0]], parts[1:]
        return None

    def collect(self, tree: ast.Module) -> None:
        """Cross-module bindings (``torch_npu.X = ...``, ``setattr(mod, "X", ...)``) and reads of torch_npu names."""
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name, ref in self.imports(node):
                    if ref and name != "*":
                        self.aliases[name] = ref
        self.visit(tree, {})

    def visit(self, node: ast.AST, loops: dict[str, list[str]]) -> None:
        """Walk the tree; ``loops`` maps loop variables to the constant strings they run over."""
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name):
            strings = _strings(node.iter, self.strings)
            if strings is not None:
                loops = {**loops, node.target.id: strings}
        value = dotted_parts(node.value) if isinstance(node, ast.Assign) else None
        if value and len(value) > 3 and value[:3] == ["torch", "ops", "npu"]:  # torch_npu.x = torch.ops.npu.x
            self.ops.add(value[3])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "define" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id in self.libraries and node.args:
            schema = _strings(node.args[0], {})
            self.ops.update(re.findall(r"^\w+", schema[0]) if schema else [])
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                parts = dotted_parts(target) if isinstance(target, ast.Attribute) else None
                start = parts and self.chain_ref(parts[:-1])
                if start:
                    self.pending.append((_join(*start), parts[-1]))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and len(node.args) == 3:
            parts = dotted_parts(node.args[0])
            start = parts and self.chain_ref(parts)
            if start:
                names = _strings(node.args[1], {**self.strings, **loops}) or []
                self.pending += [(_join(*start), name) for name in names]
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            parts = dotted_parts(node)
            start = parts and self.chain_ref(parts)
            if start and start[1]:
                self.reads.append((start[0], start[1]))
                return  # the inner attributes are prefixes of this chain
        for child in ast.iter_child_nodes(node):
            self.visit(child, loops)


def _in_package(module: str) -> str:
    """``torchair.x`` -> ``torch_npu.dynamo.torchair.x`` (TOP_LEVEL); any other module name unchanged."""
    head, dot, rest = module.partition(".")
    return TOP_LEVEL[head] + dot + rest if head in TOP_LEVEL else module


def _join(ref: str, chain: list[str]) -> str:
    if not chain:
        return ref
    return f"{ref}.{'.'.join(chain)}" if ":" in ref else f"{ref}:{'.'.join(chain)}"


def _strings(node: ast.expr, known: dict[str, list[str]]) -> list[str] | None:
    """The strings a constant expression stands for: "x", ["a", "b"], NAME, chain(A, B), A + B."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_strings(e, known) for e in node.elts]
        return None if any(i is None for i in items) else [s for i in items for s in i]
    if isinstance(node, ast.Name):
        return known.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _strings(node.left, known), _strings(node.right, known)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Call) and (dotted_parts(node.func) or [""])[-1] == "chain":
        items = [_strings(a, known) for a in node.args]
        return None if any(i is None for i in items) else [s for i in items for s in i]
    return None


def _bound_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _bound_names(e)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def _is_object(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "object"


def _keeps_members(node: ast.expr) -> bool:
    """A class decorator known to return the class itself."""
    func = node.func if isinstance(node, ast.Call) else node
    return (dotted_parts(func) or [""])[-1] in ("dataclass", "final", "total_ordering", "unique")
