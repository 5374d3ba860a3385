"""lint-npu, operator argument types: ``torch_npu.npu_*`` are ``torch.ops.npu`` operators whose registered schemas
(npulab.lint.signatures.from_schema) give each parameter a type — ``npu_format_cast(Tensor self, int acl_format)``.
A literal the call passes is checked against it: a string where no overload takes a string (``"NZ"`` for the
integer ``acl_format``), a number where the schema wants ``str``, a ``float`` where it wants an integer. Torch's
argument parser raises TypeError for these before the operator runs. A call is reported only when every overload
whose shape fits it refuses it.
"""

from __future__ import annotations

import ast

from npulab.core.i18n import t
from npulab.lint.signatures import Signature

_TAKES_TEXT = {"str", "Device"}  # schema types whose parser accepts a Python string (a device as "npu:0")
_INTEGER = {"int", "SymInt"}


def _refuses(schema_type: str, value) -> bool:
    base = schema_type.split("(")[0].rstrip("?").strip()  # Tensor(a!) -> Tensor; int? -> int
    if "[" in base:  # lists (int[], str[]): a single literal may be broadcast; not checked
        return False
    if isinstance(value, str):
        return base not in _TAKES_TEXT
    if base == "str":
        return isinstance(value, (int, float))
    return isinstance(value, float) and base in _INTEGER


def _slots(call: ast.Call, sig: Signature) -> list[tuple[object, str, ast.expr]]:
    """(slot: position or keyword, parameter, argument) of the call's arguments under one overload."""
    out = [(i, name, arg) for i, (name, arg) in enumerate(zip(sig.positional, call.args, strict=False))]
    return out + [(kw.arg, kw.arg, kw.value) for kw in call.keywords if kw.arg]


def problems(call: ast.Call, sigs: list[Signature], where: str) -> list[tuple[str, str]]:
    """(parameter, sentence) of literals that no fitting overload's schema accepts; [] when one accepts them all."""
    fitting = [s for s in sigs if s.origin == "schema" and s.types and s.problem(
        len(call.args), [k.arg for k in call.keywords if k.arg]) is None]
    if not fitting or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return []
    if any(s.origin != "schema" for s in sigs):
        return []  # a Python function of the same name stands in front of the operator and may convert the value
    refused = []
    for sig in fitting:
        slots = {slot for slot, name, node in _slots(call, sig) if isinstance(node, ast.Constant)
                 and node.value is not None and name in sig.types and _refuses(sig.types[name], node.value)}
        if not slots:
            return []
        refused.append(slots)
    out = []
    for slot, name, node in _slots(call, fitting[0]):
        if slot in refused[0]:
            takes = dict.fromkeys(f"`{n}: {s.types[n]}`" for s in fitting for sl, n, _ in _slots(call, s) if sl == slot)
            out.append((name, t("lint.value.schema_type", takes=t("lint.or").join(takes), type=type(node.value).__name__,
                                value=repr(node.value), where=where)))
    return out
