"""``python -m npulab doctor``: diagnose Python, frameworks, CANN, driver and NPU devices, with a fix for each finding.

It never imports torch or MindSpore (versions come from package metadata), so it answers in well under two
seconds; only when torch_npu is installed does it import it, in a subprocess with a timeout.
No CANN on a CPU-only machine is not a failure: those checks are skipped and the course runs in CPU mode.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
from npulab.core.i18n import t
from npulab.env import cann_install, stacks, torch_install, triton_ascend
from npulab.env.check import MARKS, Check, metadata_version
from npulab.env.compatibility import (
    cann_for_mindspore,
    check_alignment,
    hdk_compatible,
    hdk_for_cann,
    python_for_torch,
    torch_npu_for,
    try_parse,
)
from npulab.env.visible_devices import ENV_NAME, from_environ

STATUSES = ("ok", "warn", "fail", "skip")
CHECK_IDS = (
    "python", "numpy", "torch", "mindspore", "cann_install", "cann_env", "driver", "device_nodes", "npu_smi",
    "visible_devices", "torch_npu", "triton", "version_alignment", "cann_python_deps", "chip",
)

# Python packages CANN's graph engine and operator compiler (TBE) import at initialisation. REQUIRED follows the
# official dependency list of the CANN 9.1.0 install guide (hiascend instg_0045, 9.1.0); RECOMMENDED are packages
# only the seed article's TBE list names (cloudpickle, tornado, ml-dtypes): a missing one is a warning, not a failure.
CANN_DEPS_REQUIRED = {
    "attrs": None, "cython": None, "numpy": "1.19.2", "decorator": "4.4.0", "sympy": "1.5.1", "cffi": "1.12.3",
    "pyyaml": None, "pathlib2": None, "psutil": None, "protobuf": None, "scipy": None, "requests": None, "absl-py": None,
}
CANN_DEPS_RECOMMENDED = ("cloudpickle", "tornado", "ml-dtypes")
# CANN 8.5 / 9.0 dependency tables pin protobuf 3.20.x (instg_0045 of those releases); onnx >= 1.20 needs protobuf >= 6.31,
# so one environment cannot satisfy both: doctor warns and names the conflict
PROTOBUF_320_CANN = ("8.5", "9.0")


def _cpu() -> str:
    """"the course runs in CPU mode", in the reader's language (the end of every check skipped for want of an NPU)."""
    return t("doctor.cpu_mode")


def _list(items) -> str:
    return t("doctor.list_sep").join(items)


def _clauses(items) -> str:
    return t("doctor.clause_sep").join(items)


# ---------------------------------------------------------------------------------------------------------------
# Context shared by the checks
# ---------------------------------------------------------------------------------------------------------------


@dataclass
class _Context:
    environ: Mapping[str, str]
    report: cann_install.CannReport | None  # None: no CANN anywhere we looked
    searched: list[Path]
    nodes: list[Path]
    dist_version: Callable[[str], str | None]
    probe_timeout: float
    torch_cuda: Callable[[], list[str]] = lambda: torch_cuda_requirements()  # the installed torch's, when asked

    @property
    def install(self) -> cann_install.Install | None:
        return self.report.primary if self.report else None

    @property
    def has_cann(self) -> bool:
        return self.install is not None


def _versions_lookup(overrides: Mapping[str, str | None] | None) -> Callable[[str], str | None]:
    """Installed version by distribution name; ``overrides`` (tests, notebooks) wins over package metadata."""
    norm = {k.lower().replace("_", "-"): v for k, v in (overrides or {}).items()}

    def lookup(name: str) -> str | None:
        key = name.lower().replace("_", "-")
        if key in norm:
            return norm[key]
        return metadata_version(name)

    return lookup


def _newer_or_equal(version: str | None, minimum: str) -> bool:
    v, m = try_parse(version), try_parse(minimum)
    return v is None or m is None or v >= m


# ---------------------------------------------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------------------------------------------


