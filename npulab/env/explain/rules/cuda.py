"""A CUDA call in an error line of an Ascend log: ``torch.cuda.synchronize()`` in a traceback, "error with cuda
synchronize" in a report, ``.cuda()``, ``device="cuda"``. On Ascend the torch build has no CUDA: code (or a
framework) that calls CUDA's API runs into it whatever the wording, and the fix is the call's NPU counterpart
(npulab/data/cuda_npu_api.yaml; torch_npu mirrors ``torch.cuda.X`` as ``torch.npu.X``). The catalog family
``cuda_hardcoded`` explains it; the rule adds the counterpart of the call the line names. CUDA graphs (``cudagraph``,
vLLM's ``cudagraph_mode``) are not calls: vLLM-Ascend maps them to ACL graphs itself."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding

NAME = "cuda_call"
FAMILY = "cuda_hardcoded"
# torch.cuda.<function> (an exception class such as torch.cuda.OutOfMemoryError is a type, not a call), "cuda
# synchronize" in words, tensor.cuda(), device="cuda" / .to("cuda:0")
_CALL = re.compile(r"\btorch\.cuda\.([a-z_]\w*)|(?i:\bcuda[ ._]?(synchroni[sz]e))|(\.cuda\(\))|"
                   r"(?:\bdevice\s*=\s*|\.to\(\s*)(['\"]cuda(?::\d+)?['\"])")
SOURCES = ["https://github.com/Ascend/pytorch/blob/master/README.md"]


def read(line: str) -> dict | None:
    m = _CALL.search(line)
    if not m:
        return None
    if m.group(1):
        call = f"torch.cuda.{m.group(1)}"
    elif m.group(2):
        call = "torch.cuda.synchronize"
    elif m.group(3):
        call = ".cuda()"
    else:
        call = "'cuda'"  # the device string, whatever its index
    return {"call": call, "focus": m.group(0)}


@functools.cache
def _pairs() -> tuple[tuple[str, str], ...]:
    # the map's data file itself: npulab.migrate.api_map (which renders it) is a layer above explain
    return tuple((p["cuda"], p["npu"]) for p in load_yaml(DATA_DIR / "cuda_npu_api.yaml")["pairs"])


def counterpart(call: str) -> str:
    """The NPU counterpart of a CUDA call: the API map's row that names it, else torch_npu's mirror torch.npu.X."""
    for cuda, npu in _pairs():
        if call in cuda:
            return npu
    return call.replace("torch.cuda.", "torch.npu.", 1)


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    call = hits[0].facts["call"]
    note = t("explain.rule.cuda_call.note", call=call, npu=counterpart(call))
    return rule_finding(NAME, t("explain.rule.cuda_call.title", call=call), note, note, hits, SOURCES,
                        family=FAMILY, note=note)


RULE = Rule(NAME, (b"cuda",), read, finding, needs_error=True)
