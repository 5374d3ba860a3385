"""A shared library that cannot be loaded (``libX.so: cannot open shared object file``, ``error while loading shared
libraries``, ldd's ``libX.so => not found``, ``libX.so 找不到``): which package ships it (npulab/data/ascend_packages.yaml) and how that package puts it on the loader's
path — CANN and the driver through ``set_env.sh`` / LD_LIBRARY_PATH, a pip package (torch_npu) from its own ``lib/``
folder when it is imported; a library the index lacks by name belongs to the package whose installation folder the
line names it in (``/usr/local/Ascend/ascend-toolkit/…/libx.so``: the CANN Toolkit); an unknown library is found and
added to LD_LIBRARY_PATH (ld.so's search order); a library of the Linux distribution (libGL.so.1, explain_rules.yaml
``library.system``) is installed with the distribution's package manager."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import packages
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data, sentence

NAME = "missing_library"
_CANNOT_OPEN = re.compile(r"([\w.+-]+\.so(?:\.\d+)*)\s*:\s*cannot open shared object file")
_LOADING = re.compile(r"error while loading shared libraries:\s*([\w.+-]+\.so[\w.]*)")
# the same fact in other words: ldd's "libX.so => not found", a user's or a tool's "libX.so 找不到", "cannot find
# libX.so", "libX.so is missing" (a library by its file name, lib….so, so a linker's "-lX" or a Python module is not one)
_LIB = r"(lib[\w+-]{1,80}(?:\.[\w+-]{1,40}){0,6}?\.so(?:\.\d{1,6}){0,4})"
_NOT_FOUND = re.compile(_LIB + r"(?:\s*=>)?\s*(?:(?:was|is)\s+)?(?:not found|missing|找不到|未找到|缺失)|"
                        r"(?i:cannot find|can't find|could not find|unable to find|missing|找不到|未找到|缺少)\s*:?\s*" + _LIB)


# a system library named with a longer version than its soname ("libgomp.so.1.0.0" → "libgomp.so.1")
_SYSTEM_VERSION = re.compile(r"^(lib[\w+-]*\.so\.\d+)(?:\.\d+)+$")
_TOKEN_END = re.compile(r"[^\s:'\"()\[\]]*$")  # the path just before the library's name (anchored: one pass)


def read(line: str) -> dict | None:
    m = ((_CANNOT_OPEN.search(line) if "cannot open shared" in line else None)  # each form only where its words are
         or (_LOADING.search(line) if "error while loading" in line else None))
    lib = m.group(1) if m else None
    if lib is None:
        m = _NOT_FOUND.search(line)
        lib = m and (m.group(1) or m.group(2))
        if not lib or f"not in {lib}" in line:  # "aclnnX not in libopapi.so, or libopapi.so not found": a symbol's line
            return None
    facts = {"library": lib, "focus": lib}
    folder = _folder(line, lib)
    if folder:
        facts["folder"] = folder
    return facts


def _folder(line: str, lib: str) -> str | None:
    """The folder the line names the library in ("/usr/local/Ascend/ascend-toolkit/latest/lib64/libx.so: cannot
    open …"), or None when the name stands alone."""
    at = line.find(lib)
    if at <= 0 or line[at - 1] != "/":
        return None
    return _TOKEN_END.search(line, max(0, at - 400), at).group(0) or None


def provider(facts: dict) -> packages.Package | None:
    """The package that ships the library a line names: by its file name, else by the folder the line names it in."""
    return packages.for_library(facts["library"]) or packages.for_path(facts.get("folder", ""))


def npu_stack(facts: dict) -> bool:
    """Whether the library belongs to the Ascend stack (CANN, the driver, NNAL, torch_npu…; torch's own are not)."""
    pkg = provider(facts)
    return pkg is not None and pkg.wheel != "torch"


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    lib = hits[0].facts["library"]
    pkg = provider(hits[0].facts)
    title = t("explain.library.title", lib=lib)
    system = _SYSTEM_VERSION.sub(r"\1", lib) if pkg is None else None
    distro = rules_data()["library"]["system"].get(system) if system else None
    if distro:  # a library of the distribution: its package manager installs it
        cause = t("explain.library.system.cause", lib=lib)
        fix = t("explain.library.system.fix", apt=distro["apt"], yum=distro["yum"])
        fix += t("explain.library.system.headless") if distro.get("headless") else ""
        family = None
    elif pkg is None:
        cause = t("explain.library.unknown.cause", lib=lib)
        fix = t("explain.library.unknown.fix", lib=lib)
        family = None
    elif pkg.wheel:
        cause = t("explain.library.wheel.cause", lib=lib, name=pkg.name, wheel=pkg.wheel)
        fix = t("explain.library.wheel.fix", wheel=pkg.wheel, install=pkg.install)
        family = None
    else:
        cause = t("explain.library.package.cause", lib=lib, name=pkg.name)
        fix = sentence(t("explain.library.package.fix", install=pkg.install))
        family = pkg.family
    sources = [*rules_data()["library"]["sources"], *(pkg.sources if pkg else ()),
               *(rules_data()["library"]["system_sources"] if distro else ())]
    return rule_finding(NAME, title, cause, fix, hits, sources, family=family, note=t("explain.library.note", lib=lib, name=pkg.name if pkg else t("explain.library.unlisted")))


RULE = Rule(NAME, (b"cannot open shared object", b"error while loading shared", b"not found", b"missing", b"find",
                  "找不到".encode(), "未找到".encode(), "缺失".encode(), "缺少".encode()), read, finding)
