"""How the code chose its device, read from the source lines a traceback shows: an availability check tested
without calling it (``elif is_torch_npu_available:``, ``if torch.npu.is_available and …``). A function object is
always true, so the branch runs on every machine — one with no NPU, or no torch_npu, picks ``npu`` all the same, and
torch then says it does not know that device. The fix is the call: ``is_torch_npu_available()``. Read at any level
(the source lines sit under a traceback's frames), noted once per log (``LogFacts.uncalled``)."""

from __future__ import annotations

import re

NEEDLES = (b"available",)  # lower-cased
# "if"/"elif" (after a traceback's line number or arrow), an optional "not", a predicate named like a function
# (``is_…available``, dotted or not: a flag such as ``npu_available`` may well be a bool) with no call after it: ":"
# or "and"/"or" right after the name
_UNCALLED = re.compile(r"(?:^|[\s>])(?:el)?if\s+(?:not\s+)?((?:[A-Za-z_]\w{0,40}\.){0,6}is_\w{0,60}available)"
                       r"\s*(?::|\s(?:and|or)\s)")


def read(line: str) -> str | None:
    """The availability check a source line tests without calling it, or None."""
    m = _UNCALLED.search(line)
    return m.group(1) if m else None
