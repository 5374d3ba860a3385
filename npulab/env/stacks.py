"""The software stacks of npulab/data/stacks.yaml as environments: their documented install turned into the
requirements an installer sees, resolved for real with uv (``uv pip compile`` for linux aarch64 / x86_64), the
modules a lesson's kernel imports mapped to distributions, and the table a lesson shows.

Resolution asks the package index (PyPI by default, ``$NPULAB_RESOLVE_INDEX`` for a mirror) and nothing else: what a
stack names in ``outside_pypi`` (CANN, Triton-Ascend from the Ascend pip mirror, git checkouts) is left out of the
resolution and reported with where to get it. The PyTorch CPU index is used exactly where a command names it (never
added: the resolution is of the commands a learner is shown); when it does not answer, resolving such a stack raises
CpuIndexUnreachable instead of resolving something else. The commands are resolved together, as pip would install them
one after another (a later exact pin replaces an earlier one) and with pip's choice among indexes (the highest version
of all of them: ``--index-strategy unsafe-best-match``).
"""

from __future__ import annotations

import functools
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from npulab.core.cli import UsageError
from npulab.core.display import Table, emit
from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, REPO_ROOT, load_yaml
from npulab.env import torch_install

STACKS = DATA_DIR / "stacks.yaml"
PLATFORMS = {"aarch64": "aarch64-unknown-linux-gnu", "x86_64": "x86_64-unknown-linux-gnu"}
DEFAULT_INDEX = "https://pypi.org/simple"
CPU_INDEX = torch_install.CPU_INDEX
NEVER = "sys_platform == 'never'"  # an override with this marker removes a dependency from the resolution

# modules whose distribution is not found by importlib.metadata here (not installed, or another name), with every
# distribution that provides them
MODULE_DISTRIBUTIONS = {"yaml": ("pyyaml",), "IPython": ("ipython",), "ipykernel": ("ipykernel",),
                        "triton": ("triton", "triton-ascend"), "torch_npu": ("torch-npu",), "torch": ("torch",),
                        "PIL": ("pillow",), "mindspore": ("mindspore",), "matplotlib": ("matplotlib",),
                        "numpy": ("numpy",), "packaging": ("packaging",), "transformers": ("transformers",),
                        "peft": ("peft",), "onnx": ("onnx",), "onnxruntime": ("onnxruntime",),
                        "msprobe": ("mindstudio-probe",), "msprof_analyze": ("msprof-analyze",),
                        "torchair": ("torch-npu",)}  # torch_npu bundles TorchAir

# modules a lesson's npu cell imports that no PyPI package provides for the course's Python: where they come from
OUTSIDE_PYPI_MODULES = {
    "mindspore_lite": "MindSpore Lite 的 wheel 来自 MindSpore 下载页（https://www.mindspore.cn/lite）；PyPI 上最新的 mindspore-lite 是 2023 年的 2.0.0",
    "ais_bench": "msit 的 ais_bench 推理工具，按 msit 仓库的说明从源码构建安装（https://gitee.com/ascend/msit）",
    "relu_custom_ext": "第 06 章第 1 课自己编译的扩展（chapters/06_advanced/ascendc/relu_custom）",
}


class IndexUnreachable(Exception):
    """The package index could not be reached; the message says which and why."""


class CpuIndexUnreachable(IndexUnreachable):
    """A command names the PyTorch CPU index and it does not answer from here: that stack cannot be resolved as shown."""


class Unresolvable(Exception):
    """The index answered, but the requirements have no solution; the message is the installer's explanation."""


@dataclass
class Resolution:
    """What one stack resolves to on one platform."""

    stack: str
    platform: str
    python: str
    pins: dict[str, str]
    outside_pypi: list[dict]
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    elsewhere: dict[str, str] = field(default_factory=dict)  # exact pins the install takes from its own non-PyPI index


