"""The generic finding: what to do with any Ascend error, recognised family or not.

It is reported whenever the log shows an error and is about Ascend (or shows a code of a known scheme): it names
the root error line, decodes every code, and lists the generic triage steps — synchronous launch to pin the
failing operator, where the plog and device logs are and how to raise their level, printing them to the screen,
``npu-smi info`` and ``python -m npulab doctor``. Its category is ``generic_triage`` and it always comes last.
Its text is in npulab's language (``explain.generic.*`` in ``npulab/data/messages/explain.yaml``).
"""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.catalog import GENERIC
from npulab.env.explain.codes import CodeHit
from npulab.env.explain.matcher import Evidence, Finding
from npulab.env.explain.root import RootLine

SOURCES = [
    "https://www.hiascend.com/document/detail/zh/Pytorch/720/comref/Envvariables/Envir_006.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850/maintenref/logreference/logreference_0002.html",
    "https://www.hiascend.com/document/detail/zh/canncommercial/700/reference/envvar/envref_07_0101.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/910beta3/maintenref/envvar/envref_07_0122.html",
    "https://www.hiascend.com/document/detail/zh/canncommercial/900/maintenref/envvar/envref_07_0121.html",
    "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/900beta2/maintenref/troubleshooting/troubleshooting_0225.html",
]


_INNER = re.compile(r"^E[0-9A-Z]9999$")  # CANN's "Inner Error!" of each module (EE9999, EZ9999, EI9999 …)


def should_report(root: RootLine | None, codes: list[CodeHit], ascend_context: bool) -> bool:
    """A generic finding is due when the log shows an error and is about Ascend (or shows a known code)."""
    if root is None:
        return False
    return ascend_context or bool(codes)


def generic_finding(root: RootLine, strongest: list[RootLine], codes: list[CodeHit], *, families: int,
                    component: str | None = None, pip: str | None = None) -> Finding:
    """The generic finding: root error line first, the component it was raised in, the decoded codes, the steps."""
    if root.rank == 0:  # no error line: a CANN component's warning that reports a time-out or a failure
        parts = [t("explain.generic.warning_root", line=root.line, text=root.text)]
    else:
        parts = [t("explain.generic.root", line=root.line, text=root.text)]
    if component:
        parts.append(t("explain.generic.component", component=component, pip=pip or component))
    if codes:
        parts.append(t("explain.generic.codes", codes=t("explain.separator").join(h.info.describe() for h in codes)))
    if not families:
        parts.append(t("explain.generic.no_case"))
    evidence: dict[int, Evidence] = {root.line: Evidence(root.line, root.text)}
    for extra in strongest:
        if len(evidence) >= 3:
            break
        evidence.setdefault(extra.line, Evidence(extra.line, extra.text))
    for hit in codes:
        if len(evidence) >= 4:
            break
        evidence.setdefault(hit.line, Evidence(hit.line, hit.text))
    sources = list(dict.fromkeys(SOURCES + [h.info.source for h in codes]))
    fix = t("explain.generic.fix")
    inner = next((h.info.code for h in codes if _INNER.match(h.info.code)), None)
    if inner and not families:  # CANN's own report of an internal fault, and nothing more specific was found
        fix = f"{fix}{t('explain.generic.inner_error', code=inner)}"
    return Finding(GENERIC, t("explain.generic.title"), [h.info.code for h in codes], "\n".join(parts), fix,
                   sorted(evidence.values(), key=lambda e: e.line), sources, priority=-1,
                   casebook="read-a-code", kind="generic")
