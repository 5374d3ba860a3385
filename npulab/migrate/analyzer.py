"""Run the rules over one file, then add ``import torch_npu`` where the rewrites need the NPU backend."""

from __future__ import annotations

import ast

from npulab.core.i18n import localized
from npulab.migrate import tables
from npulab.migrate.context import Context
from npulab.migrate.model import AUTO, Finding
from npulab.migrate.names import Names, module_of
from npulab.migrate.rules import RULES, strings, torch_api
from npulab.migrate.sources import Chunk, CudaSource, SourceFile

IMPORT_LINE = "import torch_npu  # noqa: F401  (registers the Ascend NPU backend; added by npulab migrate)"


def analyze(file: SourceFile) -> list[Finding]:
    """Every finding of one Python file or notebook, in source order."""
    names = Names(c.tree for c in file.chunks if c.tree is not None)
    shared = {**torch_api.prepare_file(file, names), "npu_aware": strings.npu_aware(file)}
    findings: list[Finding] = []
    for chunk in file.chunks:
        ctx = Context(file, chunk, names, shared)
        if chunk.kind == "shell":
            strings.check_shell(ctx)
        elif chunk.tree is not None:
            for rule in RULES:
                rule.check(ctx)
        findings += ctx.findings
    findings.sort(key=lambda f: (f.cell or 0, f.line, f.col, f.rule))
    registration = _registration(file, names, shared, findings)
    return ([registration] if registration else []) + _dedupe(findings)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen, out = set(), []
    for f in findings:
        key = (f.cell, f.line, f.col, f.rule)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def imports_torch_npu(file: SourceFile) -> bool:
    """The file already imports torch_npu (or uses transfer_to_npu, which imports it)."""
    for chunk in file.chunks:
        for node in ast.walk(chunk.tree) if chunk.tree else ():
            if isinstance(node, (ast.Import, ast.ImportFrom)) and \
                    any(m == "torch_npu" or m.startswith("torch_npu.") for m in module_of(node)):
                return True
    return False


def _registration(file: SourceFile, names: Names, shared: dict, findings: list[Finding]) -> Finding | None:
    """``import torch_npu`` after the first import of torch, when an auto rewrite makes the file use the NPU."""
    needs = any(f.severity == AUTO and tables.rule(f.rule)["torch_facing"] for f in findings)
    rewritten_import = any(f.severity == AUTO and f.rule == "torch-cuda-import" for f in findings)  # imports torch_npu
    if not needs or rewritten_import or imports_torch_npu(file):
        return None
    chunk, line, indent, anchor = _insertion_point(file)
    ctx = Context(file, chunk, names, shared)
    newline = _newline(chunk.raw)
    raw = chunk.raw_lines
    if line <= len(raw):
        edit = ctx.insert(line, 0, indent + IMPORT_LINE + newline)
    else:  # after the last line
        last = raw[-1] if raw else ""
        ending = "" if last.endswith(("\n", "\r")) or not raw else newline
        edit = ctx.insert(max(len(raw), 1), len(last), ending + indent + IMPORT_LINE + newline)
    return ctx.report((anchor, 0), "import-torch-npu", edits=[edit])


def _newline(text: str) -> str:
    for ending in ("\r\n", "\n", "\r"):
        if ending in text:
            return ending
    return "\n"


def _insertion_point(file: SourceFile) -> tuple[Chunk, int, str, int]:
    """(chunk, line to insert before, indentation, line to report): after the first ``import torch``, else at the top."""
    for chunk in file.chunks:
        if chunk.tree is None:
            continue
        for node in _statements(chunk.tree.body):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and \
                    any(m == "torch" or m.startswith("torch.") for m in module_of(node)):
                line_text = chunk.source_lines[node.lineno - 1]
                indent = line_text[: len(line_text) - len(line_text.lstrip())]
                return chunk, node.end_lineno + 1, indent, node.lineno
    chunk = next((c for c in file.chunks if c.tree is not None), file.chunks[0])
    top = _top_line(chunk)
    return chunk, top, "", max(1, min(top, len(chunk.raw_lines)))


def _statements(body: list[ast.stmt]):
    """Statements in source order, entering if/try/with blocks but not functions, classes or TYPE_CHECKING."""
    for node in body:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or _type_checking(node):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _statements(getattr(node, field, None) or [])
        for handler in getattr(node, "handlers", None) or []:
            yield from _statements(handler.body)


def _type_checking(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _top_line(chunk: Chunk) -> int:
    """The first line after a module docstring and ``from __future__`` imports."""
    line = 1
    for node in chunk.tree.body if chunk.tree else []:
        is_doc = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        if not (is_doc or is_future):
            return node.lineno
        line = node.end_lineno + 1
    return line


def cuda_source_finding(source: CudaSource) -> Finding:
    """The finding of a ``.cu``/``.cuh`` file."""
    spec = tables.rule("cuda-source")
    return Finding(source.display, source.first_kernel_line, 1, "cuda-source", spec["severity"],
                   localized(spec, "message").format(lines=source.lines, kernels=source.kernels), localized(spec, "suggestion"))