def _check_python(ctx: _Context) -> Check:
    ver = ".".join(map(str, sys.version_info[:3]))  # npulab itself requires ≥ 3.10 (pyproject)
    torch = ctx.dist_version("torch")
    supported = python_for_torch(torch) if torch and try_parse(torch) else None
    mm = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if supported is not None and mm not in supported:
        return Check("python", "warn", t("doctor.python.table", ver=ver, torch=torch, supported=", ".join(supported)),
                     t("doctor.python.fix", last=supported[-1]))
    return Check("python", "ok", t("doctor.python.ok", ver=ver, exe=sys.executable))


def _check_numpy(ctx: _Context) -> Check:
    numpy = ctx.dist_version("numpy")
    if numpy is None:
        return Check("numpy", "fail", t("doctor.numpy.missing"), t("doctor.numpy.missing_fix"))
    v = try_parse(numpy)
    if v is not None and v.release_n(1) >= (2,):
        if ctx.dist_version("mindspore"):
            return Check("numpy", "fail", t("doctor.numpy.mindspore", numpy=numpy), t("doctor.numpy.mindspore_fix"))
        return Check("numpy", "warn", t("doctor.numpy.pinned", numpy=numpy), "pip install 'numpy<2'")
    return Check("numpy", "ok", t("doctor.numpy.ok", numpy=numpy))


