"""ascend-dmi as data and text: its modes and diagnosis items (``npulab/data/ascend_dmi.yaml``), and readers for
its help, version and diagnosis output — so a lesson can teach the tool on a machine that does not have it.
"""

from __future__ import annotations

import re

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml

DMI_FILE = DATA_DIR / "ascend_dmi.yaml"
RESULTS = ("PASS", "SKIP", "FAIL")


def load() -> dict:
    """The data file: sources, modes, diagnosis_items, bandwidth and flops notes."""
    return load_yaml(DMI_FILE)


def modes() -> list[dict]:
    """Every mode: key, options, what, CUDA analogue, what it needs, sources (the texts in the reader's language)."""
    return [{**m, **{k: localized(m, k) for k in ("what", "cuda", "needs")}} for m in load()["modes"]]


def diagnosis_items(source: str | None = None) -> list[dict]:
    """Diagnosis items; ``source="seed"`` gives the seed's 12, ``source="help_730"`` the 7.3.0 help text's 15."""
    items = [{**i, "kind": localized(i, "kind"), "what": localized(i, "what")} for i in load()["diagnosis_items"]]
    if source is None:
        return list(items)
    key = {"seed": "in_seed", "help_730": "in_help_730"}[source]
    return [item for item in items if item[key]]


def diagnosis_command(items: list[str], device: int | None = None, quiet: bool = True) -> list[str]:
    """``ascend-dmi --dg -i a,b …`` after checking the rules of the 7.3.0 help text; ValueError (Chinese) otherwise.

    Rules: names must be known; aicore, prbs, edp, tdp, aicpu and random run alone; hbm and chipMemory not together.
    """
    known = {i["name"]: i for i in load()["diagnosis_items"]}
    if not items:
        raise ValueError(t("dmi.no_items"))
    unknown = [name for name in items if name not in known]
    if unknown:
        raise ValueError(t("dmi.unknown_items", items=", ".join(unknown), known=", ".join(known)))
    not_in_help = [name for name in items if not known[name]["in_help_730"]]
    if not_in_help:
        hint = t("dmi.p2p_hint") if "p2p" in not_in_help else ""
        raise ValueError(t("dmi.seed_only", items=", ".join(not_in_help), hint=hint))
    exclusive = [name for name in items if known[name]["exclusive"]]
    if exclusive and len(items) > 1:
        raise ValueError(t("dmi.exclusive", items=", ".join(exclusive)))
    if {"hbm", "chipMemory"} <= set(items):
        raise ValueError(t("dmi.hbm_chip_memory"))
    argv = ["ascend-dmi", "--dg", "-i", ",".join(items)]
    if device is not None:
        argv += ["-d", str(device)]
    if quiet:
        argv.append("-q")
    return argv


def p2p_stress_command(device: int | None = None, quiet: bool = True) -> list[str]:
    """The P2P stress test (MindCluster 7.3.0 / 26.1.0, toolboxug_0143): ``ascend-dmi --dg -i bandwidth --type p2p -s``."""
    argv = ["ascend-dmi", "--dg", "-i", "bandwidth", "--type", "p2p", "-s"]
    if device is not None:
        argv += ["-d", str(device)]
    if quiet:
        argv.append("-q")
    return argv


def parse_version(text: str) -> str | None:
    """``ascend-dmi version: 26.0.1`` → ``"26.0.1"`` (None when absent)."""
    match = re.search(r"ascend-dmi\s+version\s*:\s*(\S+)", text, flags=re.I)
    return match[1] if match else None


def parse_help(text: str) -> list[tuple[str, ...]]:
    """The option spellings listed by ``ascend-dmi -h``, e.g. ``[("-v", "--version"), ("--bw", "--bandwidth"), …]``."""
    out = []
    for line in text.splitlines():
        match = re.match(r"^\s{1,4}((?:-{1,2}[\w-]+)(?:,\s*-{1,2}[\w-]+)*)\s{2,}\S", line)
        if match:
            out.append(tuple(part.strip() for part in match[1].split(",")))
    return out


def parse_diagnosis(text: str) -> dict:
    """``ascend-dmi --dg`` output → ``{"summary": {…}, "results": {section: {item: PASS|SKIP|FAIL}}}``."""
    summary: dict[str, str] = {}
    results: dict[str, dict[str, str]] = {}
    section = item = None
    for line in text.splitlines():
        if not line.strip() or "ascend-dmi" in line or "Do you want to continue" in line:
            continue
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if indent == 0 and stripped.endswith(":"):
            section, item = stripped[:-1], None
            continue
        if section == "Summary" and ":" in stripped:
            key, _, value = stripped.partition(":")
            summary[key.strip().lower()] = value.strip()
        elif section and stripped.endswith(":"):
            item = stripped[:-1]
        elif section and item and stripped.upper() in RESULTS:
            results.setdefault(section.lower(), {})[item] = stripped.upper()
        elif section and ":" in stripped:  # "item: PASS" on one line
            key, _, value = stripped.partition(":")
            if value.strip().upper() in RESULTS:
                results.setdefault(section.lower(), {})[key.strip()] = value.strip().upper()
    if not summary and not results:
        raise ValueError(t("dmi.not_diagnosis"))
    return {"summary": summary, "results": results}
