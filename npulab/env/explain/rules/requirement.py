"""pip's own account of a version it cannot satisfy: "X requires Y, but you have Z which is incompatible" (or
"which is not installed"), and "F.whl is not a supported wheel on this platform" — the wheel's tags name the Python
version and the machine it was built for; "Cannot install … conflicting dependencies" with the "A depends on X" lines
under it: requirements no single version satisfies; and a program's own version check ("X requires torch>=2.3 but
found torch 2.1.0"); and two exact pins of one package that two requirers ask for ("vllm-ascend requires
torch==2.7.1" and "vllm pulls in torch==2.8.0", in one line or two). The fix names the versions the line gives; when
the package belongs to
the torch / torch_npu / vLLM-Ascend stack it is the catalog's ``version_mismatch`` family
(npulab/data/explain_rules.yaml ``requirement``)."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import packages
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "requirement"
# each requirer's name starts a token (the look-behind): a match tried from inside a long token would rescan it to its
# end from every position
_CONFLICT = re.compile(r"(?<![\w.-])([A-Za-z0-9][\w.-]*)\s+[\w.+-]*\s*requires\s+([A-Za-z0-9][\w.-]*\s*(?:[<>=!~]=?\s*[\w.*+-]+"
                       r"(?:\s*,\s*[<>=!~]=?\s*[\w.*+-]+)*)?),\s+(?:but you have\s+([\w.-]+\s+[\w.+-]+)|which is not installed)")
_WHEEL = re.compile(r"([\w.+-]+?)-([\w.+!]+)-(cp\d+|py\d+)-[\w.]+-([\w.]+)\.whl is not a supported wheel on this platform")
_PY = re.compile(r"cp(\d)(\d+)")
# a program's own version check: "flash_attn requires torch>=2.3 but found torch 2.1.0", "X requires torch-npu>=2.5.1,
# but the installed version is 2.4.0"
_RUNTIME = re.compile(r"(?<![\w.-])([A-Za-z0-9][\w.-]*)\s+(?:[\w.+-]+\s+)?requires?\s+([A-Za-z][\w.-]*)\s*((?:[<>=!~]=?)\s*\d[\w.*+]*)"
                      r"[,;]?\s+but\s+(?:found|got|you have|(?:the\s+)?(?:installed|current)(?:\s+version)?(?:\s+is)?|is)"
                      r"\s*:?\s*(?:[A-Za-z][\w.-]*\s+)?v?(\d[\w.+]*)")
# packaging's InvalidVersion, raised by pip while it reads every installed package's metadata
_INVALID = re.compile(r"Invalid version: ['\"]([^'\"\s]{1,60})['\"]")
_RESOLVER = re.compile(r"Cannot install (.{1,200}?) because these package versions have conflicting dependencies")
# an exact pin that a requirer asks for, in any wording ("requires torch==2.7.1", "pulls in torch==2.8.0",
# "依赖torch==2.8.0"): a line with a requirer's verb and at least one pin
_ASKS = re.compile(r"(?i:\brequires?\b|\bdepends? on\b|\bpulls? in\b|\bpins?\b|\bneeds?\b|\bwants?\b)|依赖|需要|要求")
_PIN = re.compile(r"(?<![A-Za-z0-9_.-])([A-Za-z][\w.-]{0,80}[A-Za-z0-9])\s*==\s*v?(\d+(?:\.\d+)+[\w.+]*)")
_DEPENDS = re.compile(r"(?<![\w.-])([A-Za-z0-9][\w.-]*(?:\[[\w,.-]+\])?)\s+([\w.+!-]+)\s+depends on\s+([A-Za-z0-9][^;\s]*(?:\s*[<>=!~]=?\s*[\w.*+-]+)?)")


def read(line: str) -> dict | None:
    lowered = line.lower()
    m = _CONFLICT.search(line) if "requires" in lowered else None  # each form only where its words are
    if m:
        return {"kind": "conflict", "who": m.group(1), "wants": " ".join(m.group(2).split()), "has": m.group(3),
                "focus": "requires"}
    m = _RUNTIME.search(line) if "require" in lowered else None
    if m:
        return {"kind": "runtime", "who": m.group(1), "package": m.group(2), "spec": re.sub(r"\s+", "", m.group(3)),
                "has": m.group(4), "focus": "requires"}
    m = _DEPENDS.search(line) if "depends on" in lowered else None
    if m:
        return {"kind": "depends", "who": f"{m.group(1)} {m.group(2)}", "wants": m.group(3), "focus": "depends on"}
    m = _RESOLVER.search(line)
    if m:
        return {"kind": "resolver", "who": m.group(1), "focus": "conflicting dependencies"}
    pins = _PIN.findall(line) if "==" in line else []
    if pins and _ASKS.search(line):
        return {"kind": "pins", "pins": [(_name(n), v) for n, v in pins], "focus": f"{pins[0][0]}=="}
    m = _INVALID.search(line)
    if m:
        return {"kind": "invalid", "version": m.group(1), "focus": "Invalid version"}
    m = _WHEEL.search(line) if "supported wheel" in lowered else None
    if m:
        py = _PY.match(m.group(3))
        return {"kind": "wheel", "who": m.group(1), "wants": m.group(2), "python": f"{py.group(1)}.{py.group(2)}" if py
                else m.group(3), "platform": m.group(4), "focus": "not a supported wheel"}
    return None


# a pin on a local version of PyTorch's CPU index ("torch==2.6.0+cpu"): PyPI never holds such a version (PEP 440 local
# version labels), only https://download.pytorch.org/whl/cpu does
_CPU_VARIANT = re.compile(r"(?<![\w.-])([A-Za-z][\w.-]*)\s*==\s*(\d+(?:\.\d+)+\+cpu)(?![\w.])")


def _cpu_variant(hits: list[RuleHit]) -> str:
    """The advice for a pin on a ``+cpu`` local version among the requirements pip names, or ""."""
    for h in hits:
        for value in h.facts.values():
            m = _CPU_VARIANT.search(value) if isinstance(value, str) else None
            if m:
                return t("explain.requirement.cpu_variant", package=m.group(1), version=m.group(2))
    return ""


def cann_requirer(facts: dict) -> bool:
    """Whether pip names one of CANN's own Python packages as the requirer ("te 0.4.0 requires attrs, which is not
    installed", "opc-tool 0.1.0 requires psutil …"): the package index places its module in the CANN Toolkit or HCCL,
    which install those wheels into their python/site-packages. Such a line is Ascend's own."""
    if facts.get("kind") != "conflict":
        return False
    found = packages.for_module(facts["who"].replace("-", "_").lower())
    return found is not None and found.id in _CANN_PACKAGES


