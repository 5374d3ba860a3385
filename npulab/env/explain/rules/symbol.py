"""A symbol or function missing from a library (``libX.so: undefined symbol: …``, ``Failed to find function aclnnX``,
``aclnnX not in libopapi.so``): which package needs it and which package should define it (the symbol's namespace or
prefix, npulab/data/ascend_packages.yaml) — the two are installed at versions that do not match."""

from __future__ import annotations

import re

from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import packages
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "missing_symbol"
_UNDEFINED = re.compile(r"(?:([\w.+-]+\.so[\w.]*)\s*:\s*)?undefined symbol:?\s*([\w$.@]+)")
_NO_FUNCTION = re.compile(r"[Ff]ail(?:ed)? to find (?:the )?function:?\s*\[?([\w]+)")
_NOT_IN_LIB = re.compile(r"\b(\w+)(?: or \w+)? not in (lib[\w.+-]+\.so)")


def read(line: str) -> dict | None:
    m = _UNDEFINED.search(line)
    if m:
        return {"library": m.group(1), "symbol": m.group(2), "focus": "undefined symbol"}
    m = _NOT_IN_LIB.search(line)
    if m:
        return {"library": m.group(2), "symbol": m.group(1), "function": True, "focus": m.group(1)}
    m = _NO_FUNCTION.search(line)
    return {"library": None, "symbol": m.group(1), "function": True, "focus": m.group(1)} if m else None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    first = hits[0].facts
    lib, symbol = first["library"], first["symbol"]
    name = packages.demangled_head(symbol)
    provider = packages.for_symbol(symbol) or (packages.for_library(lib) if lib and first.get("function") else None)
    needer = packages.for_library(lib) if lib and not first.get("function") else None
    giver = provider.name if provider else "提供这个符号的库"
    if first.get("function"):
        title = f"{lib + ' ' if lib else '库'}里没有函数 {name}"
        cause = (f"调用方（torch_npu、vLLM-Ascend 等）要用 `{name}`，但加载到的 {giver} 里没有它：装的 {giver} 比调用方要求的旧"
                 "（新算子、新接口只在新版本里有）。")
        fix = f"把 {giver} 升级到调用方的版本说明要求的版本" + (f"：{provider.install}" if provider else "") + "。"
    else:
        who = f"`{lib}`（属于 {needer.name}）" if needer else (f"`{lib}` " if lib else "这个库")
        title = f"{lib + ' ' if lib else '库'}找不到符号 {name}"
        cause = f"{who}要调用 `{name}`（由 {giver}提供），但进程里加载的那一份没有它：两者的版本不配套，通常是一方升级了另一方没有。"
        fix = (f"把 {needer.name if needer else '调用方'} 与 {giver} 装成彼此配套的版本（看版本说明或配套表）"
               + (f"：{provider.install}" if provider else "") + f"；用 `ldd {lib or '<库>'}` 确认它解析到的是哪一份库。")
    data = rules_data()["symbol"]
    stack = set(data["stack"])
    linked = {p.id for p in (needer, provider) if p} & stack
    sources = [*data["sources"], *(provider.sources if provider else ())]
    return rule_finding(NAME, title, cause, fix, hits, sources, family=data["family"] if linked else None,
                        note=f"{title}：{cause}")


RULE = Rule(NAME, (b"undefined symbol", b"to find function", b"to find the function", b" not in lib"), read, finding)
