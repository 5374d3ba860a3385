"""``python -m npulab doctor --stack NAME [--python PATH]``: an environment against one software stack of
npulab/data/stacks.yaml (package versions, CANN, NNAL, Python), one row per requirement. Without ``--python`` the
environment is this interpreter's; with it, another interpreter's (the stack's own venv or image, whose Python npulab
may not run on) answers through npulab/env/stack_probe.py, which needs only the standard library."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.display import Table
from npulab.core.i18n import localized, t
from npulab.env import cann_install, stack_probe, torch_install
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


def nnal_check(name: str, environ: Mapping[str, str | None], cann: str | None) -> Check | None:
    """NNAL (ATB) loaded for a stack whose data names ``nnal``: ``ATB_HOME_PATH`` set (NNAL's set_env.sh) and there."""
    nnal = stack_data.get(name).get("nnal")
    if not nnal:
        return None
    home, script = environ.get("ATB_HOME_PATH"), nnal["set_env"]
    why = t("stack.nnal_why", name=name, version=nnal["version"], why=localized(nnal, "why"))
    if home and Path(home).is_dir():
        return Check("NNAL", "ok", t("stack.nnal_ok", home=home, why=why))
    if home:
        return Check("NNAL", "fail", t("stack.nnal_missing_dir", home=home, why=why), t("stack.nnal_reinstall", script=script))
    if cann is None:
        return Check("NNAL", "skip", t("stack.nnal_skip", why=why))
    return Check("NNAL", "fail", t("stack.nnal_not_loaded", why=why),
                 t("stack.nnal_fix", script=script, version=nnal["version"]))


def check_stack(name: str, versions: Callable[[str], str | None] = metadata_version, cann: str | None = None,
                python: str | None = None, environ: Mapping[str, str | None] | None = None) -> list[Check]:
    """One Check per requirement of stack ``name`` (``environ``: also NNAL); UsageError for an unknown stack."""
    stack = stack_data.get(name)
    checks = []
    elsewhere = {stack_data.canonical(e["name"]): localized(e, "where") for e in stack.get("outside_pypi", [])}
    for package, spec in stack["packages"].items():
        if spec is None:
            continue
        installed = versions(package)
        if installed is None:
            how = elsewhere.get(stack_data.canonical(package)) or install_fix(stack, package, spec)
            checks.append(Check(package, "fail", t("stack.not_installed", name=name, spec=spec), t("stack.install_here", how=how)))
            continue
        ok = _satisfies(installed, spec)
        status = "ok" if ok else "warn" if ok is None else "fail"
        checks.append(Check(package, status, t("stack.installed", installed=installed, spec=spec),
                            "" if ok else t("stack.other_env", name=name, package=package, spec=spec)))
    if stack.get("cann"):
        if cann is None:
            checks.append(Check("CANN", "skip", t("stack.no_cann", name=name, cann=stack["cann"])))
        else:
            ok = _cann_ok(cann, stack["cann"])
            checks.append(Check("CANN", "ok" if ok else "fail", t("stack.installed", installed=cann, spec=stack["cann"]),
                                "" if ok else t("stack.cann_fix", name=name, cann=stack["cann"])))
    if stack.get("python") and python:
        spec = ",".join(stack["python"])
        ok = _satisfies(python, spec)
        checks.append(Check("Python", "ok" if ok else "fail", t("stack.installed", installed=python, spec=spec),
                            "" if ok else t("stack.python_fix", name=name, spec=spec)))
    nnal = nnal_check(name, environ, cann) if environ is not None else None
    return [*checks, nnal] if nnal else checks


def _detected_cann() -> str | None:
    report = next((r for r in map(cann_install.describe, cann_install.candidate_roots()) if r.installs), None)
    return report.primary.version if report and report.primary else None


def probe_python(python: str) -> dict:
    """What interpreter ``python`` (a path or a venv folder) has installed; UsageError when it cannot answer."""
    try:
        return stack_probe.query(python)
    except stack_probe.ProbeError as err:
        raise UsageError(str(err)) from None


def _this_interpreter() -> dict:
    return {"python": ".".join(map(str, sys.version_info[:3])), "executable": sys.executable, "prefix": sys.prefix,
            "environ": {key: os.environ.get(key) for key in stack_probe.ENVIRON_KEYS}}


def _interpreter_note(name: str, probe: dict, asked: bool) -> str:
    """Which interpreter answered, and a hint when this one is not the stack's own venv."""
    text = t("stack.interpreter", executable=probe["executable"], python=probe["python"])
    folder = stack_data.venv(name) if stack_data.get(name).get("venv") else None
    if not asked and folder and Path(probe["prefix"]).resolve() != folder.resolve():
        text += t("stack.not_own_venv", name=name, folder=folder)
    return text


def run(name: str, ascend_root: str | None = None, as_json: bool = False, probe: dict | None = None) -> int:
    """Print the stack check of this interpreter, or of the one ``probe`` (probe_python) describes; 0 when every
    requirement holds, 1 otherwise, UsageError for an unknown stack."""
    asked = probe is not None
    probe = probe or _this_interpreter()
    if asked:
        installed = {stack_data.canonical(k): v for k, v in probe["distributions"].items()}
        versions: Callable[[str], str | None] = lambda package: installed.get(stack_data.canonical(package))  # noqa: E731
    else:
        versions = metadata_version
    if ascend_root:
        report = cann_install.describe(ascend_root)
        cann = report.primary.version if report.installs and report.primary else None
    else:
        cann = _detected_cann()
    checks = check_stack(name, versions, cann=cann, python=probe["python"], environ=probe["environ"])
    stack = stacks()[name]
    note = _interpreter_note(name, probe, asked)
    if as_json:
        outside = [{**{k: v for k, v in e.items() if not k.endswith("_en")}, "where": localized(e, "where")}
                   for e in stack.get("outside_pypi", [])]  # the reader's language, without the data file's twins
        print(json.dumps({"stack": name, "python": probe["executable"], "environment": localized(stack, "environment"),
                          "install": stack["install"],
                          "outside_pypi": outside, "sources": localized(stack, "sources"),
                          "checks": [c.as_dict() for c in checks]}, ensure_ascii=False, indent=2))
    else:
        print(Table(["", t("stack.col_item"), t("stack.col_versions"), t("stack.col_fix")],
                    [[MARKS[c.status], c.id, c.message, c.fix] for c in checks],
                    t("stack.title", name=name, title=localized(stack, "title")),
                    notes=[note, t("stack.environment", environment=localized(stack, "environment")),
                           *[t("stack.install", command=c) for c in stack["install"]],
                           *[t("stack.outside_where", where=localized(e, "where"),
                               what=t("stack.outside", name=e["name"], version=e.get("version") or "").rstrip())
                             for e in stack.get("outside_pypi", [])],
                           *[t("stack.source", source=s) for s in localized(stack, "sources")]]).text())
    return EXIT_FAIL if any(c.status == "fail" for c in checks) else EXIT_OK