_CANN_PACKAGES = ("cann_toolkit", "cann_hccl")


def _name(req: str) -> str:
    return re.split(r"[<>=!~\s]", req, maxsplit=1)[0].lower()


def _resolver(hits: list[RuleHit]) -> tuple[str, str, str, set[str]]:
    """pip's resolver gave up: the requirements that cannot all hold ("A depends on X", "B depends on Y")."""
    pins = [h.facts for h in hits if h.facts["kind"] == "depends"]
    said = (t("explain.separator").join(t("explain.requirement.pin", who=p["who"], wants=p["wants"]) for p in pins)
            or t("explain.requirement.listed"))
    title = t("explain.requirement.resolver.title")
    cause = t("explain.requirement.resolver.cause", said=said)
    fix = t("explain.requirement.resolver.fix")
    return title, cause, fix, {_name(p["wants"]) for p in pins} | {_name(p["who"]) for p in pins}


def disagreeing_pins(pins: list[tuple[str, str]]) -> dict[str, list[str]]:
    """The packages pinned to more than one exact version (in order of first mention), with those versions."""
    versions: dict[str, list[str]] = {}
    for name, version in pins:
        versions.setdefault(name.replace("_", "-"), [])
        if version not in versions[name.replace("_", "-")]:
            versions[name.replace("_", "-")].append(version)
    return {name: vs for name, vs in versions.items() if len(vs) > 1}


