"""String literals that mean CUDA: device strings, the NCCL backend, CUDA/NCCL environment variables,
NVIDIA command-line tools; and the same in shell cells of notebooks.

A string is a device string only when it *is* one (``"cuda"``, ``"cuda:1"``, ``f"cuda:{rank}"``,
``"cuda:%d"``), not when it merely contains the word; and not when it is a message (``print``,
logging, exceptions, argparse ``help=``), a docstring, or a key (``cfg["cuda"]``, ``getattr(args, "cuda")``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from npulab.core.i18n import localized, t
from npulab.migrate import tables
from npulab.migrate.context import Context

DEVICE = re.compile(r"^cuda(?::(?:\d+|%[ds]|\{\w*\}|))?$")
FSTRING_DEVICE = re.compile(r"^cuda(?::|$)")
TENSOR_TYPE = re.compile(r"^torch\.cuda\.\w+$")
BACKEND = re.compile(r"^(?:nccl|\w+:\w+(?:,\w+:\w+)+|cuda:nccl)$")
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
ENV_TOKEN = re.compile(r"(?<![A-Za-z0-9_$])([A-Z][A-Z0-9_]*)=")
LITERAL = re.compile(r"^([A-Za-z]*)('''|\"\"\"|'|\")", flags=re.S)
COMMAND_SPLIT = re.compile(r"[;&|\n`(]|\$\(")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
PIP = re.compile(r"(?:\bpip3?|\bconda|\bmamba|\buv\s+pip)\s+install\s+([^;&|\n]*)")
PREFIX_WORDS = {"sudo", "exec", "env", "time", "nohup", "command", "!"}
MESSAGE_CALLS = {"print", "warn", "debug", "info", "warning", "error", "exception", "critical", "log", "fatal",
                 "write", "echo", "secho", "add_text"}
PROSE_KEYWORDS = {"help", "description", "epilog", "metavar", "usage", "prog", "title", "msg", "message", "doc",
                  "desc", "label", "reason"}
KEY_METHODS = {"get", "pop", "setdefault", "__getitem__", "__contains__"}
WRAPPERS = (ast.JoinedStr, ast.FormattedValue, ast.BinOp, ast.Tuple, ast.List, ast.IfExp, ast.BoolOp, ast.Starred)


# --- where does a string sit? ----------------------------------------------------------------------------------


def _call_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _is_message_call(call: ast.Call) -> bool:
    name = _call_name(call)
    return name in MESSAGE_CALLS or name.endswith(("Error", "Exception", "Warning"))


def role(ctx: Context, node: ast.AST) -> str:
    """"message", "key", "dict-key", "device_map" or "value" for a string node."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        return "key"
    if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and isinstance(parent.func, ast.Attribute) \
            and parent.func.attr in KEY_METHODS:
        return "key"
    if isinstance(parent, ast.Dict) and any(k is node for k in parent.keys):
        return "dict-key"
    child = node
    while parent is not None:
        if isinstance(parent, ast.keyword):
            if parent.arg == "device_map":
                return "device_map"
            if parent.arg in PROSE_KEYWORDS:
                return "message"
        elif isinstance(parent, ast.Call):
            if child is not parent.func:  # an argument: the call decides what the string is
                return "message" if _is_message_call(parent) else "value"
        elif isinstance(parent, ast.Dict):
            grand = ctx.parent(parent)
            return "device_map" if isinstance(grand, ast.keyword) and grand.arg == "device_map" else "value"
        elif isinstance(parent, ast.Assert):
            return "message" if child is parent.msg else "value"
        elif isinstance(parent, ast.Raise):
            return "message"
        elif not isinstance(parent, (*WRAPPERS, ast.Attribute)):
            break
        child, parent = parent, ctx.parent(parent)
    return "value"


# --- edits inside literals -------------------------------------------------------------------------------------


def _advance(line: int, col: int, text: str) -> tuple[int, int]:
    """The position after ``text`` when it starts at (line, col)."""
    parts = re.split(r"\r\n|\r|\n", text)
    return (line, col + len(text)) if len(parts) == 1 else (line + len(parts) - 1, len(parts[-1]))


def literal_edits(ctx: Context, node: ast.AST, pattern: re.Pattern, new: str, expected: int) -> list:
    """Edits replacing each match of ``pattern`` inside a literal's text, when it occurs ``expected`` times there.

    Only the matched characters change, so the edit can be placed even on a notebook magic line. Returns
    ``[None]`` (no safe edit) when the source spells the text differently (escapes, implicit concatenation).
    """
    segment = ctx.segment(node)
    prefix = LITERAL.match(segment)
    if not prefix:
        return [None]
    quote = prefix.group(2)
    body = segment[prefix.end():len(segment) - len(quote)] if segment.endswith(quote) else segment[prefix.end():]
    matches = list(pattern.finditer(body))
    if len(matches) != expected or not matches:
        return [None]
    line, col = ctx.start(node)
    edits = []
    for match in matches:
        begin = _advance(line, col, segment[: prefix.end() + match.start()])
        end = _advance(line, col, segment[: prefix.end() + match.end()])
        edits.append(ctx.edit(*begin, *end, new))
    return edits