def torch_cuda_requirements() -> list[str]:
    """The nvidia-* / cuda-* distributions the installed torch requires here: a CUDA build (PyPI's torch on x86_64, and
    on aarch64 from 2.11), whatever its version string says (pip shows PyPI's CUDA 2.12.0 as plain ``2.12.0``)."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import InvalidRequirement, Requirement

    try:
        texts = requires("torch") or []
    except PackageNotFoundError:
        return []
    found = []
    for text in texts:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.name.lower().startswith(("nvidia-", "cuda-")) and (req.marker is None or req.marker.evaluate({"extra": ""})):
            found.append(req.name)
    return found


def _course_pair() -> tuple[str, str]:
    """(torch, torch-npu) of the course stack (npulab/data/stacks.yaml)."""
    course = stacks.get("course")
    return stacks.pinned_version(course, "torch"), stacks.pinned_version(course, "torch-npu")


def _check_torch(ctx: _Context) -> Check:
    torch = ctx.dist_version("torch")
    if torch is None:
        return Check("torch", "fail", t("doctor.torch.missing"),
                     t("doctor.torch.missing_fix", pair=torch_install.pair_text(*_course_pair())))
    v = try_parse(torch)
    local = v.local if v else None
    cuda = ctx.torch_cuda()
    if cuda:
        built = t("doctor.torch.cuda", torch=torch, deps=_list(cuda[:3]), more=t("doctor.torch.more") if len(cuda) > 3 else "")
        if ctx.dist_version("torch-npu") is None:
            return Check("torch", "ok", t("doctor.torch.cuda_ok", built=built))
        return Check("torch", "fail", t("doctor.torch.cuda_fail", built=built),
                     "pip uninstall -y torch && " + torch_install.torch_command(torch.split("+")[0]))
    note = t("doctor.torch.cpu_build") if local == "cpu" else (t("doctor.torch.local", local=local) if local else "")
    return Check("torch", "ok", f"PyTorch {torch}{note}")


def _check_mindspore(ctx: _Context) -> Check:
    ms = ctx.dist_version("mindspore")
    if ms is None:
        return Check("mindspore", "warn", t("doctor.mindspore.missing"), "pip install -r requirements.txt")
    pairing = cann_for_mindspore(ms) if try_parse(ms) else []
    if pairing:
        lines = dict.fromkeys(f"CANN {r['cann']}" + (t("doctor.mindspore.uncertain") if r["uncertain"] else "")
                              for r in pairing)
        text = _clauses(list(lines)[:3])  # several tables may name the same CANN: each once
        return Check("mindspore", "ok", t("doctor.mindspore.ok", ms=ms, text=text))
    return Check("mindspore", "ok", t("doctor.mindspore.unpaired", ms=ms))


def _check_cann_install(ctx: _Context) -> Check:
    where = _list(str(p) for p in ctx.searched)
    if ctx.report is not None and ctx.report.problems and not ctx.report.installs:
        return Check("cann_install", "warn",
                     t("doctor.cann_install.problems", root=ctx.report.root, problems=_clauses(ctx.report.problems)),
                     t("doctor.cann_install.problems_fix"))
    inst = ctx.install
    if inst is None:
        return Check("cann_install", "skip", t("doctor.cann_install.none", where=where, cpu=_cpu()),
                     t("doctor.cann_install.none_fix"))
    layout = t("doctor.cann_install.layout_cann") if inst.layout == "cann" else (
        t("doctor.cann_install.layout_nnae") if inst.kind == "nnae" else t("doctor.cann_install.layout_toolkit"))
    target = f"{inst.path} → {inst.home}" if inst.home and inst.home != inst.path else str(inst.path)
    problems = ctx.report.all_problems
    if not inst.usable:
        return Check("cann_install", "fail", t("doctor.cann_install.unusable", layout=layout, problems=_clauses(problems)),
                     t("doctor.cann_install.unusable_fix"))
    version = inst.version or t("doctor.version_unknown")
    message = t("doctor.cann_install.found", version=version, layout=layout, target=target)
    if inst.ops_version:
        message += t("doctor.cann_install.ops", ops=inst.ops_version)
    if problems or inst.version is None:
        return Check("cann_install", "warn", t("doctor.cann_install.with_problems", message=message,
                                               problems=_clauses(problems)),
                     t("doctor.cann_install.problems_version_fix"))
    return Check("cann_install", "ok", message)


def _check_cann_env(ctx: _Context) -> Check:
    status = cann_install.env_status(ctx.environ)
    inst = ctx.install
    source = inst.source_command if inst else None
    if not ctx.has_cann and not any(status.variables.values()):
        return Check("cann_env", "skip", t("doctor.cann_env.none", cpu=_cpu()))
    fix = t("doctor.cann_env.fix_source", source=source) if source else t("doctor.cann_env.fix_generic")
    if not status.loaded:
        detail = _clauses(status.problems)
        head = (t("doctor.cann_env.not_loaded") if inst and not any(status.variables.values())
                else t("doctor.cann_env.incomplete"))
        return Check("cann_env", "fail", t("doctor.cann_env.fail", head=head, detail=detail), fix)
    if inst is not None and not status.points_to(inst):
        loaded = cann_install.loaded_install(ctx.environ)
        version = t("doctor.cann_env.loaded_version", version=loaded.version) if loaded and loaded.version else ""
        return Check("cann_env", "warn", t("doctor.cann_env.other", home=status.home, version=version, path=inst.path),
                     t("doctor.cann_env.other_fix", source=source))
    loaded = cann_install.loaded_install(ctx.environ)
    version = f"CANN {loaded.version}" if loaded and loaded.version else t("doctor.version_unknown")
    return Check("cann_env", "ok", t("doctor.cann_env.ok", version=version,
                                     home=status.variables['ASCEND_HOME_PATH'] or status.home))


def _check_driver(ctx: _Context) -> Check:
    if not ctx.has_cann:
        return Check("driver", "skip", t("doctor.driver.skip", cpu=_cpu()))
    drv = ctx.report.driver
    if drv is None:
        return Check("driver", "warn", t("doctor.driver.missing", root=ctx.report.root), t("doctor.driver.missing_fix"))
    if drv.version is None:
        return Check("driver", "warn", t("doctor.driver.unreadable", problems=_clauses(drv.problems)),
                     t("doctor.driver.unreadable_fix"))
    cann = ctx.install.version
    if cann:
        compatible = hdk_compatible(cann, drv.version)
        if compatible is False:
            return Check("driver", "warn", t("doctor.driver.incompatible", driver=drv.version, cann=cann),
                         t("doctor.driver.incompatible_fix", cann=cann,
                           hdk=", ".join(hdk_for_cann(cann)) or t("doctor.driver.see_notes")))
        paired = hdk_for_cann(cann)
        dv, pv = try_parse(drv.version), [try_parse(p.upper().removesuffix(".X")) for p in paired]
        if compatible is None and dv and pv and all(p and dv.release_n(2) < p.release_n(2) for p in pv):
            return Check("driver", "warn", t("doctor.driver.older", driver=drv.version, cann=cann, paired=", ".join(paired)),
                         t("doctor.driver.older_fix", hdk=_oldest(paired)))
        hint = t("doctor.driver.compatible") if compatible else (
            t("doctor.driver.paired", cann=cann, paired=", ".join(paired)) if paired else "")
        return Check("driver", "ok", t("doctor.driver.ok", driver=drv.version, hint=hint))
    return Check("driver", "ok", t("doctor.driver.ok", driver=drv.version, hint=""))


def _oldest(lines: list[str]) -> str:
    """The oldest HDK line of a CANN release's pairs (8.5.0 pairs with 25.5.X … 25.0.X: 25.0.X is enough)."""
    parsed = [(try_parse(line.upper().removesuffix(".X")), line) for line in lines]
    known = [(v, line) for v, line in parsed if v]
    return min(known, key=lambda p: p[0])[1] if known else lines[0]


