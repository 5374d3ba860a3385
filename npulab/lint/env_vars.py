"""lint-npu, environment variables: every Ascend-family variable a cell sets (or reads) or a lesson tells the learner
to set must be known to the release it is taught for — found in the pinned torch_npu wheel (Python sources and the
strings of its shared libraries) or listed, with source and CANN version range, in npulab/data/env_vars.yaml.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env.pypi import version_key
from npulab.lint.words import code, guess_end

TABLE = DATA_DIR / "env_vars.yaml"
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
    """The data table of documented variables."""
    return load_yaml(TABLE)


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


class EnvChecker:
    """Decides whether a variable is known: wheel strings (lazy) or the CANN table."""

    def __init__(self, cann: str, wheel_tokens, data: dict | None = None):
        self.cann, self._wheel_tokens, self.data = cann, wheel_tokens, data or table()
        self._tokens: set[str] | None = None

    def tokens(self) -> set[str]:
        if self._tokens is None:
            self._tokens = set(self._wheel_tokens())
        return self._tokens

    def problem(self, name: str, torch_npu: str) -> str | None:
        """Why ``name`` is not known; None when it is (or is not an Ascend-family name)."""
        if not is_checked(name, self.data["families"]):
            return None
        from npulab.lint.features import feature_names

        if name in feature_names("env") | feature_names("env_value"):
            return None  # a variable of a given release: the feature check reports it, with its "since"
        ok, why = documented(name, self.cann, self.data)
        if ok:
            return None
        if not why and name in self.tokens():
            return None
        known = {v["name"] for v in self.data["variables"]} | {t for t in self.tokens()
                                                               if is_checked(t, self.data["families"])}
        guesses = difflib.get_close_matches(name, sorted(known), n=2, cutoff=0.8)
        reason = why or t("lint.env.nowhere", torch_npu=torch_npu, cann=self.cann)
        return t("lint.env.unknown", name=name, reason=reason) + guess_end(code(guesses))
