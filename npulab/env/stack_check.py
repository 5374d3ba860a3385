"""``python -m npulab doctor --stack NAME``: the current environment against one software stack of
npulab/data/stacks.yaml (package versions, CANN, Python), one row per requirement."""

from __future__ import annotations

import json
from collections.abc import Callable

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from npulab.core.cli import EXIT_FAIL, EXIT_OK
from npulab.core.display import Table
from npulab.env import cann_install, torch_install
from npulab.env import stacks as stack_data
from npulab.env.check import MARKS, Check, metadata_version
from npulab.env.compatibility import cann_base
from npulab.env.pypi import version_key


def stacks() -> dict:
    """The stacks of npulab/data/stacks.yaml by name (npulab.env.stacks reads them)."""
    return stack_data.load()


def _satisfies(version: str, spec: str) -> bool | None:
    try:
        return SpecifierSet(spec).contains(Version(version), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return None


def _cann_ok(installed: str, spec: str) -> bool:
    base = cann_base(installed) or installed
    if spec.startswith(">="):
        return version_key(base) >= version_key(spec[2:])
    wanted = spec.lstrip("=")
    return base == wanted or base.startswith(wanted + ".")


def install_fix(stack: dict, package: str, spec: str) -> str:
    """The command that installs one missing package of a stack; torch and torch-npu as npulab.env.torch_install
    writes them (torch from the PyTorch CPU index first)."""
    key = stack_data.canonical(package)
    torch, npu = stack_data.pinned_version(stack, "torch"), stack_data.pinned_version(stack, "torch-npu")
    if key == "torch" and torch:
        return torch_install.torch_command(torch)
    if key == "torch-npu" and torch and npu:
        return torch_install.pair_text(torch, npu)
    return f"pip install \"{package}{spec}\""


def check_stack(name: str, versions: Callable[[str], str | None] = metadata_version, cann: str | None = None,
                python: str | None = None) -> list[Check]:
    """One Check per requirement of stack ``name``; UsageError for an unknown stack."""
    stack = stack_data.get(name)
    checks = []
    elsewhere = {stack_data.canonical(e["name"]): e["where"] for e in stack.get("outside_pypi", [])}
    for package, spec in stack["packages"].items():
        if spec is None:
            continue
        installed = versions(package)
        if installed is None:
            how = elsewhere.get(stack_data.canonical(package)) or install_fix(stack, package, spec)
            checks.append(Check(package, "fail", f"未安装（{name} 要求 {spec}）", f"{how}（装进下方“环境”一行所说的环境）"))
            continue
        ok = _satisfies(installed, spec)
        status = "ok" if ok else "warn" if ok is None else "fail"
        checks.append(Check(package, status, f"{installed}（要求 {spec}）",
                            "" if ok else f"{name} 需要 {package}{spec}：用下方“环境”一行所说的环境，不要装进课程环境"))
    if stack.get("cann"):
        if cann is None:
            checks.append(Check("CANN", "skip", f"没有找到 CANN（{name} 要求 {stack['cann']}）"))
        else:
            ok = _cann_ok(cann, stack["cann"])
            checks.append(Check("CANN", "ok" if ok else "fail", f"{cann}（要求 {stack['cann']}）",
                                "" if ok else f"{name} 要求 CANN {stack['cann']}"))
    if stack.get("python") and python:
        spec = ",".join(stack["python"])
        ok = _satisfies(python, spec)
        checks.append(Check("Python", "ok" if ok else "fail", f"{python}（要求 {spec}）",
                            "" if ok else f"为 {name} 建一个 Python {spec} 的 venv"))
    return checks


def _detected_cann() -> str | None:
    report = next((r for r in map(cann_install.describe, cann_install.candidate_roots()) if r.installs), None)
    return report.primary.version if report and report.primary else None


def run(name: str, ascend_root: str | None = None, as_json: bool = False) -> int:
    """Print the stack check; 0 when every requirement holds, 1 otherwise, UsageError for an unknown stack."""
    import platform

    if ascend_root:
        report = cann_install.describe(ascend_root)
        cann = report.primary.version if report.installs and report.primary else None
    else:
        cann = _detected_cann()
    checks = check_stack(name, cann=cann, python=platform.python_version())
    stack = stacks()[name]
    if as_json:
        print(json.dumps({"stack": name, "environment": stack["environment"], "install": stack["install"],
                          "outside_pypi": stack.get("outside_pypi", []), "sources": stack["sources"],
                          "checks": [c.as_dict() for c in checks]}, ensure_ascii=False, indent=2))
    else:
        print(Table(["", "项目", "当前 → 要求", "修复"], [[MARKS[c.status], c.id, c.message, c.fix] for c in checks],
                    f"软件栈 {name}：{stack['title']}",
                    notes=[f"环境：{stack['environment']}", *[f"安装：{c}" for c in stack["install"]],
                           *[f"PyPI 之外：{e['name']} {e.get('version') or ''}".rstrip() + f"：{e['where']}"
                             for e in stack.get("outside_pypi", [])],
                           *[f"来源：{s}" for s in stack["sources"]]]).text())
    return EXIT_FAIL if any(c.status == "fail" for c in checks) else EXIT_OK