def _check_device_nodes(ctx: _Context) -> Check:
    nodes = ctx.nodes
    if nodes:
        names = ", ".join(p.name for p in nodes[:8]) + (" …" if len(nodes) > 8 else "")
        return Check("device_nodes", "ok", t("doctor.nodes.found", count=len(nodes), names=names))
    if not ctx.has_cann:
        return Check("device_nodes", "skip", t("doctor.nodes.skip", cpu=_cpu()))
    return Check("device_nodes", "warn", t("doctor.nodes.missing"), t("doctor.nodes.missing_fix"))


def _check_npu_smi(ctx: _Context) -> Check:
    path = cann_install.find_npu_smi(ctx.environ)
    if path:
        return Check("npu_smi", "ok", t("doctor.npu_smi.found", path=path))
    if not ctx.has_cann and not ctx.nodes:
        return Check("npu_smi", "skip", t("doctor.npu_smi.skip", cpu=_cpu()))
    return Check("npu_smi", "warn", t("doctor.npu_smi.missing"), t("doctor.npu_smi.missing_fix"))


def _check_visible(ctx: _Context) -> Check:
    numbers = sorted(int(m[1]) for p in ctx.nodes if (m := re.fullmatch(r"davinci(\d+)", p.name)))
    # davinci0..N-1 all present (a host, or a container given every chip): IDs from N on are invalid. A partial
    # set (a container given davinci4 and davinci5, say) says nothing reliable about the logical IDs inside.
    contiguous = bool(numbers) and numbers == list(range(len(numbers)))
    vis = from_environ(ctx.environ, n_devices=len(numbers) if contiguous else None)
    if vis.raw is None:
        return Check("visible_devices", "ok", t("doctor.visible.unset", env=ENV_NAME))
    if vis.errors:
        return Check("visible_devices", "fail", vis.describe(), t("doctor.visible.error_fix", env=ENV_NAME))
    if vis.warnings:
        return Check("visible_devices", "warn", _clauses(vis.warnings), t("doctor.visible.warning_fix", env=ENV_NAME))
    if not ctx.nodes:
        suffix = t("doctor.visible.no_npu")
    elif not contiguous:
        suffix = t("doctor.visible.partial")
    else:
        suffix = ""
    return Check("visible_devices", "ok", vis.describe() + suffix)


