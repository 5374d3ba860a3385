"""A setting the error line names: a path that does not exist (``No such file or directory: 'p'``, ``file … not
found``, ``does not exist``) or an Ascend environment variable the error is about (``ASCEND_*``, ``HCCL_*``,
``PYTORCH_NPU_*`` … — the families of npulab/data/env_vars.yaml). The finding names the path and what usually sets
it (CANN's install path and ``set_env.sh``, the working directory for a relative path, a model or config option),
or the variable, what it is for (npulab/data/cann_stack.yaml) and where its values are documented; a variable whose
documented role belongs to a catalog family (device selection, HCCL's interfaces and ports, its timeouts, the
variables ``set_env.sh`` exports: explain_rules.yaml ``setting.variable_families``) reports that family. A name
CANN documents as a variable (env_vars.yaml) is one without the line saying so. A variable the
message only recommends (``please set ASCEND_LAUNCH_BLOCKING=1``) is advice, not the cause, and is left to the
advice rule."""

from __future__ import annotations

import functools
import re

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.env.explain.matcher import Finding
from npulab.env.explain.root import rank
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "setting"
_NO_FILE = re.compile(r"No such file or directory:?\s*['\"]?([^'\"\s]{2,200})['\"]?")
_NOT_FOUND = re.compile(r"(?i)(?:file|path|directory|dir|config|model)\s*(?:at|path)?\s*['\"]?([~./][^'\"\s]{1,200}|"
                        r"[A-Za-z]:\\[^'\"\s]{1,200})['\"]?\s+(?:does not exist|not found|is not found|doesn't exist)")
_ADVISED = re.compile(r"(?i)(?:please|you can|you may|try|to enable|can be|set the environment variable|export)\W+(?:\w+\W+){0,3}$")
_AS_VARIABLE = re.compile(r"(?i)\benv\b|environ|variable|getenv|\bset\b|\bexport\b|环境变量")  # the name is a variable here
_REASON = re.compile(r"(?i)invalid|illegal|not (?:set|valid|supported|a valid)|wrong|error|fail|must|out of range|cannot|can't|不合法|无效|错误|失败")


@functools.cache
def _families() -> re.Pattern:
    prefixes = load_yaml(DATA_DIR / "env_vars.yaml")["families"]
    return re.compile(r"\b((?:" + "|".join(re.escape(p) for p in prefixes) + r")[A-Z0-9_]*[A-Z0-9])\b")


@functools.cache
def _documented() -> frozenset[str]:
    """The variables CANN documents by name (npulab/data/env_vars.yaml: ``variables`` and the ``values`` grammar)."""
    data = load_yaml(DATA_DIR / "env_vars.yaml")
    return frozenset({v["name"] for v in data["variables"]} | set(data.get("values") or {}))


@functools.cache
def family_of(variable: str) -> str | None:
    """The catalog family a variable's documented role belongs to, if any."""
    return next((family for family, names in rules_data()["setting"]["variable_families"].items() if variable in names),
                None)


@functools.cache
def _purposes() -> dict[str, dict]:
    """Each variable of cann_stack.yaml's env_vars → its record (``purpose``, and the English twin ``purpose_en``)."""
    out: dict[str, dict] = {}
    for item in load_yaml(DATA_DIR / "cann_stack.yaml").get("env_vars", []) or []:
        for name in str(item.get("name", "")).split("、"):
            out[name.strip()] = item
    return out


def read(line: str) -> dict | None:
    m = _NO_FILE.search(line) or _NOT_FOUND.search(line)
    if m and not m.group(1).endswith(".so") and ".so." not in m.group(1):  # libraries: the library rule's business
        return {"kind": "path", "path": m.group(1).rstrip(".,;:)"), "focus": m.group(1)}
    if rank(line) == 0 or not _REASON.search(line):
        return None
    named = _AS_VARIABLE.search(line) is not None  # not enum constants (aclCompileOpt::ACL_…), unless documented
    for v in _families().finditer(line):
        if not named and v.group(1) not in _documented():
            continue
        if line[max(0, v.start() - 2):v.start()] != "::" and not _ADVISED.search(line[:v.start()][-80:]):
            return {"kind": "variable", "variable": v.group(1), "focus": v.group(1)}
    return None


def _path(path: str) -> tuple[str, str, str]:
    data = rules_data()["setting"]
    if "ascend" in path.lower():
        who = data["ascend_path"]
    elif not path.startswith(("/", "~")) and not re.match(r"[A-Za-z]:\\", path):
        who = data["relative_path"]
    else:
        who = data["other_path"]
    return (t("explain.setting.path.title", path=path),
            t("explain.setting.path.cause", path=path, why=localized(who, "cause")),
            t("explain.setting.path.fix", path=path, fix=localized(who, "fix")))


def _variable(var: str) -> tuple[str, str, str]:
    record = _purposes().get(var)
    purpose = (localized(record, "purpose") if record.get("purpose") else "") if record else None
    what = t("explain.setting.purpose", purpose=purpose) if purpose else ""
    return (t("explain.setting.variable.title", variable=var), t("explain.setting.variable.cause", variable=var, what=what),
            t("explain.setting.variable.fix", variable=var, docs=localized(rules_data()["setting"], "variable_docs")))


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    hit = hits[0].facts
    title, cause, fix = _path(hit["path"]) if hit["kind"] == "path" else _variable(hit["variable"])
    same = [h for h in hits if h.facts["kind"] == hit["kind"]]
    family = family_of(hit["variable"]) if hit["kind"] == "variable" else None
    return rule_finding(NAME, title, cause, fix, same, rules_data()["setting"]["sources"][hit["kind"]], family=family,
                        note=f"{cause} {fix}" if family else "")


RULE = Rule(NAME, (b"no such file or directory", b" exist", b"not found", b"environ", b"variable", b" set ",
                   "环境变量".encode(),  # a variable: where the line names it as one, or by a name a family maps
                   *(n.lower().encode() for names in rules_data()["setting"]["variable_families"].values() for n in names)),
            read, finding, needs_error=True)
