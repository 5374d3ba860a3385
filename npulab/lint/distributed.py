"""lint-npu, torch.distributed: the literal ``backend`` and ``init_method`` of ``init_process_group`` / ``new_group``
(npulab/data/api_values.yaml ``distributed``), read against the released sources:

- backends: the devices each backend serves, from torch's ``Backend.backend_capability`` (``nccl``: cuda only) and
  the ``Backend.register_backend(name, …, devices=[…])`` calls of the torch_npu wheel (``hccl``: npu). A backend
  must be known and serve a device an Ascend machine has (npulab.lint.devices); ``"cpu:gloo,npu:hccl"`` is read
  pair by pair;
- init methods: the URL schemes torch's rendezvous module registers (``register_rendezvous_handler("tcp", …)``),
  and which of their handlers raise when the URL has no port (``if result.port is None: raise``).
"""

from __future__ import annotations

import ast
from functools import cache
from urllib.parse import urlparse

from npulab.core.i18n import t
from npulab.core.paths import load_yaml
from npulab.core.words import joined
from npulab.lint.api_values import RULES, argument
from npulab.lint.calls import source_tree, torch_calls
from npulab.lint.devices import table as device_table
from npulab.lint.signatures import SourceTree, _top_level

_C10D = "torch.distributed.distributed_c10d"
_RENDEZVOUS = "torch.distributed.rendezvous"


@cache
def spec() -> dict:
    return load_yaml(RULES)["distributed"]


def _strings(node: ast.expr | None) -> list[str]:
    elts = node.elts if isinstance(node, (ast.List, ast.Tuple)) else []
    return [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


@cache
def backends(torch: SourceTree, npu: SourceTree | None) -> tuple[dict[str, list[str]], str]:
    """(backend -> the devices it serves, where that was read)."""
    cls = _top_level(tree, "Backend") if (tree := torch.tree(_C10D)) is not None else None
    names = {s.targets[0].id: s.value.value for s in getattr(cls, "body", []) if isinstance(s, ast.Assign)
             and isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Constant)}
    table = [s.value for s in getattr(cls, "body", []) if isinstance(s, (ast.Assign, ast.AnnAssign))
             and ast.unparse(s.targets[0] if isinstance(s, ast.Assign) else s.target) == "backend_capability"]
    value = table[0] if table else None
    out = {names.get(getattr(k, "id", None)): _strings(v) for k, v in zip(getattr(value, "keys", []),
                                                                            getattr(value, "values", []), strict=True)}
    out.pop(None, None)
    where = [f"torch {torch.version} {_C10D}.Backend.backend_capability"]
    for module, source in (npu.sources.items() if npu is not None else []):
        if "register_backend(" not in source or "Backend.register_backend" not in source:
            continue
        for node in ast.walk(npu.tree(module)):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("Backend.register_backend") and node.args \
                    and isinstance(node.args[0], ast.Constant):
                devices = next((kw.value for kw in node.keywords if kw.arg == "devices"), None)
                out[node.args[0].value.lower()] = _strings(devices)
                where.append(f"torch_npu {npu.version} {module}")
    return out, "; ".join(dict.fromkeys(where))


@cache
def schemes(torch: SourceTree) -> tuple[dict[str, bool], str]:
    """(URL scheme -> whether its handler needs a port, where that was read)."""
    tree = torch.tree(_RENDEZVOUS)
    out = {}
    for node in (tree.body if tree is not None else []):
        call = node.value if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) else None
        if call and ast.unparse(call.func) == "register_rendezvous_handler" and len(call.args) == 2 \
                and isinstance(call.args[0], ast.Constant) and isinstance(call.args[1], ast.Name):
            handler = _top_level(tree, call.args[1].id)
            out[call.args[0].value] = isinstance(handler, ast.FunctionDef) and _needs_port(handler)
    return out, f"torch {torch.version} {_RENDEZVOUS}"


def _needs_port(handler: ast.FunctionDef) -> bool:
    """Whether the handler raises when the parsed URL has no port (``if result.port is None: raise``)."""
    for node in ast.walk(handler):
        if isinstance(node, ast.If) and any(isinstance(n, ast.Raise) for s in node.body for n in ast.walk(s)):
            text = ast.unparse(node.test)
            if text.endswith(".port is None") or (text.startswith("not ") and text.endswith(".port")):
                return True
    return False


def backend_problem(text: str, known: dict[str, list[str]], where: str) -> str | None:
    """Why a backend string (``hccl``, ``cpu:gloo,npu:hccl``) does not work on an Ascend machine; None when it does."""
    ascend = device_table()["ascend"]["types"]
    for pair in text.split(","):
        device, _, name = pair.rpartition(":")
        name = name.strip().lower()
        if name not in known:
            return t("lint.dist.unknown_backend", value=repr(text), name=name, known=joined(sorted(known)), source=where)
        served = [d for d in known[name] if d in ascend]
        if not served or (device and device.strip() not in known[name]):
            for_npu = sorted(b for b, devices in known.items() if "npu" in devices)
            return t("lint.dist.backend_devices", value=repr(text), name=name, devices=joined(known[name]),
                     npu=joined(for_npu), source=where)
    return None


def init_method_problem(text: str, known: dict[str, bool], where: str) -> str | None:
    """Why an ``init_method`` URL fails in torch's rendezvous; None when it does not."""
    if "://" not in text:
        return None  # not a URL (torch then fails elsewhere); not this check's concern
    parsed = urlparse(text)
    if parsed.scheme not in known:
        return t("lint.dist.scheme", value=repr(text), scheme=parsed.scheme, schemes=joined(f"{s}://" for s in known),
                 source=where)
    try:
        port = parsed.port
    except ValueError:
        port = None
    if known[parsed.scheme] and port is None:
        return t("lint.dist.port", value=repr(text), scheme=parsed.scheme, source=where)
    return None


def findings(tree: ast.Module, aliases: dict[str, str], sources) -> list[tuple[int, str, str]]:
    """(line, written call, sentence) for literal backends and init methods that fail on an Ascend machine."""
    out = []
    for torch, line, written, full, call in torch_calls(tree, aliases, sources):
        definition = torch.definition(full)
        for parameter, functions in spec().items():
            node = argument(call, _signature(torch, full), parameter) if definition in functions else None
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if parameter == "backend":
                # torch_npu only here: a cell without a literal backend needs no torch_npu wheel
                why = backend_problem(node.value, *backends(torch, source_tree(sources, "torch_npu")))
            else:
                why = init_method_problem(node.value, *schemes(torch))
            if why:
                out.append((line, written, t("lint.line_call", line=line, written=written, problem=why)))
    return out


def _signature(torch: SourceTree, full: str):
    try:
        sigs = torch.resolve(full)[1]
    except KeyError:
        return None
    return sigs[0] if sigs else None
