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
from npulab.env.explain.rules import packages
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "missing_module"
_NO_MODULE = re.compile(r"No module named ['\"]?([A-Za-z_][\w.]*)")
_NO_NAME = re.compile(r"cannot import name ['\"]?(\w+)['\"]? from ['\"]?([A-Za-z_][\w.]*)")
_NO_ATTRIBUTE = re.compile(r"module ['\"]([A-Za-z_][\w.]*)['\"] has no attribute ['\"](\w+)")
_UNKNOWN_LOCATION = re.compile(r"['\"]?\s*\(unknown location\)")  # the module has no __file__: a bare directory
# Transformers' check of a model's remote code: "requires the following packages that were not found in your
# environment: flash_attn. Run `pip install flash_attn`" (the first package named)
_NOT_FOUND_PACKAGES = re.compile(r"requires the following packages? that (?:were|was) not found in your environment:\s*([A-Za-z_][\w.]*)")
# an import that failed, said in words ("Failed to import X", "error importing X", "x.y import error"): the same
# reading as a missing module (the dotted form only, so "the import error" names no module)
_IMPORT_FAILED = re.compile(r"(?i)\b(?:failed to import|error (?:while )?importing|could not import|unable to import)"
                            r"\s+[`'\"]?([A-Za-z_][\w.]*\w)|\b([A-Za-z_]\w*(?:\.\w+)+)\s+import(?:ing)? (?:error|fail)")
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
        facts = {"module": m.group(1).rstrip("."), "focus": m.group(0)[:24]}
    elif m := _IMPORT_FAILED.search(line):
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


def _command(module: str, required: str | None, moved: str | None, missing: bool) -> str:
    """The concrete action with the concrete names: pip install/upgrade/downgrade of the package, or the new path."""
    top = module.partition(".")[0]
    pip = pip_name(top)
    if moved:
        return f"报错说它已挪走（the module moved）：改为从 `{moved}` 导入（import it from {moved}）。"
    if missing:
        return f"安装（install）：`pip install {pip}`（导入名 `{top}`，PyPI 包名 `{pip}`）。"
    if required:
        return (f"按报错里调用方要求的版本安装（install the version the caller requires）："
                f"`pip install '{pip}{required}'`（比要求旧就是升级 upgrade，比要求新就是降级 downgrade）。")
    return (f"查版本（版本）：`pip show {pip}`；调用方比它新就升级（upgrade）：`pip install -U {pip}`；"
            f"调用方要求更旧的版本就降级（downgrade）：`pip install '{pip}==<调用方要求的版本>'`。")


def _explain(module: str, name: str | None, shadowed: bool = False, required: str | None = None,
             moved: str | None = None) -> tuple[str, str, str, str | None]:
    """Title, cause, fix and the linked catalog family for one missing module or name."""
    top, _, rest = module.partition(".")
    pkg = packages.for_module(module)
    who = pkg.name if pkg else f"提供 `{top}` 的发行包"
    install = pkg.install if pkg else (f"装提供 `{top}` 的发行包（包名可能与模块名不同，例如 PyPI 上的 torch-npu 提供 torch_npu）")
    same_python = "并确认 `python -m pip show <包名>` 查到的与运行时用的是同一个 Python 环境"
    if name and shadowed:  # "(unknown location)": Python found a directory named like the package, not the package
        return (f"同名目录挡住了 {top}",
                f"报错说 `{module}` 来自 “unknown location”：Python 导入到的 `{top}` 没有 `__file__`，是一个普通目录"
                f"（命名空间包），不是装好的 {who}。最常见的原因是当前工作目录（或 PYTHONPATH 里的某个目录）下有一个叫 `{top}` 的文件夹，"
                f"例如源码仓库或在容器根目录下运行时的同名目录，它排在 site-packages 前面，挡住了真正的包。",
                f"换到其他目录（不含 `{top}/` 文件夹的工作目录）再运行，或把那个同名目录改名、从 PYTHONPATH 去掉；"
                f"用 `python -c \"import {top}; print({top}.__path__, getattr({top}, '__file__', None))\"` 看导入到的是哪里。"
                + t("explain.rule.leftover_directory", top=top, pip=pip_name(top)), None)
    if name:
        stack = set(rules_data()["symbol"]["stack"])  # torch, torch_npu, CANN…: the version table's family
        return (f"{module} 里没有 {name}",
                f"`{module}` 能导入，但里面没有 `{name}`：装的 {who} 版本与使用它的代码要求的不一致（这个名字在别的版本里才有、改了名或删了）。",
                f"按使用方的安装说明装它要求的 {who} 版本：{install}。{_command(module, required, moved, False)}",
                rules_data()["symbol"]["family"] if pkg and pkg.id in stack else None)
    last = module.rsplit(".", 1)[-1]
    if rest and _COMPILED.match(last):
        return (f"缺少编译扩展 {module}",
                f"`{module}` 是 `{top}` 编译出的扩展模块。最常见的原因：在 `{top}` 的源码目录里运行，当前目录下的 `{top}/` 源码文件夹"
                f"（没有编译好的扩展）挡住了装好的包；其次是源码编译没有完成或装坏了。",
                f"换到源码目录之外的其他目录再运行（或从 PYTHONPATH 里去掉源码树）；仍然报错就重装：{install}。", None)
    if rest:
        return (f"{top} 里没有子模块 {rest}",
                f"`{top}` 装了，但它没有子模块 `{rest}`：装的 {who} 版本与导入它的代码不配套（新版本加了或挪了这个模块），或安装不完整。",
                f"按导入方要求的版本重装 {who}：装的比导入方旧（新版本才加了这个模块）就升级，比它新（模块被挪走）就装回它要求的版本；"
                f"{install}；{same_python}。{_command(module, required, moved, False)}", pkg.family if pkg else None)
    return (f"缺少 Python 模块 {module}",
            f"当前 Python 环境里没有 `{module}`：{who}没装，或装在了另一个环境里。",
            f"{install}；{same_python}。{_command(module, required, None, True)}", pkg.family if pkg else None)


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    first = hits[0].facts
    title, cause, fix, family = _explain(first["module"], first.get("name"), first.get("shadowed", False),
                                         first.get("required"), first.get("moved"))
    pkg = packages.for_module(first["module"])
    sources = [*rules_data()["module"]["sources"], *(pkg.sources if pkg else ())]
    return rule_finding(NAME, title, cause, fix, hits, sources, family=family, note=f"{title}。{fix}")


RULE = Rule(NAME, (b"no module named", b"cannot import name", b"has no attribute", b"not found in your environment",
                   b"to import", b"error importing", b"error while importing", b" import error", b" import fail"), read,
            finding)