def _pins(hits: list[RuleHit], data: dict) -> Finding | None:
    """Two requirers pin one package to different versions: no environment holds both (a version mismatch)."""
    clash = disagreeing_pins([pin for h in hits for pin in h.facts["pins"]])
    if not clash:
        return None
    package, versions = next(iter(clash.items()))
    shown = t("explain.separator").join(f"`{package}=={v}`" for v in versions)
    title = t("explain.requirement.pins.title", package=package)
    cause = t("explain.requirement.pins.cause", package=package, versions=shown)
    fix = t("explain.requirement.pins.fix", package=package)
    stack = {s.lower().replace("_", "-") for s in data["stack"]}
    return rule_finding(NAME, title, cause, fix, hits, data["sources"],
                        family=data["family"] if package in stack else None,
                        note=t("explain.rule.note_pair", cause=cause, fix=fix))


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    data = rules_data()["requirement"]
    pinned = [h for h in hits if h.facts["kind"] == "pins"]
    hits = [h for h in hits if h.facts["kind"] != "pins"]
    if not hits:
        return _pins(pinned, data)
    first = hits[0].facts
    if first["kind"] in ("resolver", "depends"):
        title, cause, fix, involved = _resolver([h for h in hits if h.facts["kind"] in ("resolver", "depends")])
    elif first["kind"] == "runtime":
        who, pkg, spec, has = first["who"], first["package"], first["spec"], first["has"]
        title = t("explain.rule.requires.title", who=who, package=pkg, spec=spec)
        cause = t("explain.rule.requires.cause", who=who, package=pkg, spec=spec, has=has)
        fix = t("explain.rule.requires.fix", who=who, package=pkg, spec=spec)
        involved = {pkg.lower(), who.lower()}
    elif first["kind"] == "conflict":
        wanted, who = first["wants"], first["who"]
        has = t("explain.requirement.has", has=first["has"]) if first["has"] else t("explain.requirement.not_installed")
        title = t("explain.requirement.conflict.title", who=who, wanted=wanted)
        cause = t("explain.requirement.conflict.cause", who=who, wanted=wanted, has=has)
        fix = t("explain.requirement.conflict.fix", who=who, wanted=wanted)
        involved = {_name(wanted), who.lower()}
    elif first["kind"] == "invalid":  # an installed package's version, not the one being installed: no pairing
        version = first["version"]
        return rule_finding(NAME, t("explain.requirement.invalid.title", version=version),
                            t("explain.requirement.invalid.cause", version=version),
                            t("explain.requirement.invalid.fix", version=version), hits, data["invalid_sources"])
    else:
        who, py, platform = first["who"], first["python"], first["platform"]
        title = t("explain.requirement.wheel.title", who=who)
        cause = t("explain.requirement.wheel.cause", python=py, platform=platform)
        fix = t("explain.requirement.wheel.fix", python=py)
        involved = {who.lower()}
    fix += _cpu_variant(hits)
    stack = {s.lower() for s in data["stack"]}
    runtime = first["kind"] not in ("resolver", "depends")  # a resolver's refusal installs nothing: no mismatch yet
    family = (data["cann_family"] if any(cann_requirer(h.facts) for h in hits)
              else data["family"] if runtime and involved & stack else None)
    return rule_finding(NAME, title, cause, fix, hits, data["sources"], family=family,
                        note=t("explain.rule.note_pair", cause=cause, fix=fix))


RULE = Rule(NAME, (b" requires ", b"not a supported wheel", b"invalid version", b"conflicting dependencies", b" depends on ",
                  b"=="), read, finding)
