"""lint-npu, features by release: npulab/data/features_since.yaml (feature -> first / last release, with source),
the cell's target versions (course pins or its ``# stack: NAME`` in npulab/data/stacks.yaml), and the lessons'
"since" text next to a feature the pins do not have.
"""

from __future__ import annotations

import ast
import re

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, shared_yaml
from npulab.env.pypi import version_key

FEATURES = DATA_DIR / "features_since.yaml"
STACKS = DATA_DIR / "stacks.yaml"
_STACK = re.compile(r"^\s*#\s*stack\s*[:：]\s*([\w.-]+)", re.MULTILINE)


def features() -> list[dict]:
    """The feature table's rows (shared: read them, do not change them)."""
    return shared_yaml(FEATURES)["features"]


def feature_names(kind: str) -> set[str]:
    """Names of the features of one kind (env variables, flags …)."""
    return {f["name"] for f in features() if f["kind"] == kind}


def flag_feature(tool: str, flag: str) -> dict | None:
    """The feature row of a command-line flag of ``tool`` (``--train_type`` of swift …), if any."""
    norm = flag.replace("-", "_")
    return next((f for f in features() if f["kind"] == "flag" and f["tool"] == tool
                 and f["name"].replace("-", "_") == norm), None)


def stacks() -> dict:
    """The stacks table (shared: read it, do not change it)."""
    return shared_yaml(STACKS)["stacks"]


def cell_stack(source: str) -> str | None:
    """The ``# stack: NAME`` a cell declares (None: the course default)."""
    match = _STACK.search(source)
    return match.group(1) if match else None


# what marks a cell as needing a stack other than the course default (its commands or imports)
_STACK_HINTS = (("vllm-ascend", re.compile(r"(^|[\s!;&|])vllm\s+(serve|bench)\b|^\s*(from|import)\s+vllm\b", re.M)),
                ("ms-swift", re.compile(r"(^|[\s!;&|])swift\s+\w+|^\s*(from|import)\s+swift\b", re.M)),
                ("mindspeed-llm", re.compile(r"MindSpeed-LLM|convert_ckpt(_v2)?\.py|mindspeed_llm", re.M)),
                ("triton-ascend", re.compile(r"^\s*(import|from)\s+triton\b", re.M)))


def stack_hint(source: str) -> str | None:
    """The stack an npu cell's commands or imports suggest (None: nothing stack-specific)."""
    return next((name for name, pattern in _STACK_HINTS if pattern.search(source)), None)


def pinned(spec: str | None) -> str | None:
    """``==2.12.0`` -> 2.12.0; a lower bound ``>=2.7.1`` -> 2.7.1 (the oldest the stack allows); None otherwise."""
    if not spec:
        return None
    for part in spec.split(","):
        part = part.strip()
        if part.startswith(("==", ">=")):
            return part[2:]
    return None


def targets(stack: str) -> dict[str, str]:
    """Package -> version a stack's cells are checked against."""
    entry = stacks()[stack]
    out = {name: v for name, spec in entry["packages"].items() if (v := pinned(spec))}
    if pinned(entry.get("cann")) or entry.get("cann"):
        out["cann"] = pinned(entry["cann"]) or entry["cann"]
    return out


def outside(feature: dict, version: str | None) -> bool:
    """True when ``version`` (of the feature's package) does not have the feature."""
    if version is None:
        return False
    since, until = feature.get("since", "0"), feature.get("until")
    if since is None and "until" not in feature:
        return True  # in no release
    if since and version_key(version) < version_key(since):
        return True
    return bool(until) and version_key(version) > version_key(until)


def message(feature: dict, version: str) -> str:
    if feature.get("since") is None and not feature.get("until"):
        when = t("lint.feature.unreleased")
    elif feature.get("until") and version_key(version) > version_key(feature["until"]):
        when = t("lint.feature.removed", since=localized(feature, "since_text"))
    else:
        when = t("lint.feature.since", package=feature["package"], since=feature["since"])
    shown = f"{feature['name']}={'/'.join(feature['values'])}" if feature["kind"] == "env_value" else feature["name"]
    return t("lint.feature.newer", name=shown, when=when, package=feature["package"], version=version,
             source=localized(feature, "source"))


def code_uses(tree: ast.Module | None, env_names: dict[str, list[str]], source: str) -> list[tuple[int, dict]]:
    """(line, feature) of the features a cell uses: env vars it sets (``env_names``: name -> values set),
    attributes it names, methods it calls, flags in its command lines."""
    found = []
    dotted = _dotted_names(tree) if tree is not None else set()
    methods = _method_calls(tree) if tree is not None else set()
    for feature in features():
        kind = feature["kind"]
        if kind == "env" and feature["name"] in env_names:
            found.append((0, feature))
        elif kind == "env_value" and set(env_names.get(feature["name"], ())) & set(feature["values"]):
            found.append((0, feature))
        elif kind == "attribute" and feature["name"] in dotted:
            found.append((0, feature))
        elif kind == "method" and feature["name"] in methods:
            found.append((0, feature))
        elif kind == "flag" and re.search(rf"\b{re.escape(feature['tool'])}\b[^\n]*\s{re.escape(feature['name'])}\b", source):
            found.append((0, feature))
    return found


def _dotted_names(tree: ast.Module) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts = []
            current = node
            while isinstance(current, ast.Attribute):
                parts.append(current.attr)
                current = current.value
            if isinstance(current, ast.Name):
                out.add(".".join([current.id, *reversed(parts)]))
    return out


def _method_calls(tree: ast.Module) -> set[str]:
    return {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}


def unstated_since(markdown: str, course: dict[str, str]) -> list[dict]:
    """Features the course pins do not have that a markdown cell names (in backticks) without their since text."""
    out = []
    for feature in features():
        if f"`{feature['name']}" not in markdown:
            continue
        if feature["kind"] == "env_value" and not any(re.search(rf"[`\"']{re.escape(v)}[`\"']", markdown)
                                                      for v in feature["values"]):
            continue
        version = course.get(feature["package"])
        if outside(feature, version) and feature["since_text"] not in markdown:
            out.append(feature)
    return out
