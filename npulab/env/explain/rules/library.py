"""A shared library that cannot be loaded (``libX.so: cannot open shared object file``, ``error while loading shared
libraries``): which package ships it (npulab/data/ascend_packages.yaml) and how that package puts it on the loader's
path — CANN and the driver through ``set_env.sh`` / LD_LIBRARY_PATH, a pip package (torch_npu) from its own ``lib/``
folder when it is imported; an unknown library is found and added to LD_LIBRARY_PATH (ld.so's search order)."""

from __future__ import annotations

import re

from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules import packages
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "missing_library"
_CANNOT_OPEN = re.compile(r"([\w.+-]+\.so(?:\.\d+)*)\s*:\s*cannot open shared object file")
_LOADING = re.compile(r"error while loading shared libraries:\s*([\w.+-]+\.so[\w.]*)")


def read(line: str) -> dict | None:
    m = _CANNOT_OPEN.search(line) or _LOADING.search(line)
    return {"library": m.group(1), "focus": m.group(1)} if m else None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    lib = hits[0].facts["library"]
    pkg = packages.for_library(lib)
    title = f"找不到动态库 {lib}"
    if pkg is None:
        cause = f"动态链接器在 LD_LIBRARY_PATH、/etc/ld.so.cache 和系统默认目录里都没找到 `{lib}`：提供它的包没装，或装了但目录不在搜索路径上。"
        fix = (f"找出它在哪里：`find / -name '{lib}*' 2>/dev/null`；找到就把所在目录加进搜索路径"
               f"（`export LD_LIBRARY_PATH=<目录>:$LD_LIBRARY_PATH`），找不到就安装提供它的包。")
        family = None
    elif pkg.wheel:
        cause = f"`{lib}` 是 {pkg.name} 自带的库，在它的安装目录 `{pkg.wheel}/lib` 里，平时由 `import {pkg.wheel}` 加载；单独加载它的插件或程序找不到这个目录。"
        fix = (f"查目录：`python -c \"import {pkg.wheel}, os; print(os.path.join(os.path.dirname({pkg.wheel}.__file__), 'lib'))\"`；"
               f"先 `import {pkg.wheel}` 再加载依赖它的扩展，或把这个目录加进 LD_LIBRARY_PATH；没装就 {pkg.install}。")
        family = None
    else:
        cause = f"`{lib}` 属于 {pkg.name}：它没装，或装了但当前进程没有加载它的环境（LD_LIBRARY_PATH 里没有它的目录）。"
        fix = f"{pkg.install}。"
        family = pkg.family
    sources = [*rules_data()["library"]["sources"], *(pkg.sources if pkg else ())]
    return rule_finding(NAME, title, cause, fix, hits, sources, family=family, note=f"`{lib}` 属于 {pkg.name if pkg else '未列出的包'}。")


RULE = Rule(NAME, (b"cannot open shared object", b"error while loading shared"), read, finding)