_PROBE = r"""
import json
try:
    import torch_npu
    import torch
    out = {"ok": True, "version": getattr(torch_npu, "__version__", None)}
    try:
        out["available"] = bool(torch.npu.is_available())
        out["count"] = int(torch.npu.device_count()) if out["available"] else 0
    except Exception as err:
        out["available"], out["error"] = False, f"{type(err).__name__}: {err}"
except BaseException as err:
    out = {"ok": False, "error": f"{type(err).__name__}: {err}"}
print("NPULAB-PROBE " + json.dumps(out))
"""


def probe_torch_npu(environ: Mapping[str, str] | None = None, timeout: float = 30.0) -> dict:
    """Import torch_npu in a subprocess (it can abort the process); return {ok, version, available, error, …}."""
    env = dict(os.environ if environ is None else environ)
    try:
        proc = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"ok": False, "timeout": True, "error": t("doctor.probe.timeout", timeout=f"{timeout:g}")}
    except OSError as err:
        return {"ok": False, "error": t("doctor.probe.no_start", error=err)}
    for line in proc.stdout.splitlines():
        if line.startswith("NPULAB-PROBE "):
            try:
                return json.loads(line[len("NPULAB-PROBE "):])
            except ValueError:
                break
    tail = (proc.stderr.strip().splitlines() or [t("doctor.probe.exit_code", code=proc.returncode)])[-1]
    return {"ok": False, "error": t("doctor.probe.crashed", tail=tail)}


def _probe_fix(error: str, source: str | None) -> str:
    """A fix for the usual torch_npu import errors."""
    load = source or t("doctor.probe.load_default")
    if "Two accelerators" in error:  # the placeholder is torch_install.PLACEHOLDER in Chinese
        return t("doctor.probe.cuda_fix", command=torch_install.torch_command(t("doctor.version_placeholder")))
    if "No module named 'attr'" in error or "GEInitialize" in error:
        return t("doctor.probe.deps_fix", command="pip install " + " ".join(CANN_DEPS_REQUIRED), chain=t("doctor.ge_chain"))
    if ".so" in error or "set_env" in error:
        return t("doctor.probe.so_fix", load=load)
    return t("doctor.probe.other_fix", load=load)


def _check_torch_npu(ctx: _Context) -> Check:
    version = ctx.dist_version("torch-npu")
    if version is None:
        return Check("torch_npu", "skip", t("doctor.torch_npu.missing"))
    if ctx.probe_timeout <= 0:
        return Check("torch_npu", "skip", t("doctor.torch_npu.not_probed", version=version))
    result = probe_torch_npu(ctx.environ, ctx.probe_timeout)
    source = ctx.install.source_command if ctx.install else None
    if result.get("timeout"):
        return Check("torch_npu", "warn", t("doctor.torch_npu.timeout", version=version, error=result["error"]),
                     t("doctor.torch_npu.timeout_fix"))
    if not result.get("ok"):
        return Check("torch_npu", "fail", t("doctor.torch_npu.import_failed", version=version, error=result.get("error")),
                     _probe_fix(str(result.get("error")), source))
    if not result.get("available"):
        extra = t("doctor.torch_npu.error", error=result["error"]) if result.get("error") else ""
        return Check("torch_npu", "warn", t("doctor.torch_npu.unavailable", version=version, extra=extra),
                     t("doctor.torch_npu.unavailable_fix"))
    return Check("torch_npu", "ok", t("doctor.torch_npu.ok", version=version, count=result.get("count")))


def _check_triton(ctx: _Context, probe: Callable[[], triton_ascend.TritonAscendStatus] | None = None) -> Check:
    """torch_npu next to community Triton without Triton-Ascend: torch.compile's inductor fails at the first step."""
    if ctx.dist_version("torch-npu") is None:
        return Check("triton", "skip", t("doctor.triton.skip"))
    status = (probe or triton_ascend.probe)()
    if status.importable:
        return Check("triton", "ok", t("doctor.triton.ok", status=status.describe()))
    if not status.has_triton:
        return Check("triton", "ok", t("doctor.triton.none"))
    return Check("triton", "warn", t("doctor.triton.community", status=status.describe()), t("doctor.triton.community_fix"))