def _constant_parts(node: ast.JoinedStr) -> str:
    return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))


# --- the rules -------------------------------------------------------------------------------------------------


NPU_STRINGS = re.compile(r"^(?:npu(?::\d+)?|hccl)$")


def _siblings_handle_npu(ctx: Context, node: ast.AST) -> bool:
    """``("cpu", "cuda", "npu")`` or ``{"cuda": "nccl", "npu": "hccl"}``: the literal already covers the NPU."""
    parent = ctx.parent(node)
    if isinstance(parent, (ast.List, ast.Tuple, ast.Set)):
        items = parent.elts
    elif isinstance(parent, ast.Dict):
        items = [*parent.keys, *parent.values]
    else:
        return False
    return any(isinstance(i, ast.Constant) and isinstance(i.value, str) and NPU_STRINGS.match(i.value) for i in items)


def npu_aware(file) -> bool:
    """The file already names an "npu" device or the "hccl" backend: it is written for several devices.

    (Importing torch_npu alone does not count: that is how a half-done migration starts.)
    """
    for chunk in file.chunks:
        for node in ast.walk(chunk.tree) if chunk.tree else ():
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and NPU_STRINGS.match(node.value):
                return True
    return False


def _report_string(ctx: Context, node: ast.AST, rule: str, edits, **fmt) -> None:
    """A device or backend string; in a file that already handles the NPU it is a person's call, not a rewrite."""
    if ctx.shared.get("npu_aware"):
        finding = ctx.report(node, rule, severity="manual", **fmt)
        ctx.findings[-1] = replace(finding, suggestion=finding.suggestion + t("migrate.aware"))
    else:
        ctx.report(node, rule, edits=edits, **fmt)


def _device(ctx: Context, node: ast.AST, value: str, new: str, edit) -> None:
    kind = role(ctx, node)
    if kind in ("message", "key") or _siblings_handle_npu(ctx, node):
        return
    parent = ctx.parent(node)
    if isinstance(parent, ast.keyword) and parent.arg == "accelerator":
        ctx.report(node, "accelerator-gpu", value=value)
        return
    if kind == "dict-key":
        ctx.report(node, "device-key", value=value, new=new)
    elif kind == "device_map":
        ctx.report(node, "device-map", value=value, new=new)
    else:
        _report_string(ctx, node, "device-string", edit(), value=value, new=new)


def _constant(ctx: Context, node: ast.Constant) -> None:
    value = node.value
    if DEVICE.match(value):
        new = "npu" + value[4:]
        _device(ctx, node, value, new, lambda: literal_edits(ctx, node, re.compile(r"^cuda"), "npu", 1))
        return
    if role(ctx, node) == "message":
        return
    if TENSOR_TYPE.match(value):
        entry = tables.torch_cuda(value)
        if entry is not None and entry.npu and entry.severity == "auto":
            ctx.report(node, "tensor-type-string", value=value, new=entry.npu,
                       edits=literal_edits(ctx, node, re.compile(re.escape(value)), entry.npu, 1))
    elif BACKEND.match(value) and re.search(r"\bnccl\b", value) and role(ctx, node) == "value" \
            and not _siblings_handle_npu(ctx, node):
        new = re.sub(r"\bnccl\b", "hccl", re.sub(r"\bcuda:", "npu:", value))
        edits = literal_edits(ctx, node, re.compile(re.escape(value)), new, 1)
        _report_string(ctx, node, "nccl-backend", edits, value=value, new=new)
    elif value == "gpu" and isinstance(ctx.parent(node), ast.keyword) and ctx.parent(node).arg == "accelerator":
        ctx.report(node, "accelerator-gpu", value=value)
    else:
        _env_and_tools(ctx, node, _magic_command(ctx, node) or value)


