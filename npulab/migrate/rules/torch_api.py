"""PyTorch's CUDA-specific API: ``torch.cuda.*`` (aliases too), cuDNN/CUDA backend switches,
``torch.version.cuda``, device-typed AMP, NCCL-only APIs, ``torch.compile`` and CUDA C++ extensions."""

from __future__ import annotations

import ast
import re

from npulab.core.i18n import localized, t
from npulab.migrate import tables
from npulab.migrate.context import Context
from npulab.migrate.model import AUTO
from npulab.migrate.names import IMPLICIT, Names, imported
from npulab.migrate.sources import SourceFile

AMP_CALLS = {"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast", "torch.amp.GradScaler",
             "torch.amp.grad_scaler.GradScaler", "torch.amp.custom_fwd", "torch.amp.custom_bwd",
             "torch.is_autocast_enabled", "torch.get_autocast_dtype", "torch.set_autocast_dtype",
             "torch.is_autocast_available", "torch.amp.is_autocast_available"}
SCALERS = {"torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler"}
DEVICE_STRING = re.compile(r"^cuda(?::\d+)?$")
CPP_EXT = "torch.utils.cpp_extension"
PROFILER_CUDA = ("torch.profiler.ProfilerActivity.CUDA", "torch.autograd.ProfilerActivity.CUDA",
                 "torch.autograd.profiler.ProfilerActivity.CUDA", "torch._C._profiler.ProfilerActivity.CUDA")
SDP_BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION")
PROFILERS = {"torch.profiler.profile", "torch.autograd.profiler.profile", "torch.autograd.profiler.emit_nvtx"}


def under(name: str, prefix: str) -> bool:
    """``name`` is ``prefix`` or inside it (dotted, component-wise)."""
    return name == prefix or name.startswith(prefix + ".")


def is_cuda_path(name: str) -> bool:
    return under(name, "torch.cuda")