def canonical(name: str) -> str:
    """PEP 503 name: ``torch_npu`` → ``torch-npu``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def load() -> dict:
    """The stacks of npulab/data/stacks.yaml by name."""
    return load_yaml(STACKS)["stacks"]


def get(name: str) -> dict:
    """One stack; UsageError (with the names there are) for an unknown one."""
    known = load()
    if name not in known:
        raise UsageError(t("stack.unknown", name=repr(name), known=t("stack.list_sep").join(known)))
    return known[name]


def course_dependencies(root: Path = REPO_ROOT) -> list[str]:
    """``[project] dependencies`` of the course package (what ``pip install -e .`` adds)."""
    return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"].get("dependencies", [])


def _requirement_name(line: str) -> str | None:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", line)
    return canonical(match.group(1)) if match else None


def _file_lines(path: str, stack: dict, root: Path) -> list[str]:
    """Requirement lines of a requirements file: copied into the stack's data, or read from the repository."""
    if path in stack.get("requirements", {}):
        return list(stack["requirements"][path])
    lines = []
    for raw in (root / path).read_text(encoding="utf-8").splitlines():
        line = re.sub(r"(^|\s)#.*", "", raw).strip()
        if not line:
            continue
        if line.startswith(("-r ", "--requirement ")):
            nested = str((Path(path).parent / line.split(None, 1)[1]).as_posix())
            lines += _file_lines(nested, stack, root)
        else:
            lines.append(line)
    return lines