def _magic_command(ctx: Context, node: ast.Constant) -> str | None:
    """``%pip install x`` becomes ``get_ipython().run_line_magic('pip', 'install x')``: give back the command."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Call) and _call_name(parent) == "run_line_magic" and len(parent.args) == 2 \
            and parent.args[1] is node and isinstance(parent.args[0], ast.Constant):
        return f"{parent.args[0].value} {node.value}"
    return None


def pip_packages(text: str) -> list[tuple[str, dict]]:
    """CUDA-only packages a ``pip install`` / ``conda install`` command line installs."""
    found = []
    for command in PIP.finditer(text):
        for word in command.group(1).split():
            name = re.split(r"[<>=!~\[;@ ]", word, maxsplit=1)[0].replace("-", "_").lower()
            entry = tables.package(name) if name and not word.startswith("-") else None
            if entry and entry not in found:
                found.append(entry)
    return found


def _env_and_tools(ctx: Context, node: ast.AST, text: str) -> None:
    names = [text] if ENV_NAME.match(text) else ENV_TOKEN.findall(text)
    for name in dict.fromkeys(names):
        spec = tables.env_var(name)
        if spec is None:
            continue
        if "new" in spec:
            pattern = re.compile(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])")
            edits = literal_edits(ctx, node, pattern, spec["new"], len(pattern.findall(text)))
            ctx.report(node, "env-var", value=name, new=spec["new"], edits=edits)
        else:
            ctx.report(node, "env-var-manual", value=name, note=spec["note"])
    for tool in tool_commands(text):
        ctx.report(node, "nvidia-tool", tool=tool, note=localized(tables.load(), "tools")[tool])
    for package, spec in pip_packages(text):
        ctx.report(node, "pip-package", severity=tables.package_severity(spec), package=package, what=localized(spec, "what"), note=localized(spec, "note"), detail=package)


def tool_commands(text: str) -> list[str]:
    """NVIDIA tools run by a command line (first word of each command, after VAR=x, sudo, env ...)."""
    tools = tables.load()["tools"]
    found = []
    for part in COMMAND_SPLIT.split(text):
        for word in part.split():
            word = word.lstrip("!")
            if not word or word in PREFIX_WORDS or ASSIGNMENT.match(word):
                continue
            base = word.rsplit("/", 1)[-1]
            if base in tools and base not in found:
                found.append(base)
            break
    return found


def _joined(ctx: Context, node: ast.JoinedStr) -> None:
    first = node.values[0] if node.values else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and FSTRING_DEVICE.match(first.value):
        segment = ctx.segment(node)
        prefix = LITERAL.match(segment)
        shown = segment[prefix.end():-len(prefix.group(2))] if prefix else segment

        def edit():
            if not prefix or not segment[prefix.end():].startswith("cuda"):
                return [None]
            line, col = ctx.start(node)
            begin = _advance(line, col, segment[: prefix.end()])
            return [ctx.edit(*begin, begin[0], begin[1] + 4, "npu")]

        _device(ctx, node, shown, "npu" + shown[4:], edit)
        return
    if role(ctx, node) != "message":
        _env_and_tools(ctx, node, _constant_parts(node))


def _argv(ctx: Context, node: ast.List | ast.Tuple) -> None:
    """``["nvidia-smi", "--query-gpu=..."]``: a command as an argument list."""
    first = node.elts[0] if node.elts else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        base = first.value.rsplit("/", 1)[-1]
        tools = tables.load()["tools"]
        if base in tools and role(ctx, node) != "message":
            ctx.report(first, "nvidia-tool", tool=base, note=localized(tables.load(), "tools")[base])


def check(ctx: Context) -> None:
    for node in ast.walk(ctx.tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            _argv(ctx, node)
    for node in ast.walk(ctx.tree):
        if ctx.is_claimed(node) or id(node) in ctx.docstrings:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if not isinstance(ctx.parent(node), ast.JoinedStr):  # f-string parts are handled with their f-string
                _constant(ctx, node)
        elif isinstance(node, ast.JoinedStr):
            _joined(ctx, node)


def check_shell(ctx: Context) -> None:
    """A shell cell (``%%bash``, ``%%writefile run.sh``): environment variables and NVIDIA tools, line by line."""
    for number, line in enumerate(ctx.chunk.source_lines, start=1):
        if number == 1 and line.lstrip().startswith("%%") or line.lstrip().startswith("#"):
            continue
        for match in ENV_TOKEN.finditer(line):
            spec = tables.env_var(match.group(1))
            if spec is None:
                continue
            where = (number, match.start(1))
            if "new" in spec:
                edit = ctx.edit(number, match.start(1), number, match.end(1), spec["new"])
                ctx.report(where, "env-var", value=match.group(1), new=spec["new"], edits=[edit])
            else:
                ctx.report(where, "env-var-manual", value=match.group(1), note=spec["note"])
        for tool in tool_commands(line):
            ctx.report((number, line.index(tool)), "nvidia-tool", tool=tool, note=localized(tables.load(), "tools")[tool])
        for package, spec in pip_packages(line):
            ctx.report((number, 0), "pip-package", severity=tables.package_severity(spec), package=package, what=localized(spec, "what"), note=localized(spec, "note"), detail=package)
