"""lint-npu, environment-variable values: the literal value a cell or a lesson gives a documented variable must fit the
grammar its documentation gives (``values`` of npulab/data/env_vars.yaml, checked by
npulab.env.value_grammar). Found in ``os.environ[X] = v``, ``os.environ.setdefault``, ``os.putenv``,
``os.environ.update``, ``env={…}``, ``%env`` / ``%set_env`` lines, ``export X=v`` and ``X=v cmd`` in shell lines.
Values the cell computes (``{x}``, ``$X``, ``<…>``) are not checked.
"""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass

from npulab.core.i18n import t
from npulab.core.words import joined

_PLACEHOLDER = re.compile(r"[{}$<>`]|\.\.\.|…")
_SHELL_SET = re.compile(r"(?:^|[\s;&|(])(?:export\s+)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=(\"[^\"]*\"|'[^']*'|[^\s;&|)]*)")
_MAGIC = re.compile(r"^\s*%(?:env|set_env)\s+([A-Za-z_][A-Za-z0-9_]*)(?:=|\s+)(.*?)\s*$")


@dataclass(frozen=True)
class Setting:
    """One variable set to one literal value (``line`` counts from 1 in the cell)."""

    line: int
    name: str
    value: str
    python_type: str = "str"  # a Python literal of another type: os.environ refuses it (TypeError)