def outermost_chains(ctx: Context):
    """(node, dotted name) of every Name/Attribute chain that is not part of a longer chain."""
    for node in ast.walk(ctx.tree):
        if not isinstance(node, (ast.Attribute, ast.Name)):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            continue
        parent = ctx.parent(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            continue
        name = ctx.names.qualify(node)
        if name:
            yield node, name


# --- imports of torch.cuda names: one rewrite per statement, valid only if every use maps --------------------


def _npu_module(path: str) -> str | None:
    """torch.cuda.amp → torch_npu.npu.amp: the real module behind a mapped torch.cuda module."""
    entry = tables.torch_cuda(path)
    if entry is None or entry.severity != AUTO or not entry.npu or entry.key != path:
        return None
    return "torch_npu" + entry.npu[len("torch"):]


def import_rewrite(node: ast.Import | ast.ImportFrom) -> list[tuple[str, object, str]] | None:
    """How to rewrite an import of torch.cuda names: [("alias", alias node, text) | ("module", old, new) |
    ("statement", node, text)]; None when some imported name has no same-meaning torch.npu name."""
    if isinstance(node, ast.Import):
        out = []
        for alias in node.names:
            if is_cuda_path(alias.name) and alias.asname:
                module = _npu_module(alias.name)
                if module is None:
                    return None
                out.append(("alias", alias, f"{module} as {alias.asname}"))
        return out
    if node.level or not node.module:
        return None
    if node.module == "torch":
        names = [a for a in node.names if a.name == "cuda"]
        if len(node.names) != 1 or not names:
            return None  # ``from torch import cuda, nn``: splitting the statement is a person's call
        return [("statement", node, f"from torch_npu import npu as {names[0].asname or 'cuda'}")]
    module = _npu_module(node.module)
    if module is None:
        return None
    npu_parent = "torch" + module[len("torch_npu"):]
    for alias in node.names:
        if alias.name == "*":
            continue
        entry = tables.torch_cuda(f"{node.module}.{alias.name}")
        if entry is None or entry.severity != AUTO or entry.npu != f"{npu_parent}.{alias.name}":
            return None
    return [("module", node.module, module)]


def prepare(file: SourceFile, names: Names) -> dict:
    """Decide, for the whole file, which imports of torch.cuda names can be rewritten (all their uses map)."""
    statements: dict[int, dict] = {}
    owner: dict[str, int] = {}
    for chunk in file.chunks:
        for node in ast.walk(chunk.tree) if chunk.tree else ():
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound = [(n, t) for n, t in imported(node) if is_cuda_path(t)]
                star = isinstance(node, ast.ImportFrom) and node.module and is_cuda_path(node.module) and \
                    any(a.name == "*" for a in node.names)
                if bound or star:
                    statements[id(node)] = {"ok": import_rewrite(node) is not None, "names": [n for n, _ in bound]}
                    for name, target in bound:
                        if names.bindings.get(name) == target:
                            owner.setdefault(name, id(node))
    for chunk in file.chunks:
        if chunk.tree is None or not owner:
            continue
        parents = {id(child): parent for parent in ast.walk(chunk.tree) for child in ast.iter_child_nodes(parent)}
        for node in ast.walk(chunk.tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in owner:
                outer = node
                while isinstance(parents.get(id(outer)), ast.Attribute) and parents[id(outer)].value is outer:
                    outer = parents[id(outer)]
                entry = tables.torch_cuda(names.qualify(outer) or "")
                if entry is None or entry.severity != AUTO or not entry.npu:
                    statements[owner[node.id]]["ok"] = False
    return {"imports": statements, "owner": owner}


def _check_import(ctx: Context, node: ast.Import | ast.ImportFrom, status: dict) -> None:
    plan = import_rewrite(node) if status["ok"] else None
    target = node.module if isinstance(node, ast.ImportFrom) else \
        next(a.name for a in node.names if is_cuda_path(a.name))
    if plan is None:
        if status["ok"] is False and status["names"]:
            ctx.report(node, "torch-cuda-alias", alias="、".join(status["names"]), name=target,
                       npu=_npu_hint(target))
        return
    edits, shown = [], []
    for kind, item, new in plan:
        if kind == "module":
            edits.append(_module_edit(ctx, node, item, new))
            shown.append(f"from {new} import …")
        else:
            edits.append(ctx.replace(item, new))
            shown.append(new if kind == "statement" else f"import {new}")
    if edits:
        ctx.report(node, "torch-cuda-import", name=target, new=t("migrate.semi_sep").join(shown), edits=edits)


def _npu_hint(target: str) -> str:
    module = _npu_module(target) if target != "torch" else "torch_npu.npu"
    return t("migrate.import_from", module=module) if module else t("migrate.npu_name")


def _module_edit(ctx: Context, node: ast.ImportFrom, old: str, new: str):
    line, col = ctx.start(node)
    text = ctx.chunk.source_lines[line - 1]
    match = re.compile(r"from\s+(" + re.escape(old) + r")\b").match(text, col)
    if not match:
        return None
    return ctx.edit(line, match.start(1), line, match.end(1), new)


# --- uses -----------------------------------------------------------------------------------------------------


def _chain_edit(ctx: Context, node: ast.AST, npu: str):
    """Rewrite ``torch.cuda.a.b`` (as written, after the root name) to the torch.npu path ``npu``."""
    attrs = []
    current = node
    while isinstance(current, ast.Attribute):
        attrs.append(current)
        current = current.value
    attrs.reverse()
    if not attrs or attrs[0].attr != "cuda":
        return None
    line, start = ctx.attr_position(attrs[0])
    end_line, end = ctx.end(node)
    if ctx.text(line, start, end_line, end) != ".".join(a.attr for a in attrs):
        return None  # whitespace, comments or line breaks inside the chain: leave it to a person
    return ctx.edit(line, start, end_line, end, npu[len("torch."):])


def _torch_cuda(ctx: Context, node: ast.AST, name: str) -> None:
    root = ctx.names.root(node)
    bound = ctx.names.bindings.get(root.id) or IMPLICIT.get(root.id, "")
    entry = tables.torch_cuda(name)
    versions = tables.versions()
    through_alias = is_cuda_path(bound)
    if entry is None:
        ctx.report(node, "torch-cuda-unknown", name=name, torch=versions["torch"], version=versions["torch_npu"])
    elif entry.npu and entry.severity == AUTO:
        if not through_alias:
            ctx.report(node, "torch-cuda", name=name, npu=entry.npu, neutral=tables.accelerator_target(name),
                       edits=[_chain_edit(ctx, node, entry.npu)])
        elif _alias_ok(ctx, root.id):
            ctx.report(node, "torch-cuda", name=name, npu=entry.npu, neutral=tables.accelerator_target(name),
                       fixed_elsewhere=True)
        else:
            ctx.report(node, "torch-cuda-alias", alias=root.id, name=name, npu=entry.npu)
    elif entry.npu and entry.npu.rsplit(".", 1)[-1] == name.rsplit(".", 1)[-1]:  # same name, other behaviour
        ctx.report(node, "torch-cuda-review", severity=entry.severity, name=name, npu=entry.npu, note=entry.note)
    else:
        ctx.report(node, "torch-cuda-missing", severity=entry.severity, name=name, version=versions["torch_npu"],
                   note=entry.note)


def _alias_ok(ctx: Context, alias: str) -> bool:
    statement = ctx.shared["torch_api"]["owner"].get(alias)
    return statement is not None and ctx.shared["torch_api"]["imports"][statement]["ok"]


def _backend_note(name: str) -> str:
    notes = localized(tables.load(), "backends")
    parts = name.split(".")
    return next(notes[".".join(parts[:end])] for end in range(len(parts), 1, -1) if ".".join(parts[:end]) in notes)


def _chain(ctx: Context, node: ast.AST, name: str, lines: set) -> None:
    if ctx.is_claimed(node):
        return
    table = tables.load()
    if is_cuda_path(name):
        _torch_cuda(ctx, node, name)
    elif under(name, "torch.backends.cudnn"):
        ctx.report(node, "cudnn", name=name, note=_backend_note(name))
    elif under(name, "torch.backends.cuda") or under(name, "torch.nn.attention.sdpa_kernel") or \
            any(under(name, f"torch.nn.attention.SDPBackend.{b}") for b in SDP_BACKENDS):
        ctx.report(node, "backends-cuda", name=name, note=_backend_note(name))
    elif under(name, "torch.version.cuda"):
        ctx.report(node, "torch-version-cuda")
    elif any(under(name, entry) for entry in PROFILER_CUDA) or name == "torch.autograd.profiler.emit_nvtx":
        ctx.report(node, "profiler-cuda", name=name)
    elif any(under(name, entry) for entry in table["compile"]):
        if node.lineno not in lines:
            lines.add(node.lineno)
            ctx.report(node, "compile", name=name)
    elif under(name, CPP_EXT) and name.rsplit(".", 1)[-1] in ("CUDAExtension", "CUDA_HOME"):
        rule = "cuda-home" if name.endswith("CUDA_HOME") else "cpp-extension"
        ctx.report(node, rule, name=name.rsplit(".", 1)[-1])
    elif name.startswith("torch.") and isinstance(node, ast.Attribute) and node.attr in ("cuda", "is_cuda"):
        rule, new = ("cuda-method", "npu") if node.attr == "cuda" else ("is-cuda", "is_npu")
        ctx.report(ctx.attr_position(node), rule, edits=[ctx.rename_attr(node, new)])  # torch.Tensor.cuda
        ctx.claim(node)
    else:
        for key, spec in table["nccl_api"].items():
            if under(name, key):
                if key.endswith("is_nccl_available") and isinstance(node, ast.Attribute) and \
                        node.attr == "is_nccl_available":
                    ctx.report(node, "nccl-api", severity=AUTO, name=name, note=localized(spec, "note"),
                               edits=[ctx.rename_attr(node, "is_hccl_available")])
                else:
                    ctx.report(node, "nccl-api", name=name, note=localized(spec, "note"))
                break


def _device_arg(node: ast.Call) -> ast.AST | None:
    for kw in node.keywords:
        if kw.arg in ("device_type", "device"):
            return kw.value
    return node.args[0] if node.args else None


def _literal_edits(ctx: Context, node: ast.Constant, new_value: str) -> list:
    """Edits that turn the string literal ``node`` into ``new_value`` (its whole value is replaced)."""
    from npulab.migrate.rules.strings import literal_edits

    return literal_edits(ctx, node, re.compile(r"^" + re.escape(node.value) + r"$"), new_value, 1)


def _call(ctx: Context, node: ast.Call) -> None:
    name = ctx.names.qualify(node.func)
    if name in AMP_CALLS:
        device = _device_arg(node)
        if isinstance(device, ast.Constant) and isinstance(device.value, str) and DEVICE_STRING.match(device.value):
            new = "npu" + device.value[4:]
            ctx.report(device, "amp-device", name=name, new=f'"{new}"', edits=_literal_edits(ctx, device, new))
        elif device is None and name in SCALERS:
            ctx.report(node, "amp-default-device", name=name, new=f'{name}("npu")', edits=[_scaler_edit(ctx, node)])
    elif isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2:
        attr = node.args[1]
        if isinstance(attr, ast.Constant) and isinstance(attr.value, str):
            ctx.claim(attr)  # an attribute name, not a device string
            if attr.value == "cuda" and ctx.names.qualify(node.args[0]) == "torch":
                ctx.report(attr, "torch-cuda", name="torch.cuda", npu="torch.npu", neutral="",
                           edits=_literal_edits(ctx, attr, "npu"))
            elif attr.value == "cuda" and node.func.id == "getattr" and _called(ctx, node):
                ctx.report(attr, "cuda-method", edits=_literal_edits(ctx, attr, "npu"))  # getattr(model, "cuda")()
    elif name in PROFILERS:
        for kw in node.keywords:
            if kw.arg == "use_cuda" and not (isinstance(kw.value, ast.Constant) and not kw.value.value):
                ctx.report(kw.value, "profiler-cuda", name=f"{name}(use_cuda=...)")
    elif name == f"{CPP_EXT}.load_inline":
        cuda = next((kw.value for kw in node.keywords if kw.arg == "cuda_sources"), node.args[2] if len(node.args) > 2 else None)
        if (cuda is not None and not _is_none(cuda)) or _with_cuda(node):
            ctx.report(node, "cpp-extension", name="load_inline(cuda_sources=...)")
    elif name == f"{CPP_EXT}.load":
        sources = next((kw.value for kw in node.keywords if kw.arg == "sources"), node.args[1] if len(node.args) > 1 else None)
        literal = _strings(sources)
        if _with_cuda(node) or (literal is not None and any(_is_cuda_file(s) for s in literal)) or \
                (literal is None and ctx.shared.get("cu_literals")):
            ctx.report(node, "cpp-extension", name="load(sources=[...*.cu])")


def _called(ctx: Context, node: ast.AST) -> bool:
    """``node(...)``: the expression is called right away."""
    parent = ctx.parent(node)
    return isinstance(parent, ast.Call) and parent.func is node


def _scaler_edit(ctx: Context, node: ast.Call):
    """Insert "npu" as the first argument of ``GradScaler(...)``."""
    if node.keywords:
        first = min(node.keywords, key=lambda k: (k.lineno, k.col_offset))
        line, col = ctx.start(first)
        return ctx.edit(line, col, line, col, '"npu", ')
    line, end = ctx.end(node)
    if ctx.text(line, end - 1, line, end) != ")":
        return None
    return ctx.edit(line, end - 1, line, end - 1, '"npu"')


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _with_cuda(node: ast.Call) -> bool:
    return any(kw.arg == "with_cuda" and isinstance(kw.value, ast.Constant) and kw.value.value for kw in node.keywords)


def _strings(node: ast.AST | None) -> list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_strings(e) for e in node.elts]
        return None if any(i is None for i in items) else [s for i in items for s in i]
    return None


def _is_cuda_file(name: str) -> bool:
    return name.lower().endswith((".cu", ".cuh"))


def check(ctx: Context) -> None:
    statements = ctx.shared["torch_api"]["imports"]
    for node in ast.walk(ctx.tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) in statements:
            _check_import(ctx, node, statements[id(node)])
        elif isinstance(node, ast.Call):
            _call(ctx, node)
    lines: set[int] = set()
    for node, name in outermost_chains(ctx):
        _chain(ctx, node, name, lines)


def prepare_file(file: SourceFile, names: Names) -> dict:
    """File-wide facts this module needs: which torch.cuda imports can be rewritten, whether .cu files are named."""
    facts = {"torch_api": prepare(file, names), "cu_literals": False}
    for chunk in file.chunks:
        for node in ast.walk(chunk.tree) if chunk.tree else ():
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _is_cuda_file(node.value):
                facts["cu_literals"] = True
    return facts
