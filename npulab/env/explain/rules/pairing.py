"""Installed releases that do not pair, read from the package listing a log shows (``pip list`` rows, ``pip freeze``
pins, ``name: version`` lines): each pair is a documented rule of its project, not a thread's words.

- torch_npu X.Y.Z (rcN, .postN, .devDATE) is built for PyTorch X.Y.Z (Ascend/pytorch COMPATIBILITY.en.md: every row
  pairs a torch_npu release with the PyTorch release of the same number);
- torchvision 0.N pairs with PyTorch 2.(N-15) (pytorch/vision README, "Installation": 0.15 ↔ 2.0 … 0.24 ↔ 2.9);
- torchaudio 2.N pairs with PyTorch 2.N; from 2.11 on, torchaudio is built against PyTorch's stable ABI and works with
  its own PyTorch release and every later one (pytorch/audio docs, installation, "Compatibility Matrix");
- vllm-ascend X.Y.Z[rcN] is written for vLLM X.Y.Z (vllm-ascend docs, "Versioning policy": the release number is
  the vLLM release it supports); a development build (``.dev``, ``+g<commit>``, ``-dev``) is not compared;
- a local version label ``+torchA.B.C`` (PEP 440 local version identifiers; MindIE Torch's wheels name the torch they
  were built against so) names the PyTorch a wheel was built for.

A disagreement is a ``version_mismatch``: the fix is the family's, with the pairs the listing shows added as its note.
Data: npulab/data/explain_rules.yaml ``pairing``."""

from __future__ import annotations

import re

from npulab.core.i18n import language, t
from npulab.env.explain.catalog import COMMANDS
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "release_pairing"
_VERSION = r"v?(\d+\.\d+(?:\.\d+)?[\w.+-]*)"
# a listing row: "torch-npu   2.5.1rc1", "- torch_npu==2.5.1", "torch: 2.5.1", "| vllm | 0.9.0 |" (a trailing install
# path of an editable install allowed); only the packages whose pairs are documented above, or any with a +torch label
_ROW = re.compile(r"^\s*(?:[-*|]\s*)?(torch|torch[-_]npu|torchvision|torchaudio|vllm|vllm[-_]ascend)\s*"
                  r"(?:==|[:：]|\s|\|)\s*" + _VERSION + r"\s*(?:\|\s*)?(?:/\S*)?\s*$", re.IGNORECASE)
_LABELLED = re.compile(r"^\s*(?:[-*|]\s*)?([A-Za-z][\w.-]*)\s*(?:==|[:：]|\s)\s*(v?\d[\w.]*\+torch(\d+\.\d+(?:\.\d+)?)[\w.]*)\s*$")
_NUMBER = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
STABLE_ABI_AUDIO = (2, 11)  # the first torchaudio built against PyTorch's stable ABI (docs.pytorch.org/audio/2.11.0)
_DEV_BUILD = re.compile(r"(?i)\.dev|\+g[0-9a-f]|-dev")


def read(line: str) -> dict | None:
    m = _ROW.match(line)
    if m:
        return {"package": m.group(1).lower().replace("_", "-"), "version": m.group(2), "focus": m.group(0).strip()}
    m = _LABELLED.match(line)
    if m:
        return {"package": m.group(1).lower().replace("_", "-"), "version": m.group(2), "built_for": m.group(3),
                "focus": m.group(0).strip()}
    return None


def release(version: str, parts: int = 3) -> tuple[int, ...]:
    """``2.5.1rc1`` → (2, 5, 1); ``0.20.1`` with ``parts=2`` → (0, 20)."""
    m = _NUMBER.match(version)
    return tuple(int(p) for p in m.groups() if p is not None)[:parts] if m else ()


def disagreements(installed: dict[str, str], labels: dict[str, str]) -> list[str]:
    """The documented pairs the listed releases break, each described in the reader's language."""
    out = []
    torch = installed.get("torch")
    npu = installed.get("torch-npu")
    if torch and npu and release(torch) != release(npu):
        out.append(t("explain.pairing.torch_npu", torch=torch, npu=npu))
    vision = installed.get("torchvision")
    if torch and vision and release(torch, 2)[:1] == (2,) and release(vision, 2) != (0, release(torch, 2)[1] + 15):
        out.append(t("explain.pairing.torchvision", torch=torch, vision=vision, wanted=f"0.{release(torch, 2)[1] + 15}"))
    audio = installed.get("torchaudio")
    if torch and audio and release(torch, 2)[:1] == (2,) and (
            release(torch, 2) < release(audio, 2) if release(audio, 2) >= STABLE_ABI_AUDIO else
            release(audio, 2) != release(torch, 2)):
        out.append(t("explain.pairing.torchaudio", torch=torch, audio=audio))
    vllm, ascend = installed.get("vllm"), installed.get("vllm-ascend")
    if vllm and ascend and not (_DEV_BUILD.search(vllm) or _DEV_BUILD.search(ascend)) and release(vllm) != release(ascend):
        out.append(t("explain.pairing.vllm", vllm=vllm, ascend=ascend))
    for package, built_for in labels.items():
        if torch and release(built_for, 2) != release(torch, 2):
            out.append(t("explain.pairing.label", package=package, version=installed[package], built_for=built_for,
                         torch=torch))
    return out


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    installed: dict[str, str] = {}
    labels: dict[str, str] = {}
    for hit in hits:  # the first listing of each package
        if hit.facts["package"] not in installed:
            installed[hit.facts["package"]] = hit.facts["version"]
            if "built_for" in hit.facts:
                labels[hit.facts["package"]] = hit.facts["built_for"]
    broken = disagreements(installed, labels)
    if not broken:
        return None
    note = t("explain.pairing.note", pairs=t("explain.separator").join(broken),
             install=COMMANDS[language()]["{torch_cpu_install}"])  # the torch command written in one place
    return rule_finding(NAME, t("explain.pairing.title"), t("explain.pairing.cause"), note, hits,
                        rules_data()["pairing"]["sources"], family="version_mismatch", note=note)


RULE = Rule(NAME, (b"torch", b"vllm"), read, finding, root=False, most=12)