def _check_alignment(ctx: _Context) -> Check:
    torch, torch_npu = ctx.dist_version("torch"), ctx.dist_version("torch-npu")
    cann = ctx.install.version if ctx.install else None
    python = ".".join(map(str, sys.version_info[:3]))
    if torch_npu is None and cann is None:
        hint = ""
        if torch and try_parse(torch):
            rows = torch_npu_for(torch)
            hint = (t("doctor.alignment.pair", torch=torch, torch_npu=rows[0]["torch_npu"], cann=rows[0]["cann"])
                    if rows else t("doctor.alignment.no_pair", torch=torch))
        return Check("version_alignment", "skip", t("doctor.alignment.skip", hint=hint, cpu=_cpu()))
    result = check_alignment(torch=torch, torch_npu=torch_npu, cann=cann, python=python)
    return Check("version_alignment", result.status, result.message, result.fix)


def _check_cann_deps(ctx: _Context) -> Check:
    missing = [name for name in CANN_DEPS_REQUIRED if ctx.dist_version(name) is None]
    old_names = [name for name, low in CANN_DEPS_REQUIRED.items()
                 if low and ctx.dist_version(name) and not _newer_or_equal(ctx.dist_version(name), low)]
    too_old = [t("doctor.deps.too_old", name=name, version=ctx.dist_version(name), low=CANN_DEPS_REQUIRED[name])
               for name in old_names]
    optional = [name for name in CANN_DEPS_RECOMMENDED if ctx.dist_version(name) is None]
    install = "pip install " + " ".join(missing + optional) if (missing or optional) else ""
    if not ctx.has_cann:
        state = (t("doctor.deps.to_install", names=", ".join(missing + optional)) if missing or optional
                 else t("doctor.deps.all_installed"))
        return Check("cann_python_deps", "skip", t("doctor.deps.skip", state=state, cpu=_cpu()), install)
    if missing or too_old:
        return Check("cann_python_deps", "fail", t("doctor.deps.missing", names=_list(missing + too_old)),
                     t("doctor.probe.deps_fix", command=install or "pip install -U " + " ".join(old_names),
                       chain=t("doctor.ge_chain")))
    protobuf = _protobuf_conflict(ctx)
    if protobuf:
        return Check("cann_python_deps", "warn", protobuf[0], protobuf[1])
    if optional:
        return Check("cann_python_deps", "warn", t("doctor.deps.seed_only", names=_list(optional)), install)
    return Check("cann_python_deps", "ok", t("doctor.deps.ok", names=_list(CANN_DEPS_REQUIRED)))


def _protobuf_conflict(ctx: _Context) -> tuple[str, str] | None:
    """(message, fix) when the CANN release's dependency table pins protobuf 3.20.x and another is installed."""
    version = ctx.dist_version("protobuf")
    cann = ctx.install.version if ctx.install else None
    if not version or not cann or not cann.startswith(PROTOBUF_320_CANN) or version.startswith("3.20"):
        return None
    return t("doctor.deps.protobuf", cann=cann, version=version), t("doctor.deps.protobuf_fix")


def _check_chip(ctx: _Context) -> Check:
    """Which Ascend chip this is (npulab.env.chip_probe) and what it supports; the course default without an NPU."""
    has_npu = bool(ctx.nodes) and ctx.dist_version("torch-npu") is not None and ctx.probe_timeout > 0
    if not has_npu:  # no import of the chip table here: doctor must stay fast on a CPU machine
        return Check("chip", "skip", t("doctor.chip.skip", cpu=_cpu()))
    from npulab.env.chip_probe import chip_check

    status, message, fix = chip_check(ctx.environ, has_npu=True, timeout=max(ctx.probe_timeout, 1.0))
    return Check("chip", status, message, fix)


