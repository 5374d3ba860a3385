"""lint-npu, device strings: ``torch.device("npu:a")``, ``device="nup"``, ``x.to("ascend:0")``,
``torch.npu.set_device("npu0")``, ``torch.autocast(device_type="npu:0")``, ``DataLoader(pin_memory_device="cuda")``
— one parser for every place a device is accepted (``device=`` and ``*_device=`` keywords of torch calls, ``.to()``,
the functions whose first argument is a device): a literal device string must be ``type`` or ``type:index`` with a
device type c10 knows (npulab/data/api_values.yaml ``devices``), or torch raises at run time; and the type must be
one an Ascend machine has (``ascend``: no ``cuda`` unless the notebook imports torch_npu's transfer_to_npu, which
rewrites ``cuda`` to ``npu``)."""

from __future__ import annotations

import ast
import difflib
import re
from functools import cache

from npulab.core.i18n import localized, t
from npulab.core.paths import load_yaml
from npulab.core.words import code, guess_end, joined
from npulab.lint.api_values import RULES
from npulab.lint.calls import canonical
from npulab.pytorch.torch_npu_names import dotted_parts

_DEVICE = re.compile(r"([A-Za-z_]+)(?::(0|[1-9][0-9]*))?")
# torch calls whose ``device=`` is a device (any call into these roots)
_ROOTS = ("torch", "torch_npu")


@cache
def table() -> dict:
    return load_yaml(RULES)["devices"]


def problem(text: str, transferred: bool = False) -> str | None:
    """Why ``text`` is not a device string c10 parses or not a device of an Ascend machine (in the reader's
    language); None when it is. ``transferred``: transfer_to_npu is imported (``cuda`` stands for ``npu``)."""
    types = table()["types"]
    found = _DEVICE.fullmatch(text)
    kind = text.split(":", 1)[0].strip()
    if found and found.group(1) in types:
        return _absent(found.group(1), transferred)
    if kind not in types:
        glued = re.fullmatch(r"([A-Za-z_]+?)([0-9]+)", kind)  # npu0 -> npu:0
        guess = [f"{glued.group(1)}:{glued.group(2)}"] if glued and glued.group(1) in types else \
            difflib.get_close_matches(kind.lower(), types, n=1, cutoff=0.5)
        return (t("lint.device.unknown_type", kind=kind, types=joined(types), source=_source())
                + guess_end(code(guess[:1])))
    return t("lint.device.bad_string", text=text, kind=kind, source=_source())


def _source() -> str:
    return localized(table(), "source")


def _absent(kind: str, transferred: bool) -> str | None:
    """Why a device type c10 knows is not on an Ascend machine; None when it is there."""
    ascend = table()["ascend"]
    if kind in ascend["types"] or (transferred and kind in ascend["transferred"]):
        return None
    return t("lint.device.not_on_ascend", kind=kind, types=joined(ascend["types"]), source=localized(ascend, "source"))


def _transferred(tree: ast.Module, aliases: dict[str, str]) -> bool:
    """Whether torch_npu's transfer_to_npu is imported (by this cell or, through ``aliases``, an earlier one)."""
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module for a in n.names]
    return any(v.endswith("transfer_to_npu") for v in [*names, *aliases.values()])


def _is_device_keyword(name: str | None) -> bool:
    return name == "device" or bool(name and name.endswith("_device"))  # pin_memory_device, output_device …


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def findings(tree: ast.Module, aliases: dict[str, str]) -> list[tuple[int, str, str]]:
    """(line, written call, sentence) for each literal device string the cell's calls pass that c10 refuses."""
    out = []
    positional = set(table()["positional"])
    transferred = _transferred(tree, aliases)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        parts = dotted_parts(node.func)
        full = canonical(".".join([aliases[parts[0]], *parts[1:]])) if parts and parts[0] in aliases else ""
        written = ast.unparse(node.func)
        values = [kw.value for kw in node.keywords if _is_device_keyword(kw.arg) and full.split(".")[0] in _ROOTS]
        if full in positional and node.args:
            values.append(node.args[0])
        if isinstance(node.func, ast.Attribute) and node.func.attr == "to" and not full:
            values += node.args[:1] + [kw.value for kw in node.keywords if kw.arg == "device"]
        if full == "torch.device" and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                and not isinstance(node.args[1].value, int):
            out.append((node.lineno, written, t("lint.device.index", line=node.lineno, written=written,
                                                value=repr(node.args[1].value), source=_source())))
        for value in values:
            text = _literal(value)  # "" is pin_memory_device's own default ("the current accelerator")
            if text and (why := problem(text, transferred)):
                out.append((node.lineno, written, t("lint.line_call", line=node.lineno, written=written, problem=why)))
        kinds = [kw.value for kw in node.keywords if kw.arg == "device_type" and full.split(".")[0] in _ROOTS]
        if full in ("torch.autocast", "torch.amp.autocast") and node.args:
            kinds.append(node.args[0])
        for value in kinds:  # a device TYPE: torch.autocast(device_type="npu"), not "npu:0"
            text = _literal(value)
            if text is not None and (text not in table()["types"] or _absent(text, transferred)):
                why = problem(text, transferred) or t("lint.device.type_only", kind=text.split(":")[0], source=_source())
                out.append((node.lineno, written, t("lint.line_call", line=node.lineno, written=written, problem=why)))
    return out
