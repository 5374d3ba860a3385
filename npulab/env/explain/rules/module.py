"""``No module named X``, ``cannot import name N from M`` and ``module M has no attribute N``: which distribution
provides the module for the Ascend stacks (npulab/data/ascend_packages.yaml), and what the form of the name says — a
compiled extension (``pkg._C``) missing, or a name imported from a module of "unknown location" (a bare directory of
the same name, a namespace package), means a folder shadows the installed package; a missing submodule or
name of an installed package means its version does not match the code that uses it (for torch, torch_npu and CANN:
the version table's family); a missing top-level module means it is not installed in this Python."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import library, packages
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data, sentence

NAME = "missing_module"
# (round 14: also as people retell it in a title: "no modules named 'decorator'", any case)
_NO_MODULE = re.compile(r"(?i:No modules? named) ['\"]?([A-Za-z_][\w.]*)")
_NO_NAME = re.compile(r"cannot import name ['\"]?(\w+)['\"]? from ['\"]?([A-Za-z_][\w.]*)")
_NO_ATTRIBUTE = re.compile(r"module ['\"]([A-Za-z_][\w.]*)['\"] has no attribute ['\"](\w+)")
_NOT_PACKAGE = re.compile(r"['\"]?[A-Za-z_]\w*['\"]? is not a package")  # "No module named 'a.b'; 'a' is not a package"
_UNKNOWN_LOCATION = re.compile(r"['\"]?\s*\(unknown location\)")  # the module has no __file__: a bare directory
# Transformers' check of a model's remote code: "requires the following packages that were not found in your
# environment: flash_attn. Run `pip install flash_attn`" (the first package named)
_NOT_FOUND_PACKAGES = re.compile(r"requires the following packages? that (?:were|was) not found in your environment:\s*([A-Za-z_][\w.]*)")
# an import that failed, said in words ("Failed to import X", "error importing X", "x.y import error"): the same
# reading as a missing module (the dotted form only, so "the import error" names no module)
_IMPORT_FAILED = re.compile(r"(?i)\b(?:failed to import|error (?:while )?importing|could not import|unable to import)"
                            r"\s+[`'\"]?([A-Za-z_][\w.]*\w)|\b([A-Za-z_]\w*(?:\.\w+)+)\s+import(?:ing)? (?:error|fail)")
# a package missing, said in words, with the noun that makes the name a package ("缺少 decorator 依赖包", "missing the
# sympy package", "package cffi is not installed", "未安装 psutil 模块")
_NOUN = r"(?:依赖包|依赖库|依赖|包|库|模块|(?i:python\s+)?(?i:package|module|dependency|library))"  # round 14: 库, library
_NAME = (r"[`'\"]?(?!(?i:python|the|an?|some|required|following|dependency|package|module)\b)"
         r"([A-Za-z_][\w.]{0,60}?)[`'\"]?")
_MISSING_IN_WORDS = re.compile(r"(?:缺少|缺失|少了|没有安装|没装|未安装|(?i:\bmissing(?: the)?))\s*" + _NAME + r"\s*(?:这个)?" + _NOUN
                               + r"|(?i:\b(?:package|module|dependency))\s+" + _NAME + r"\s+(?i:is\s+)?(?i:missing|not installed)\b")
# a shared library named as "missing … library" (the library rule's case, not a Python module): libX.so, or the
# Ascend stack's own libraries (libascend_hal, libascendcl, libhccl, libtorch_npu …) without the suffix
_SHARED_LIBRARY = re.compile(r"lib[\w.+-]*\.so|lib(?:ascend|acl|hccl|ge_|graph|runtime|opapi|nnopbase|tbe|torch|c10|msprof)")
# Python's own words for a distribution that is not installed: importlib.metadata's PackageNotFoundError ("No package
# metadata was found for flash_attn") and pkg_resources' DistributionNotFound ("The 'X' distribution was not found")
_NO_DISTRIBUTION = re.compile(r"No package metadata was found for ['\"]?([A-Za-z_][\w.-]*\w)"
                              r"|The ['\"]([A-Za-z_][\w.-]*\w)(?:[<>=!~][^'\"]*)?['\"] distribution was not found")
_COMPILED = re.compile(r"^_[Cc](?:_\w*)?$|^lib\w+$")  # a compiled extension: torch._C, mindspore._c_expression
# what the message says the caller needs: "requires accelerate>=0.21", "需要 vllm==0.9.1"
_REQUIRES = re.compile(r"(?i:\brequires?\b|\brequired\b:?|需要)\s*[`'\"]?([A-Za-z][\w.-]*)\s*((?:[<>=!~]=?|==)\s*\d[\w.+]*)")
# what the message says about a name that moved: "has been moved to X", "import it from X"
_MOVED = re.compile(r"(?i:\b(?:moved|relocated) (?:in)?to|\bimport (?:it )?from|\bnow lives in)\s*[`'\"]?([A-Za-z_][\w.]*\w)")


def read(line: str) -> dict | None:
    m = _NO_NAME.search(line)
    if m:
        facts = {"module": m.group(2), "name": m.group(1), "focus": "cannot import name",
                 "shadowed": bool(_UNKNOWN_LOCATION.match(line, m.end()))}
    elif m := _NO_ATTRIBUTE.search(line):
        facts = {"module": m.group(1), "name": m.group(2), "focus": "has no attribute"}
    elif m := _NO_MODULE.search(line) or _NOT_FOUND_PACKAGES.search(line):
        facts = {"module": m.group(1).rstrip("."), "focus": m.group(0)[:24], "shadowed": bool(_NOT_PACKAGE.search(line, m.end()))}
    elif m := _NO_DISTRIBUTION.search(line):
        facts = {"module": (m.group(1) or m.group(2)).replace("-", "_"), "focus": m.group(0)[:24]}
    elif library.read(line):  # "Failed to import X: libY.so: cannot open …": the loader's case, the library rule's
        return None
    elif m := _IMPORT_FAILED.search(line):
        facts = {"module": (m.group(1) or m.group(2)).rstrip("."), "focus": m.group(0)[:24]}
    elif (m := _MISSING_IN_WORDS.search(line)) and not _SHARED_LIBRARY.match(m.group(1) or m.group(2)):
        facts = {"module": (m.group(1) or m.group(2)).rstrip("."), "focus": m.group(0)[:24]}
    else:
        return None
    required = _REQUIRES.search(line)
    if required and pip_name(required.group(1)) == pip_name(facts["module"].partition(".")[0]):
        facts["required"] = re.sub(r"\s+", "", required.group(2))
    moved = _MOVED.search(line, m.end())
    if moved:
        facts["moved"] = moved.group(1)
    return facts


def pip_name(module: str) -> str:
    """The name pip installs a top-level module by (explain_rules.yaml module.pypi; else the name, "_" as "-")."""
    table = rules_data()["module"]["pypi"]
    return table.get(module) or module.replace("_", "-").lower()


def npu_stack(facts: dict) -> bool:
    """Whether a missing module or name belongs to the NPU stack: its top-level module is one of module.npu_stack,
    or the missing name itself is an NPU helper (accelerate's is_npu_available, a torch_npu op)."""
    top = facts["module"].partition(".")[0]
    return top in rules_data()["module"]["npu_stack"] or "npu" in (facts.get("name") or "").lower()


def removed_in(module: str, name: str) -> dict | None:
    """The release that removed ``module.name`` (explain_rules.yaml ``module.removed``: release notes and migration
    guides), None for a name no listed release removed."""
    return next((r for r in rules_data()["module"]["removed"] if r["module"] == module and name in r["names"]), None)


def _command(module: str, required: str | None, moved: str | None, missing: bool) -> str:
    """The concrete action with the concrete names: pip install/upgrade/downgrade of the package, or the new path."""
    top = module.partition(".")[0]
    pip = pip_name(top)
    if moved:
        return t("explain.module.moved", moved=moved)
    if missing:
        return t("explain.module.install", pip=pip, top=top)
    if required:
        return t("explain.module.required", pip=pip, required=required)
    return t("explain.module.versions", pip=pip)


def _explain(module: str, name: str | None, shadowed: bool = False, required: str | None = None,
             moved: str | None = None) -> tuple[str, str, str, str | None]:
    """Title, cause, fix and the linked catalog family for one missing module or name."""
    top, _, rest = module.partition(".")
    pkg = packages.for_module(module)
    who = pkg.name if pkg else t("explain.module.provider", top=top)
    install = pkg.install if pkg else t("explain.module.provider_install", top=top)
    same_python = t("explain.module.same_python")
    if name and shadowed:  # "(unknown location)": Python found a directory named like the package, not the package
        return (t("explain.module.shadowed.title", top=top), t("explain.module.shadowed.cause", module=module, top=top, who=who),
                t("explain.module.shadowed.fix", top=top) + t("explain.rule.leftover_directory", top=top, pip=pip_name(top)),
                None)
    if name:
        stack = set(rules_data()["symbol"]["stack"])  # torch, torch_npu, CANN…: the version table's family
        removed = removed_in(module, name)
        command = (t("explain.module.removed", module=module, name=name, pip=removed["pip"], release=removed["release"])
                   if removed else _command(module, required, moved, False))
        return (t("explain.module.name.title", module=module, name=name),
                t("explain.module.name.cause", module=module, name=name, who=who),
                t("explain.module.name.fix", who=who, install=install, command=command),
                rules_data()["symbol"]["family"] if pkg and pkg.id in stack else None)
    last = module.rsplit(".", 1)[-1]
    if rest and shadowed:  # "'a' is not a package": a single module (a stray a.py, a stub) hides the package a
        return (t("explain.module.not_package.title", top=top), t("explain.module.not_package.cause", module=module, top=top, who=who),
                t("explain.module.not_package.fix", top=top, install=install), None)
    if rest and _COMPILED.match(last):
        return (t("explain.module.compiled.title", module=module), t("explain.module.compiled.cause", module=module, top=top),
                t("explain.module.compiled.fix", install=install), None)
    if rest:
        return (t("explain.module.submodule.title", top=top, rest=rest),
                t("explain.module.submodule.cause", top=top, rest=rest, who=who),
                t("explain.module.submodule.fix", who=who, install=install, same_python=same_python,
                  command=_command(module, required, moved, False)), pkg.family if pkg else None)
    return (t("explain.module.missing.title", module=module), t("explain.module.missing.cause", module=module, who=who),
            sentence(t("explain.module.missing.fix", install=install, same_python=same_python,
                        command=_command(module, required, None, True) if pkg is None or pkg.for_npu else "")),
            pkg.family if pkg else None)


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    first = hits[0].facts
    title, cause, fix, family = _explain(first["module"], first.get("name"), first.get("shadowed", False),
                                         first.get("required"), first.get("moved"))
    pkg = packages.for_module(first["module"])
    sources = [*rules_data()["module"]["sources"], *(pkg.sources if pkg else ())]
    return rule_finding(NAME, title, cause, fix, hits, sources, family=family, note=t("explain.rule.note", title=title, fix=fix))


RULE = Rule(NAME, (b"no module named", b"no modules named", b"cannot import name", b"has no attribute", b"not found in your environment",
                   b"to import", b"no package metadata", b"distribution was not found", b"error importing", b"error while importing", b" import error", b" import fail",
                   b"missing", b"not installed", "缺少".encode(), "缺失".encode(), "少了".encode(), "没有安装".encode(),
                   "没装".encode(), "未安装".encode()), read,
            finding)