def python_settings(tree: ast.Module) -> list[Setting]:
    """``os.environ[X] = v``, ``os.environ.setdefault(X, v)``, ``os.putenv(X, v)``, ``os.environ.update({X: v})``,
    ``env={X: v}``, ``dict(os.environ, X=v)`` and the same on a copy of os.environ — with constant strings (or
    numbers) for name and value."""
    out = []
    copies = _environ_copies(tree)

    def _is_environ(node: ast.AST) -> bool:
        return _is_os_environ(node) or (isinstance(node, ast.Name) and node.id in copies)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" \
                and node.args and _is_environ(node.args[0]):  # dict(os.environ, HCCL_IF_IP="…")
            out += [Setting(node.lineno, kw.arg, v, type(kw.value.value).__name__) for kw in node.keywords
                    if kw.arg and (v := _text(kw.value)) is not None]
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and _is_environ(node.targets[0].value):
            out += _pair(node.lineno, node.targets[0].slice, node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            func = node.func
            if func.attr == "setdefault" and _is_environ(func.value) and len(node.args) == 2:
                out += _pair(node.lineno, *node.args)
            elif func.attr == "putenv" and isinstance(func.value, ast.Name) and func.value.id == "os" and len(node.args) == 2:
                out += _pair(node.lineno, *node.args)
            elif func.attr == "update" and _is_environ(func.value):
                for arg in node.args:
                    if isinstance(arg, ast.Dict):
                        out += [s for k, v in zip(arg.keys, arg.values, strict=True) if k is not None
                                for s in _pair(node.lineno, k, v)]
                out += [Setting(node.lineno, kw.arg, v, type(kw.value.value).__name__) for kw in node.keywords
                        if kw.arg and (v := _text(kw.value)) is not None]
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg == "env" and isinstance(kw.value, ast.Dict):
                    out += [s for k, v in zip(kw.value.keys, kw.value.values, strict=True) if k is not None
                            for s in _pair(node.lineno, k, v)]
    return out


def _is_os_environ(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
        and node.value.id == "os"


def _environ_copies(tree: ast.Module) -> set[str]:
    """Names a cell binds to a copy of the environment: ``env = os.environ.copy()``, ``dict(os.environ)``,
    ``{**os.environ}`` (what it sets in them is what the child process gets)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            copied = (isinstance(value, ast.Call) and ((isinstance(value.func, ast.Attribute) and value.func.attr == "copy"
                                                       and _is_os_environ(value.func.value))
                                                      or (isinstance(value.func, ast.Name) and value.func.id == "dict"
                                                          and value.args and _is_os_environ(value.args[0])))) \
                or (isinstance(value, ast.Dict) and any(k is None and _is_os_environ(v)
                                                        for k, v in zip(value.keys, value.values, strict=True)))
            if copied:
                names.add(node.targets[0].id)
    return names


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)):
        return str(node.value)
    return None


def _pair(line: int, key: ast.AST, value: ast.AST) -> list[Setting]:
    name, text = _text(key), _text(value)
    if not name or text is None:
        return []
    return [Setting(line, name, text, type(value.value).__name__)]


def magic_settings(source: str) -> list[Setting]:
    """``%env X=v`` and ``%set_env X v`` lines of a cell."""
    out = []
    for number, line in enumerate(source.splitlines(), start=1):
        found = _MAGIC.match(line)
        if found:
            out.append(Setting(number, found.group(1), _unquote(found.group(2))))
    return out


def shell_settings(lines: list[tuple[int, str]]) -> list[Setting]:
    """``export X=v`` and ``X=v command`` in shell lines (``!`` lines, ``%%bash`` bodies, markdown shell blocks)."""
    out = []
    for number, text in lines:
        for found in _SHELL_SET.finditer(text):
            out.append(Setting(number, found.group(1), _unquote(found.group(2))))
    return out


def _unquote(value: str) -> str:
    value = value.strip()
    try:
        parts = shlex.split(value) if value else [""]
    except ValueError:
        return value.strip("'\"")
    return parts[0] if len(parts) == 1 else value


def checkable(value: str) -> bool:
    """Whether a value is a literal (not a placeholder or substitution)."""
    return bool(value) and not _PLACEHOLDER.search(value)


def type_message(setting: Setting) -> str:
    """The finding's sentence for a value that is not a string: os.environ (and subprocess's env) refuse it."""
    return t("lint.env.not_a_string", line=setting.line, name=setting.name, type=setting.python_type,
             value=setting.value, fix=setting.value if setting.python_type != "bool" else int(setting.value == "True"))


def unmet_requirements(settings: list[Setting], grammars: dict, set_before: set[str] | None = None
                       ) -> list[tuple[Setting, Setting | None, dict]]:
    """(setting, the other variable's setting, the spec) where a variable documented to take effect only while another
    has given values (a spec's ``requires: {name, enum}``, or ``{name, items}``: ``key:value`` items the other's
    comma-separated value must hold) is set away from its documented ``default`` and the same
    cell sets that other variable to a literal outside those values (PER_STREAM_QUEUE=1 with TASK_QUEUE_ENABLE=0).
    A requirement marked ``enabled: true`` names a variable that is off until it is set ("takes effect only when
    DUMP_GE_GRAPH is enabled"): given ``set_before``, the names the notebook's earlier cells set, a cell that sets the
    variable while neither it nor an earlier cell sets the other is reported too (the other's setting is then None)."""
    given = {s.name: s for s in settings if checkable(s.value)}
    named = {s.name for s in settings}
    out = []
    for setting in given.values():
        spec = grammars.get(setting.name) or {}
        needed = spec.get("requires")
        if not needed or setting.value == str(spec.get("default")):
            continue
        other = given.get(needed["name"])
        if other is None:
            if needed.get("enabled") and set_before is not None and needed["name"] not in named | set_before:
                out.append((setting, None, spec))
            continue
        if "items" in needed:  # key:value items the other must hold (PYTORCH_NPU_ALLOC_CONF=expandable_segments:True)
            unmet = not set(needed["items"]) <= {i.strip() for i in other.value.split(",")}
        else:
            unmet = other.value not in [str(v) for v in needed["enum"]]
        if unmet:
            out.append((setting, other, spec))
    return out


def requirement_message(setting: Setting, other: Setting | None, spec: dict, source: str) -> str:
    """The finding's sentence for a variable whose companion is set so that it cannot take effect, or not set at all."""
    needed = joined([str(v) for v in spec["requires"].get("items") or spec["requires"]["enum"]])
    if other is None:
        return t("lint.env.requires_unset", line=setting.line, name=setting.name, value=setting.value,
                 other=spec["requires"]["name"], needed=needed, source=source)
    return t("lint.env.requires", line=setting.line, name=setting.name, value=setting.value, other=other.name,
             other_value=other.value, needed=needed, source=source)


def message(setting: Setting, why: str, source: str) -> str:
    """The finding's sentence."""
    return t("lint.env.bad_value", line=setting.line, name=setting.name, value=setting.value, why=why, source=source)