def install_requirements(name: str, root: Path = REPO_ROOT, install: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(requirements, extra index URLs) of a stack's documented install, in order. A later exact pin of a package
    replaces an earlier requirement of it, as a second ``pip install`` does; a later range (``numpy``) adds to it,
    since pip keeps an installed version that already satisfies it."""
    stack = get(name)
    by_name: dict[str, list[str]] = {}
    indexes: list[str] = []

    def add(requirement: str) -> None:
        key = _requirement_name(requirement)
        if not key:
            return
        if "==" in requirement or not by_name.get(key):  # an exact pin replaces; a range adds to what is there
            by_name.pop(key, None)
            by_name[key] = [requirement]
        elif requirement not in by_name[key]:
            by_name[key].append(requirement)

    for command in install or stack["install"]:
        args = shlex.split(command)
        if args[:2] != ["pip", "install"]:
            raise ValueError(f"{name}: not a pip install command: {command}")
        words = iter(args[2:])
        for word in words:
            if word in ("-r", "--requirement"):
                for line in _file_lines(next(words), stack, root):
                    if line.startswith(("--extra-index-url", "--index-url")):
                        indexes.append(line.split(None, 1)[1])
                    else:
                        add(line)
            elif word in ("--extra-index-url", "--index-url"):
                indexes.append(next(words))
            elif word == "-e" or word == ".":
                for dep in course_dependencies(root):
                    add(dep)
                if word == "-e":
                    next(words)
            elif word.startswith("-"):
                continue
            else:
                add(word)
    return [r for group in by_name.values() for r in group], indexes


def pinned_version(stack: dict, package: str) -> str | None:
    """``==X`` of a package in a stack's ``packages`` (None when it is not pinned exactly)."""
    spec = stack["packages"].get(package) or ""
    match = re.fullmatch(r"==\s*([\w.+!-]+)", spec.strip())
    return match.group(1) if match else None


def uv_binary() -> str | None:
    """The uv next to this Python (scripts/python_packages.sh installs it there), else one on PATH."""
    beside = Path(sys.executable).parent / "uv"
    return str(beside) if beside.is_file() else shutil.which("uv")


def index_url() -> str:
    import os

    return os.environ.get("NPULAB_RESOLVE_INDEX", DEFAULT_INDEX).rstrip("/")


def reachable(url: str, timeout: float = 5.0) -> bool:
    """Whether ``url`` answers an HTTP request within ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD", headers={"User-Agent": "npulab"}),
                                    timeout=timeout):
            return True
    except Exception:  # noqa: BLE001 - any failure means "not reachable from here"
        return False


@functools.lru_cache(maxsize=1)
def _cpu_index_up() -> bool:
    return reachable(CPU_INDEX + "/torch/")


_OFFLINE = re.compile(r"Failed to fetch|dns error|error sending request|Could not connect|timed out|"
                      r"Network is unreachable|Connection refused|failed to lookup address", re.IGNORECASE)


def resolve(name: str, platform: str, uv: str | None = None, cpu_index_up: bool | None = None,
            install: list[str] | None = None) -> Resolution:
    """Resolve stack ``name`` for linux ``platform`` (aarch64 / x86_64) at its documented Python.

    ``install`` replaces the stack's documented commands (e.g. a conflict the data records). IndexUnreachable when
    the index does not answer, Unresolvable when it answers with no solution."""
    stack = get(name)
    uv = uv or uv_binary()
    if not uv:
        raise IndexUnreachable("找不到 uv（scripts/python_packages.sh 把它装进 venv）")
    requirements, indexes = install_requirements(name, install=install)
    outside = list(stack.get("outside_pypi", []))
    # a package the install itself fetches from the non-PyPI index outside_pypi names (triton-ascend 3.2.2 from the
    # Ascend mirror) is not asked of PyPI; its pin is reported beside the resolution
    given = {url.rstrip("/") for url in indexes}
    own_index = {canonical(e["name"]): e["index"] for e in outside if e.get("index") and e["index"].rstrip("/") in given}
    elsewhere = {}
    for requirement in requirements:
        exact = re.fullmatch(r"([A-Za-z0-9._-]+)\s*==\s*([\w.+!-]+)", requirement.split(";")[0].strip())
        if exact and canonical(exact.group(1)) in own_index:
            elsewhere[canonical(exact.group(1))] = exact.group(2)
    requirements = [r for r in requirements if _requirement_name(r) not in own_index]
    asked = {_requirement_name(r) for r in requirements}
    # what comes from elsewhere is removed where something depends on it (a top-level request still resolves)
    overrides = [f"{entry['name']} ; {NEVER}" for entry in outside if re.fullmatch(r"[A-Za-z0-9._-]+", entry["name"])
                 and entry["name"] != "CANN" and canonical(entry["name"]) not in asked]
    options = ["--index-strategy", "unsafe-best-match"]
    notes = [f"{url} 不是 PyPI：解析时不使用（它提供的包见 outside_pypi）" for url in dict.fromkeys(indexes)
             if url.rstrip("/") != CPU_INDEX]
    notes += [f"{key}=={pin} 由安装命令从 {own_index[key]} 取，不在解析之内" for key, pin in elsewhere.items()]
    if any(url.rstrip("/") == CPU_INDEX for url in indexes):
        if cpu_index_up is None:
            cpu_index_up = _cpu_index_up()
        if not cpu_index_up:
            raise CpuIndexUnreachable(f"{name} 的安装命令用 PyTorch 的 CPU 索引 {CPU_INDEX}，这里连不上：不能按所示命令解析"
                                      "（不会改用 PyPI 上的 CUDA 版 torch 代替）")
        options += ["--extra-index-url", CPU_INDEX]
    with tempfile.TemporaryDirectory(prefix="npulab-resolve-") as tmp:
        req, over = Path(tmp) / "requirements.in", Path(tmp) / "overrides.txt"
        req.write_text("\n".join(requirements) + "\n", encoding="utf-8")
        over.write_text("\n".join(overrides) + "\n", encoding="utf-8")
        command = [uv, "pip", "compile", "--no-config", "--quiet", "--no-header", "--no-annotate",
                   "--python-platform", PLATFORMS[platform], "--python-version", stack["resolve_python"],
                   "--default-index", index_url(), *options, "--override", str(over), str(req)]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        seconds = time.perf_counter() - start
    if done.returncode != 0:
        message = done.stderr.strip()
        if _OFFLINE.search(message):
            raise IndexUnreachable(f"{index_url()} 不可达：{message.splitlines()[-1] if message else done.returncode}")
        raise Unresolvable(f"{name}（{platform}，Python {stack['resolve_python']}）无解：\n{message}")
    pins = {}
    for line in done.stdout.splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line.strip())
        if match:
            pins[canonical(match.group(1))] = match.group(2)
    return Resolution(name, platform, stack["resolve_python"], pins, outside, notes, seconds, elsewhere)


def cuda_packages(pins: dict[str, str]) -> list[str]:
    """What in a resolution is CUDA: ``nvidia-*`` / ``cuda-*`` packages and a torch family build labelled ``+cu…``
    (PyPI's CUDA torch has no label: its nvidia-* / cuda-* dependencies show it)."""
    return sorted(name for name, version in pins.items() if name.startswith(("nvidia-", "cuda-"))
                  or name in torch_install.TORCH_FAMILY and re.search(r"\+cu\d", version))


def top_level(name: str) -> list[str]:
    """Canonical names of the packages a stack's install asks for directly."""
    return list(dict.fromkeys(n for r in install_requirements(name)[0] if (n := _requirement_name(r))))


@functools.lru_cache(maxsize=1)
def _installed_modules() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return packages_distributions()  # scans every installed distribution: once per process


def distributions_for(module: str) -> set[str]:
    """Distributions (canonical names) that can provide top-level ``module``: installed metadata plus the table."""
    found = {canonical(d) for d in _installed_modules().get(module, [])}
    return found | {canonical(d) for d in MODULE_DISTRIBUTIONS.get(module, ())}


def notebook_stack(metadata: dict) -> str:
    """The stack a lesson's kernel runs in on an Ascend host (notebook metadata ``course.stack``; default course)."""
    return metadata.get("course", {}).get("stack", "course")


def venv(name: str) -> Path | None:
    """The stack's own venv: ``$NPULAB_VENV_<NAME>`` or the stack's ``venv`` (None when the stack names none)."""
    import os

    where = os.environ.get("NPULAB_VENV_" + re.sub(r"\W", "_", name).upper()) or get(name).get("venv")
    return Path(where).expanduser() if where else None


def tool_path(name: str) -> str:
    """A PATH that finds the stack's tools: its venv's bin first when that venv exists; otherwise the current PATH
    (inside the stack's container image the tools are already on it)."""
    import os

    folder = venv(name)
    current = os.environ.get("PATH", "")
    return os.pathsep.join([str(folder / "bin"), current]) if folder and (folder / "bin").is_dir() else current


def table(name: str) -> Table:
    """What a lesson shows about a stack: versions, CANN, Python, install, image and what comes from elsewhere."""
    stack = get(name)
    rows = [[package, spec] for package, spec in stack["packages"].items() if spec]
    rows += [["CANN", stack["cann"] or "—"], ["Python", ",".join(stack["python"] or [])]]
    if stack.get("nnal"):
        nnal = stack["nnal"]
        rows.append(["NNAL", t("stack.nnal_row", version=nnal["version"], script=nnal["set_env"], why=localized(nnal, "why"))])
    rows += [[t("stack.install_row", index=i), command] for i, command in enumerate(stack["install"], 1)]
    if stack.get("image"):
        hardware = stack.get("image_hardware")
        sep = t("stack.clause_sep")
        others = sep.join(t("stack.image_variant", line=line, image=image)
                          for line, image in (stack.get("image_variants") or {}).items())
        rows.append([t("stack.image"), stack["image"] + (t("stack.image_for", hardware=hardware,
                                                           others=sep + others if others else "")
                                                         if hardware else "")])
    rows += [[t("stack.outside", name=entry["name"], version=entry.get("version") or "").rstrip(), localized(entry, "where")]
             for entry in stack.get("outside_pypi", [])]
    rows += [[t("stack.conflict", commands=t("stack.clause_sep").join(c["install"])), localized(c, "why")]
             for c in stack.get("conflicts", [])]
    label = "" if stack.get("label", "stable") == "stable" else t("stack.label", label=stack["label"])
    return Table([t("stack.col_item"), t("stack.col_value")], rows,
                 t("stack.title", name=name, title=localized(stack, "title")) + label,
                 notes=[t("stack.environment", environment=localized(stack, "environment")),
                        *[t("stack.source", source=s) for s in localized(stack, "sources")],
                        *([localized(stack, "note")] if stack.get("note") else [])])


def show(name: str) -> None:
    """Display the stack's table: as HTML in a notebook, as text elsewhere."""
    emit(table(name))
