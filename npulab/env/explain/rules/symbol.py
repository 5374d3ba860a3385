"""A symbol or function missing from a library (``libX.so: undefined symbol: …``, the linker's ``undefined reference to
`ns::f(…)'``, ``Failed to find function aclnnX``,
``aclnnX not in libopapi.so``): which package needs it and which package should define it (the symbol's namespace or
prefix, npulab/data/ascend_packages.yaml) — the two are installed at versions that do not match."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import packages
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data, sentence

NAME = "missing_symbol"
_UNDEFINED = re.compile(r"(?:([\w.+-]+\.so[\w.]*)\s*:\s*)?undefined symbol:?\s*([\w$.@]+)")
# the linker's form while a program is built against a library: "undefined reference to `ns::f(int)'"
_REFERENCE = re.compile(r"undefined reference to [`'‘\"]([\w:~<>$.@]+)")
_NO_FUNCTION = re.compile(r"[Ff]ail(?:ed)? to find (?:the )?function:?\s*\[?([\w]+)")
_NOT_IN_LIB = re.compile(r"\b(\w+)(?: or \w+)? not in (lib[\w.+-]+\.so)")


# the dual ABI of libstdc++ (gcc.gnu.org/onlinedocs/libstdc++/manual/using_dual_abi.html): with
# _GLIBCXX_USE_CXX11_ABI=1 std::string is std::__cxx11::basic_string (mangled "NSt7__cxx1112basic_string"); with 0 it
# is the old std::basic_string, which the Itanium mangling abbreviates "Ss" (itanium-cxx-abi, "Compression")
_CXX11 = "__cxx11"


def cxx_abi(symbol: str) -> int | None:
    """The ``_GLIBCXX_USE_CXX11_ABI`` setting a symbol was compiled with, when its signature shows it (a
    ``std::string`` or another type of the dual ABI): 1 for ``__cxx11``, 0 for the old ABI's ``Ss``, else None.
    The mangled name is walked past its length-prefixed source names, so no identifier's letters are read as ``Ss``."""
    if _CXX11 in symbol:
        return 1
    if not symbol.startswith("_Z"):
        return None
    i = 2
    while i < len(symbol):
        if symbol[i].isdigit():
            j = i
            while j < len(symbol) and symbol[j].isdigit():
                j += 1
            i = j + int(symbol[i:j])
        elif symbol.startswith("Ss", i):
            return 0
        else:
            i += 1
    return None


def _abi_clause(symbol: str) -> str:
    """What to add to the fix when the symbol's signature shows its C++ ABI: the same function compiled for the other
    ABI has another name, so the libraries' ABIs must agree (NNAL/ATB ships one build per ABI)."""
    abi = cxx_abi(symbol)
    return t("explain.symbol.abi", abi=abi, other=1 - abi) if abi is not None else ""


# a package the line names with its release ("torch-npu==2.7.1 导入时报错 undefined symbol …")
_NAMED = re.compile(r"(?<![\w.-])([A-Za-z][\w-]*[A-Za-z0-9])\s*(?:==|\s)\s*v?\d+\.\d+")


def read(line: str) -> dict | None:
    m = _UNDEFINED.search(line)
    if m:
        named = _NAMED.search(line, 0, m.start())
        return {"library": m.group(1), "symbol": m.group(2), "focus": "undefined symbol",
                "named": named.group(1).replace("-", "_").lower() if named else None}
    m = _REFERENCE.search(line)
    if m:  # the demangled signature too, whose parameter types show the C++ ABI ("std::__cxx11::basic_string")
        signature = line[m.start(1):].split("'", 1)[0]
        return {"library": None, "symbol": m.group(1), "link": True, "focus": "undefined reference",
                "signature": signature}
    m = _NOT_IN_LIB.search(line)
    if m:
        return {"library": m.group(2), "symbol": m.group(1), "function": True, "focus": m.group(1)}
    return read_warning(line)


def read_warning(line: str) -> dict | None:
    """torch_npu's warning that the installed CANN lacks a function it calls ("[W …] Warning: Failed to find function
    aclsysGetCANNVersion": TORCH_NPU_WARN_ONCE when the runtime answers ACL_ERROR_RT_FEATURE_NOT_SUPPORT, Ascend/pytorch
    torch_npu/csrc/core/npu/GetCANNInfo.cpp): the CANN is older than the torch_npu. Other warnings are not read."""
    m = _NO_FUNCTION.search(line)
    return {"library": None, "symbol": m.group(1), "function": True, "focus": m.group(1)} if m else None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    first = hits[0].facts
    lib, symbol = first["library"], first["symbol"]
    name = packages.demangled_head(symbol)
    provider = packages.for_symbol(symbol) or (packages.for_library(lib) if lib and first.get("function") else None)
    # the library that needs the symbol: by its name, else by the folder it is installed in (round 14: a library under
    # /usr/local/Ascend/nnal/ is NNAL's), else the package the line names with its release ("torch-npu==2.7.1 …")
    needer = (packages.for_library(lib) or packages.for_path(lib)) if lib and not first.get("function") else None
    needer = needer or (packages.for_module(first["named"]) if first.get("named") and not lib else None)
    giver = provider.name if provider else t("explain.symbol.giver")
    install = t("explain.symbol.install", install=provider.install) if provider else ""
    if first.get("link"):  # at build time: the defining library is not linked, or does not export the symbol
        title = t("explain.symbol.link.title", name=name)
        cause = t("explain.symbol.link.cause", name=name, giver=giver)
        fix = t("explain.symbol.link.fix", name=name, giver=giver) + _abi_clause(first["signature"])
        return rule_finding(NAME, title, cause, fix, hits, [*rules_data()["symbol"]["sources"], *(provider.sources if provider else ())])
    if first.get("function"):
        title = (t("explain.symbol.function.title_lib", lib=lib, name=name) if lib
                 else t("explain.symbol.function.title", name=name))
        cause = t("explain.symbol.function.cause", name=name, giver=giver)
        fix = t("explain.symbol.function.fix", giver=giver, install=install)
    else:
        who = (t("explain.symbol.who_owned", lib=lib, owner=needer.name) if needer
               else t("explain.symbol.who_lib", lib=lib) if lib else t("explain.symbol.who_none"))
        title = (t("explain.symbol.undefined.title_lib", lib=lib, name=name) if lib
                 else t("explain.symbol.undefined.title", name=name))
        cause = sentence(t("explain.symbol.undefined.cause", who=who, name=name, giver=giver))
        fix = t("explain.symbol.undefined.fix", needer=needer.name if needer else t("explain.symbol.caller"), giver=giver,
                install=install, lib=lib or t("explain.symbol.library"))
    fix += _abi_clause(symbol)
    data = rules_data()["symbol"]
    stack = set(data["stack"])
    linked = {p.id for p in (needer, provider) if p} & stack
    sources = [*data["sources"], *(provider.sources if provider else ())]
    return rule_finding(NAME, title, cause, fix, hits, sources, family=data["family"] if linked else None,
                        note=t("explain.rule.note_colon", title=title, cause=cause))


RULE = Rule(NAME, (b"undefined symbol", b"undefined reference", b"to find function", b"to find the function", b" not in lib"), read, finding,
            read_warning=read_warning)