_CHECKS: tuple[tuple[str, Callable[[_Context], Check]], ...] = (
    ("python", _check_python), ("numpy", _check_numpy), ("torch", _check_torch), ("mindspore", _check_mindspore),
    ("cann_install", _check_cann_install), ("cann_env", _check_cann_env), ("driver", _check_driver),
    ("device_nodes", _check_device_nodes), ("npu_smi", _check_npu_smi), ("visible_devices", _check_visible),
    ("torch_npu", _check_torch_npu), ("triton", _check_triton), ("version_alignment", _check_alignment),
    ("cann_python_deps", _check_cann_deps),
    ("chip", _check_chip),
)


def diagnose(
    ascend_root: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    dev_dir: str | Path = "/dev",
    versions: Mapping[str, str | None] | None = None,
    probe_timeout: float = 30.0,
) -> list[Check]:
    """Run every check; ``versions`` overrides installed package versions (name → version, None = absent)."""
    env = os.environ if environ is None else environ
    if ascend_root is not None:
        searched = [Path(ascend_root)]
        report = cann_install.describe(ascend_root)
    else:
        searched = cann_install.candidate_roots(env)
        report = next((r for r in map(cann_install.describe, searched) if r.installs), None)
    ctx = _Context(env, report, searched, cann_install.device_nodes(dev_dir), _versions_lookup(versions), probe_timeout)
    checks = []
    for check_id, func in _CHECKS:
        try:
            checks.append(func(ctx))
        except Exception as err:  # a bug in one check must not hide the others
            checks.append(Check(check_id, "warn", t("doctor.internal_error", error=f"{type(err).__name__}: {err}"),
                                t("doctor.internal_error_fix")))
    return checks


def exit_code(checks: list[Check]) -> int:
    """1 when any check failed, else 0."""
    return EXIT_FAIL if any(c.status == "fail" for c in checks) else EXIT_OK


def render(checks: list[Check]) -> str:
    """The human-readable report: one line per check with a ✓ / ! / ✗ / - mark, fixes indented below."""
    width = max(len(c.id) for c in checks)
    lines = [t("doctor.title"), ""]
    for c in checks:
        lines.append(f"  {MARKS[c.status]} {c.id:<{width}}  {c.message}")
        if c.fix and c.status in ("warn", "fail"):
            lines.append(f"    {'':<{width}}  " + t("doctor.fix", fix=c.fix))
    counts = {s: sum(c.status == s for c in checks) for s in STATUSES}
    lines += ["", t("doctor.counts", **counts), t("doctor.legend"), t("doctor.explain_hint")]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------------------------


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help='以 JSON 输出：{"checks": [{"id", "status", "message", "fix"}, ...]}')
    parser.add_argument("--ascend-root", metavar="DIR",
                        help="CANN 安装根目录（默认依次查找已加载环境所在目录、/usr/local/Ascend、~/Ascend）")
    parser.add_argument("--probe-timeout", type=float, default=30.0, metavar="SECONDS",
                        help="导入 torch_npu 的子进程最多等待的秒数（仅在已安装 torch_npu 时运行；0 表示不测试）")
    parser.add_argument("--stack", metavar="NAME",
                        help="只对照一个软件栈（npulab/data/stacks.yaml：course、vllm-ascend、mindspeed-llm、ms-swift、"
                             "triton-ascend、mindspore）检查当前环境的 torch / torch_npu / CANN / Python 等版本")
    parser.add_argument("--python", metavar="PATH",
                        help="与 --stack 一起用：核对另一个解释器（该栈的 venv 目录或它的 bin/python）里装的版本；"
                             "那个环境不必装 npulab，Python 3.8 起都行（MindSpeed-LLM 的 3.10、vLLM-Ascend 镜像的 3.12）")


def build_parser(subparsers, name: str) -> None:
    """Add the ``doctor`` sub-command."""
    parser = subparsers.add_parser(name, help=t(f"cli.tool.{name}"),
                                   description="检查课程环境并给出修复建议。没有 NPU 的机器上，与 NPU 相关的项会被跳过。")
    _add_arguments(parser)
    parser.set_defaults(run=run)


