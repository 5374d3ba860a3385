"""Ascend environment variables: the documented table (npulab/data/env_vars.yaml: each variable with its source and
CANN version range, and the documented values of many), the names in the strings of a torch_npu wheel, and where code
or text sets or reads a variable. lint-npu (npulab.lint.env_checker) and ``explain`` both read them.
"""

from __future__ import annotations

import ast
import json
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env.pypi import version_key

TABLE = DATA_DIR / "env_vars.yaml"
# the value sets MindSpore's environment-variable reference states, read from its every row
# (scripts/extract_mindspore_env_values.py); the hand-written ``values`` of TABLE win over them
MINDSPORE_VALUES = DATA_DIR / "env_values_mindspore.yaml"
# the value sets and pair relations the Ascend Extension for PyTorch pages and MindSpore Transformers' page state, read
# from every page and row (scripts/extract_env_value_pages.py); beneath TABLE's own too
PAGES_VALUES = DATA_DIR / "env_values_pages.yaml"
# the values each variable's own parser accepts, read from the released code (torch_npu, MindSpore, torch, msprof-analyze
# Python sources; torch_npu's c10d getCvar readers; scripts/extract_env_value_parsers.py): above MindSpore's reference,
# beneath the pages and TABLE's own
PARSERS_VALUES = DATA_DIR / "env_values_parsers.yaml"
_NAME = rb"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
_TOKEN = re.compile(rb"(?<![A-Za-z0-9_])" + _NAME + rb"(?![A-Za-z0-9_])")
# shell assignment forms: `export X=1`, `X=1 cmd`, `%env X=1`, `%set_env X 1`
_EXPORT = re.compile(r"(?:^|[\s`;&|(!])(?:export|%env|%set_env)\s+([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b", re.MULTILINE)
_SHELL_ASSIGN = re.compile(r"(?:^|[\s`;&|(!])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=", re.MULTILINE)


@dataclass(frozen=True)
class EnvUse:
    """One variable a cell or a lesson sets (``how`` says where: python / shell / markdown)."""

    line: int
    name: str
    how: str


def table() -> dict:
    """The data table of documented variables, with the value grammars read from whole reference pages beneath its own."""
    data = load_yaml(TABLE)
    pages = load_yaml(PAGES_VALUES).get("values", {})
    own = {name: {**{k: pages[name][k] for k in ("requires", "default") if k in pages.get(name, {})},
                  **({"requires_source": pages[name]["source"]} if "requires" in pages.get(name, {}) else {}), **spec}
           for name, spec in data.get("values", {}).items()}  # a page's pair relation holds beside a hand grammar
    parsers = load_yaml(PARSERS_VALUES).get("values", {})
    data["values"] = {**load_yaml(MINDSPORE_VALUES).get("values", {}),
                      **{name: _unmarked(spec) for name, spec in parsers.items()}, **pages, **own}
    for name, spec in parsers.items():
        # a reader that raises on every value outside its set is the parser's own contract: it wins over a page or
        # the hand table that says otherwise (their default, relation and unit stay)
        if spec.get("enforced") and name in data["values"]:
            kept = {k: v for k, v in data["values"][name].items()
                    if k in _BESIDE_GRAMMAR or k.startswith("unit") and "int" in spec}
            data["values"][name] = {**kept, **_unmarked(spec)}
    return data


_BESIDE_GRAMMAR = {"default", "requires", "requires_source"}


def _unmarked(spec: dict) -> dict:
    return {k: v for k, v in spec.items() if k != "enforced"}


def is_checked(name: str, families: list[str]) -> bool:
    """Only Ascend-family names are checked (PATH, MASTER_ADDR … are not this check's business)."""
    return any(name.startswith(prefix) for prefix in families)


def wheel_names(wheel: Path, cache_dir: Path) -> set[str]:
    """Upper-case ``A_B`` tokens of the wheel's Python sources and shared libraries (cached beside the wheel)."""
    cached = cache_dir / (wheel.name.rsplit(".", 1)[0] + ".envnames.json")
    try:
        return set(json.loads(cached.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        pass
    names: set[str] = set()
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            if info.filename.endswith((".py", ".so")) or ".so." in info.filename:
                names.update(m.decode() for m in _TOKEN.findall(zf.read(info)))
    tmp = cached.with_suffix(f".{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(sorted(names)), encoding="utf-8")
        os.replace(tmp, cached)
    except OSError:
        pass
    return names


def documented(name: str, cann: str, data: dict) -> tuple[bool, str]:
    """(known for CANN ``cann``, why not) from the table."""
    for var in data["variables"]:
        if var["name"] != name:
            continue
        if var.get("since") is None:
            return True, ""
        since, until = var["since"], var.get("until")
        if version_key(cann) < version_key(since):
            return False, t("lint.env.since", since=since, source=localized(var, "source"), cann=cann)
        if until and version_key(cann) > version_key(until):
            return False, t("lint.env.until", until=until, source=localized(var, "source"))
        return True, ""
    return False, ""


def python_uses(tree: ast.Module) -> list[EnvUse]:
    """``os.environ[X] = …``, ``os.environ.setdefault(X, …)``, ``os.putenv(X, …)``, ``os.environ.get(X)``,
    ``os.getenv(X)``, ``env={X: …}`` — with a constant name."""
    uses = []
    for node in ast.walk(tree):
        name = None
        if isinstance(node, ast.Subscript) and _is_environ(node.value):
            name = _const(node.slice)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("setdefault", "get", "pop") and _is_environ(func.value):
                name = _const(node.args[0]) if node.args else None
            elif isinstance(func, ast.Attribute) and func.attr == "update" and _is_environ(func.value):
                for arg in node.args:
                    if isinstance(arg, ast.Dict):
                        uses += [EnvUse(node.lineno, k.value, "python") for k in arg.keys
                                 if isinstance(k, ast.Constant) and isinstance(k.value, str)]
                uses += [EnvUse(node.lineno, kw.arg, "python") for kw in node.keywords if kw.arg]
            elif isinstance(func, ast.Attribute) and func.attr in ("putenv", "getenv", "unsetenv") and \
                    isinstance(func.value, ast.Name) and func.value.id == "os":
                name = _const(node.args[0]) if node.args else None
            for kw in node.keywords:
                if kw.arg == "env" and isinstance(kw.value, ast.Dict):
                    uses += [EnvUse(node.lineno, k.value, "python") for k in kw.value.keys
                             if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        if name:
            uses.append(EnvUse(node.lineno, name, "python"))
    return uses


def _is_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"


def _const(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def text_uses(text: str, how: str) -> list[EnvUse]:
    """Assignments in shell text or prose: ``export X=…``, ``X=… cmd``, ``%env X=…``."""
    uses = []
    for number, line in enumerate(text.splitlines(), start=1):
        names = {m.group(1) for m in _SHELL_ASSIGN.finditer(line)} | {m.group(1) for m in _EXPORT.finditer(line)}
        uses += [EnvUse(number, n, how) for n in sorted(names)]
    return uses
