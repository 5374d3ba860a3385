"""pip's own account of a version it cannot satisfy: "X requires Y, but you have Z which is incompatible" (or
"which is not installed"), and "F.whl is not a supported wheel on this platform" — the wheel's tags name the Python
version and the machine it was built for; "Cannot install … conflicting dependencies" with the "A depends on X" lines
under it: requirements no single version satisfies; and a program's own version check ("X requires torch>=2.3 but
found torch 2.1.0"). The fix names the versions the line gives; when the package belongs to
the torch / torch_npu / vLLM-Ascend stack it is the catalog's ``version_mismatch`` family
(npulab/data/explain_rules.yaml ``requirement``)."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "requirement"
_CONFLICT = re.compile(r"([A-Za-z0-9][\w.-]*)\s+[\w.+-]*\s*requires\s+([A-Za-z0-9][\w.-]*\s*(?:[<>=!~]=?\s*[\w.*+-]+"
                       r"(?:\s*,\s*[<>=!~]=?\s*[\w.*+-]+)*)?),\s+(?:but you have\s+([\w.-]+\s+[\w.+-]+)|which is not installed)")
_WHEEL = re.compile(r"([\w.+-]+?)-([\w.+!]+)-(cp\d+|py\d+)-[\w.]+-([\w.]+)\.whl is not a supported wheel on this platform")
_PY = re.compile(r"cp(\d)(\d+)")
# a program's own version check: "flash_attn requires torch>=2.3 but found torch 2.1.0", "X requires torch-npu>=2.5.1,
# but the installed version is 2.4.0"
_RUNTIME = re.compile(r"([A-Za-z0-9][\w.-]*)\s+(?:[\w.+-]+\s+)?requires?\s+([A-Za-z][\w.-]*)\s*((?:[<>=!~]=?)\s*\d[\w.*+]*)"
                      r"[,;]?\s+but\s+(?:found|got|you have|(?:the\s+)?(?:installed|current)(?:\s+version)?(?:\s+is)?|is)"
                      r"\s*:?\s*(?:[A-Za-z][\w.-]*\s+)?v?(\d[\w.+]*)")
_RESOLVER = re.compile(r"Cannot install (.{1,200}?) because these package versions have conflicting dependencies")
_DEPENDS = re.compile(r"([A-Za-z0-9][\w.-]*(?:\[[\w,.-]+\])?)\s+([\w.+!-]+)\s+depends on\s+([A-Za-z0-9][^;\s]*(?:\s*[<>=!~]=?\s*[\w.*+-]+)?)")


def read(line: str) -> dict | None:
    m = _CONFLICT.search(line)
    if m:
        return {"kind": "conflict", "who": m.group(1), "wants": " ".join(m.group(2).split()), "has": m.group(3),
                "focus": "requires"}
    m = _RUNTIME.search(line)
    if m:
        return {"kind": "runtime", "who": m.group(1), "package": m.group(2), "spec": re.sub(r"\s+", "", m.group(3)),
                "has": m.group(4), "focus": "requires"}
    m = _DEPENDS.search(line)
    if m:
        return {"kind": "depends", "who": f"{m.group(1)} {m.group(2)}", "wants": m.group(3), "focus": "depends on"}
    m = _RESOLVER.search(line)
    if m:
        return {"kind": "resolver", "who": m.group(1), "focus": "conflicting dependencies"}
    m = _WHEEL.search(line)
    if m:
        py = _PY.match(m.group(3))
        return {"kind": "wheel", "who": m.group(1), "wants": m.group(2), "python": f"{py.group(1)}.{py.group(2)}" if py
                else m.group(3), "platform": m.group(4), "focus": "not a supported wheel"}
    return None


def _name(req: str) -> str:
    return re.split(r"[<>=!~\s]", req, maxsplit=1)[0].lower()


def _resolver(hits: list[RuleHit]) -> tuple[str, str, str, set[str]]:
    """pip's resolver gave up: the requirements that cannot all hold ("A depends on X", "B depends on Y")."""
    pins = [h.facts for h in hits if h.facts["kind"] == "depends"]
    said = "；".join(f"`{p['who']}` 要求 `{p['wants']}`" for p in pins) or "报错下方 “The conflict is caused by” 列出的要求"
    title = "pip 的依赖解析失败：要求互相冲突"
    cause = (f"pip 找不到同时满足所有要求的版本组合：{said}。这些要求对同一个包（常是 torch）给出了不同的版本或变体"
             "（例如 `torch==2.1.0` 与 torch-npu 要求的 `torch==2.1.0+cpu`），任何一个版本都不能同时满足。")
    fix = ("按 pip 文档处理依赖冲突：放宽或去掉其中一方的版本固定；昇腾环境里更稳妥的是分开安装——先按 Ascend 文档装好彼此配套的 "
           "torch 与 torch-npu，再用 `pip install --no-deps <包>`（源码安装用 `pip install --no-deps -e .`）装这个包，"
           "最后 `pip check` 列出还缺的依赖并逐个补装。")
    return title, cause, fix, {_name(p["wants"]) for p in pins} | {_name(p["who"]) for p in pins}


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    first = hits[0].facts
    data = rules_data()["requirement"]
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
        has = f"环境里装的是 `{first['has']}`" if first["has"] else "环境里没有装它"
        title = f"{who} 要求 {wanted}"
        cause = f"pip 报告的依赖冲突：`{who}` 要求 `{wanted}`，{has}；两者一起装进同一个环境，运行时行为不确定（导入失败、符号找不到）。"
        fix = (f"装成 `{who}` 要求的版本：`pip install '{wanted}'`，或换一个与已装版本配套的 `{who}`；"
               "torch、torch_npu、vLLM-Ascend 这类一起发布的包按各自文档的配套表整组对齐，不要只升级其中一个。")
        involved = {_name(wanted), who.lower()}
    else:
        who, py, platform = first["who"], first["python"], first["platform"]
        title = f"{who} 的 wheel 与这台机器不符"
        cause = (f"wheel 文件名里的标签说明它是为 Python {py}、平台 `{platform}` 构建的；当前的 Python 版本或 CPU 架构"
                 "（`python -V`、`uname -m`）与标签不一致，pip 就拒绝安装。")
        fix = (f"下载与当前环境一致的 wheel（`python -V` 对应 cp 标签，`uname -m` 是 x86_64 还是 aarch64），"
               f"或换成 Python {py} 的环境再装。")
        involved = {who.lower()}
    stack = {s.lower() for s in data["stack"]}
    runtime = first["kind"] not in ("resolver", "depends")  # a resolver's refusal installs nothing: no mismatch yet
    return rule_finding(NAME, title, cause, fix, hits, data["sources"],
                        family=data["family"] if runtime and involved & stack else None, note=f"{cause}{fix}")


RULE = Rule(NAME, (b" requires ", b"not a supported wheel", b"conflicting dependencies", b" depends on "), read, finding)
