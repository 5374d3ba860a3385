"""lint-npu, torch callables the released torch itself marks deprecated: a call of ``torch.qr``, ``torch.lu``,
``torch.nn.utils.weight_norm`` or ``torch.cuda.amp.autocast`` works today, but torch says it is deprecated and
names the replacement — on Ascend a lesson should teach the replacement (``torch.linalg.qr``, ``torch.amp.autocast``).

Read from the installed, pinned torch (the object the cell's dotted name resolves to, attribute by attribute; nothing
is called), in two places only:

- PEP 702's ``__deprecated__``, which ``typing_extensions.deprecated``/``warnings.deprecated`` set on the object they
  decorate (torch 2.13.0 ``torch/nn/utils/clip_grad.py`` ``clip_grad_norm``, ``torch/cuda/amp/autocast_mode.py``
  ``autocast``): its text is torch's warning. A function counts only as the decorator's wrapper (below).
- the object's own docstring, where a sentence's subject is the callable itself — ``:func:`torch.qr` is deprecated
  in favor of :func:`torch.linalg.qr``` (``torch/_torch_docs.py``), ``This function is deprecated.`` — and it says
  "is deprecated" (not "will be deprecated", not a behaviour or a parameter: ``torch.cross``'s default dimension and
  ``torch.stft``'s ``return_complex=False`` are deprecated, the functions are not).
"""

from __future__ import annotations

import ast
import inspect
import re

from npulab.core.i18n import t
from npulab.pytorch.torch_npu_names import dotted_parts

_ROLE = re.compile(r":(?:func|class|meth|attr|mod):`~?([^`]+)`")
_SUBJECT = re.compile(r"(?:^|(?<=[.!:]\s))(?P<subject>This (?:function|method|class)|[\w.]+(?:\([^)]*\))?)"
                      r"\s+is\s+(?:now\s+)?deprecated\b", re.MULTILINE)


def _plain(text: str) -> str:
    """A docstring with its reStructuredText roles and literals unwrapped."""
    return _ROLE.sub(r"\1", text).replace("``", "").replace("`", "")


def _said(obj, dotted: str) -> tuple[str, str] | None:
    """(where, what torch says) when torch marks ``obj`` (named ``dotted``) deprecated."""
    marked = getattr(obj, "__deprecated__", None)
    # the decorator marks the function it wraps as well as its wrapper: an alias made by ``old =
    # deprecated("Use new instead")(new)`` leaves ``new`` marked too (torch.accelerator.current_device_index), so a
    # function counts only as the wrapper (functools.wraps' __wrapped__); a class is marked itself
    if isinstance(marked, str) and marked and (isinstance(obj, type) or hasattr(obj, "__wrapped__")):
        return "__deprecated__", _plain(marked)
    doc = inspect.getdoc(obj) if callable(obj) else None
    if not doc:
        return None
    name = dotted.rpartition(".")[2]
    for paragraph in re.split(r"\n\s*\n", _plain(doc)):
        text = " ".join(paragraph.split())
        for found in _SUBJECT.finditer(text):
            subject = found["subject"].split("(")[0]
            if subject == ("This class" if isinstance(obj, type) else "This function") or subject == "This method" \
                    and not isinstance(obj, type) or subject == dotted or subject.rpartition(".")[2] == name \
                    and subject.startswith("torch."):
                return "docstring", text[found.start():][:240]
    return None


def _resolve(dotted: str):
    import torch  # the cell names torch: lint-npu's meta run imports it too

    value = torch
    for part in dotted.split(".")[1:]:
        if part.startswith("_"):
            return None
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def findings(tree: ast.Module, imported: dict[str, str]) -> list[tuple[int, str, str]]:
    """(line, written, message) of each call of a torch callable torch marks deprecated."""
    out = []
    for node in ast.walk(tree):
        parts = dotted_parts(node.func) if isinstance(node, ast.Call) else None
        if not parts or parts[0] not in imported:
            continue
        dotted = ".".join([imported[parts[0]], *parts[1:]])
        if not dotted.startswith("torch.") or dotted.startswith("torch.npu"):
            continue  # torch_npu's pages are Chinese text of their own
        try:
            obj = _resolve(dotted)
            said = _said(obj, dotted) if obj is not None else None
        except Exception:  # an attribute that cannot be read says nothing
            said = None
        if said is None:
            continue
        import torch

        where, text = said
        out.append((node.lineno, ".".join(parts), t("lint.deprecated_call", line=node.lineno, written=".".join(parts),
                                                    version=torch.__version__.split("+")[0], where=where, said=text)))
    return out