def loaded_cann_check(stack: str, environ: Mapping[str, str] | None = None) -> Check:
    """Which CANN this process (a Jupyter kernel, a shell) has loaded, against the CANN that ``stack`` needs."""
    from npulab.env import stack_check

    wanted = stack_check.stacks()[stack].get("cann")
    loaded = cann_install.loaded_install(environ)
    if loaded is None:
        return Check("loaded_cann", "skip", t("doctor.loaded.none"),
                     t("doctor.loaded.none_fix", wanted=wanted) if wanted else "")
    where = f"ASCEND_HOME_PATH={loaded.path}"
    if not wanted:
        return Check("loaded_cann", "ok", t("doctor.loaded.no_requirement", version=loaded.version or t("doctor.version_unknown"),
                                            where=where, stack=stack))
    if loaded.version is None:
        return Check("loaded_cann", "warn", t("doctor.loaded.unreadable", where=where, problems=_clauses(loaded.problems)),
                     t("doctor.loaded.unreadable_fix", stack=stack, wanted=wanted, path=loaded.path))
    row = next(c for c in stack_check.check_stack(stack, versions=lambda name: None, cann=loaded.version)
               if c.id == "CANN")
    if row.status == "ok":
        return Check("loaded_cann", "ok", t("doctor.loaded.ok", version=loaded.version, where=where, stack=stack,
                                            wanted=wanted))
    return Check("loaded_cann", "fail", t("doctor.loaded.mismatch", version=loaded.version, where=where, stack=stack,
                                          wanted=wanted),
                 t("doctor.loaded.mismatch_fix", stack=stack, wanted=wanted))


def _run_stack(stack: str, root: str | None, as_json: bool, python: str | None = None) -> int:
    """``doctor --stack``: the stack-check table, then which CANN the checked interpreter has loaded against the
    stack's (``python``: another interpreter, asked through npulab/env/stack_probe.py)."""
    import contextlib
    import io

    from npulab.env import stack_check
    from npulab.env import stacks as stack_data

    stack_data.get(stack)  # an unknown stack is a usage error before an interpreter is run
    probe = stack_check.probe_python(python) if python else None
    environ = {k: v for k, v in probe["environ"].items() if v} if probe else None
    if not as_json:
        code = stack_check.run(stack, root, False, probe=probe)
        check = loaded_cann_check(stack, environ)
        print(t("doctor.loaded.line", mark=MARKS[check.status], message=check.message)
              + ("\n  " + t("doctor.fix", fix=check.fix) if check.fix and check.status in ("warn", "fail") else ""))
        return EXIT_FAIL if check.status == "fail" else code
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        code = stack_check.run(stack, root, True, probe=probe)
    document = json.loads(buffer.getvalue())
    check = loaded_cann_check(stack, environ)
    document["loaded_cann"] = check.as_dict()
    print(json.dumps(document, ensure_ascii=False, indent=2))
    return EXIT_FAIL if check.status == "fail" else code


def run(args) -> int:
    """Run the doctor for parsed arguments; print a report or JSON; return 0, 1 or 2."""
    root = getattr(args, "ascend_root", None)
    if root is not None:
        path = Path(root)
        if not path.exists():
            raise UsageError(t("doctor.usage.root_missing", root=root))
        if not path.is_dir():
            raise UsageError(t("doctor.usage.root_not_dir", root=root))
    if getattr(args, "python", None) and not getattr(args, "stack", None):
        raise UsageError(t("doctor.usage.python_without_stack"))
    if getattr(args, "stack", None):
        return _run_stack(args.stack, root, args.json, getattr(args, "python", None))
    checks = diagnose(root, probe_timeout=getattr(args, "probe_timeout", 30.0))
    if args.json:
        print(json.dumps({"checks": [c.as_dict() for c in checks]}, ensure_ascii=False, indent=2))
    else:
        print(render(checks))
    return exit_code(checks)
