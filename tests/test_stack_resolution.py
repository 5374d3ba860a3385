"""Every environment the course sends a learner to, resolved for real: each stack's documented install
(npulab/data/stacks.yaml → requirements files and pip commands) with uv for linux aarch64 and x86_64 at the stack's
documented Python, against PyPI and the indexes the commands name, exactly as printed (nothing added). No stack may
resolve to a CUDA build (nvidia-* / cuda-* packages, a ``+cu…`` torch): torch_npu refuses to load beside one. What is
not on PyPI is left out and must say where it comes from. Each lesson's kernel imports must be in its stack's resolved
set. Without network the tests skip and say why; a stack whose commands name the PyTorch CPU index is skipped, with
that reason, when the index does not answer, while the same torch command without the index is still resolved on PyPI
to show what the index prevents."""

from __future__ import annotations

import ast
import functools
import re
import sys
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from npulab.core.paths import REPO_ROOT
from npulab.env import stacks, torch_install

pytestmark = pytest.mark.xdist_group("stack-resolution")  # one worker resolves everything once (make test: loadgroup)
PLATFORMS = tuple(stacks.PLATFORMS)
NOTEBOOKS = sorted([*REPO_ROOT.glob("chapters/*/*.ipynb"), *REPO_ROOT.glob("notebooks/*.ipynb")])


# resolved with the stacks, in the same parallel batch: a pin that must not be on PyPI, and the recorded conflicts
NOT_ON_PYPI = ("vllm-ascend", "aarch64", "pip install triton-ascend==3.2.2")
CONFLICTS = [(name, "aarch64", *conflict["install"]) for name, stack in stacks.load().items()
             for conflict in stack.get("conflicts", [])]
# the torch command each stack prints, without its CPU index: resolved on PyPI to show what the index prevents
WITHOUT_CPU_INDEX = {}
for _name, _stack in stacks.load().items():
    _torch = stacks.pinned_version(_stack, "torch")
    if _torch and _torch not in {t for t, _ in WITHOUT_CPU_INDEX.values()}:
        _printed = torch_install.torch_command(_torch)
        WITHOUT_CPU_INDEX[_name] = (_torch, _printed.replace(f" --index-url {torch_install.CPU_INDEX}", ""))
TEETH = [(name, platform, command) for name, (_, command) in WITHOUT_CPU_INDEX.items() for platform in PLATFORMS]
EXTRA_JOBS = [NOT_ON_PYPI, *CONFLICTS, *TEETH]


def _offline_reason() -> str | None:
    if not stacks.uv_binary():
        return "没有 uv（scripts/python_packages.sh 把它装进 venv），无法解析环境"
    if not stacks.reachable(stacks.index_url() + "/pip/", timeout=10):
        return f"连不上包索引 {stacks.index_url()}：环境解析需要联网（CI 有网络），这次跳过"
    return None


@pytest.fixture(scope="module")
def resolutions() -> dict[tuple[str, str], stacks.Resolution | Exception]:
    """Every stack on every platform, resolved in parallel (uv's own cache lives outside the repository)."""
    reason = _offline_reason()
    if reason:
        pytest.skip(reason)

    def one(key):
        name, platform, *install = key
        try:
            return stacks.resolve(name, platform, install=list(install) or None)
        except (stacks.Unresolvable, stacks.IndexUnreachable) as err:
            return err

    keys = [(name, platform) for name in stacks.load() for platform in PLATFORMS]
    keys += EXTRA_JOBS
    with ThreadPoolExecutor(max_workers=len(keys)) as pool:  # network-bound: all at once
        results = dict(zip(keys, pool.map(one, keys), strict=True))
    down = [r for r in results.values() if isinstance(r, stacks.IndexUnreachable)
            and not isinstance(r, stacks.CpuIndexUnreachable)]
    if down:
        pytest.skip(f"包索引中途不可达：{down[0]}")
    return results


def _resolved(resolutions, name: str, platform: str) -> stacks.Resolution:
    result = resolutions[(name, platform)]
    if isinstance(result, stacks.CpuIndexUnreachable):
        pytest.skip(str(result))  # the commands name the CPU index: resolved as shown or not at all
    if isinstance(result, Exception):
        pytest.fail(str(result))
    return result


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("name", list(stacks.load()))
def test_each_stack_resolves_to_its_stated_versions(resolutions, name, platform):
    result = _resolved(resolutions, name, platform)
    stack = stacks.get(name)
    outside = {stacks.canonical(e["name"]) for e in stack.get("outside_pypi", [])}
    for package, spec in stack["packages"].items():
        key = stacks.canonical(package)
        if not spec or key in outside:
            continue
        assert key in result.pins, f"{name}/{platform}: {package} 不在解析结果里"
        assert SpecifierSet(spec).contains(Version(result.pins[key]), prereleases=True), \
            f"{name}/{platform}: {package} 解析为 {result.pins[key]}，数据写的是 {spec}"
    assert not stacks.cuda_packages(result.pins), f"{name}/{platform}: CUDA 构建 {stacks.cuda_packages(result.pins)}"
    for requirement in stacks.install_requirements(name)[0]:
        pin = re.fullmatch(r"([A-Za-z0-9._-]+)==([\w.+!-]+)", requirement.split(";")[0].strip())
        if pin:  # ==2.12.0 is met by the CPU index's 2.12.0+cpu (a local label is ignored), as pip and uv read it
            key = stacks.canonical(pin.group(1))
            got = result.pins.get(key) or result.elsewhere.get(key)
            assert got and SpecifierSet(f"=={pin.group(2)}").contains(Version(got), prereleases=True), \
                (name, platform, requirement, got)
    print(f"\n{name} / {platform} / Python {result.python}: {len(result.pins)} 个包，{result.seconds:.1f} s；"
          + "、".join(f"{p}=={result.pins[p]}" for p in stacks.top_level(name) if p in result.pins)
          + "".join(f"\n  PyPI 之外：{e['name']} {e.get('version') or ''}".rstrip() + f"：{e['where']}"
                    for e in result.outside_pypi)
          + "".join(f"\n  注：{n}" for n in result.notes))


def test_what_is_outside_pypi_says_where_to_get_it():
    for name, stack in stacks.load().items():
        assert stack.get("outside_pypi"), f"{name}: 至少 CANN 来自 PyPI 之外"
        for entry in stack["outside_pypi"]:
            assert entry["name"] and len(entry["where"]) > 10, (name, entry)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_without_the_cpu_index_pypi_gives_cuda_torch(resolutions, platform):
    """The CUDA check has teeth: each stack's torch command with its CPU index removed resolves, on PyPI, to a CUDA
    torch with nvidia-* / cuda-* packages on x86_64 for every pinned torch and on aarch64 from torch 2.11 (2.12.0
    needs cuda-toolkit); PyPI's aarch64 torch before 2.11 is the CPU build."""
    for name, (torch, command) in WITHOUT_CPU_INDEX.items():
        result = resolutions[(name, platform, command)]
        assert isinstance(result, stacks.Resolution), (command, platform, result)
        cuda = stacks.cuda_packages(result.pins)
        expect_cuda = platform == "x86_64" or Version(torch) >= Version("2.11")
        assert bool(cuda) == expect_cuda, (command, platform, cuda)
        print(f"\n{command}（{platform}，PyPI，不加 CPU 索引）：{len(cuda)} 个 CUDA 包 {'、'.join(cuda[:4])}"
              + ("……" if len(cuda) > 4 else ""))
    assert platform != "aarch64" or any(Version(t) >= Version("2.11") for t, _ in WITHOUT_CPU_INDEX.values())


def test_outside_pypi_really_is_not_on_pypi(resolutions):
    """triton-ascend 3.2.2 (triton-ascend, vllm-ascend, MindSpeed-LLM) cannot come from PyPI: asking for it there has
    no solution; the triton-ascend stack's install takes it from the Ascend mirror, and the resolution says so."""
    result = resolutions[NOT_ON_PYPI]
    assert isinstance(result, stacks.Unresolvable) and "triton-ascend" in str(result)
    triton = _resolved(resolutions, "triton-ascend", "aarch64")
    assert triton.elsewhere == {"triton-ascend": "3.2.2"} and "triton-ascend" not in triton.pins
    assert any("triton-ascend==3.2.2" in note and "mirrors.huaweicloud.com" in note for note in triton.notes)


def test_recorded_conflicts_still_conflict(resolutions):
    """A documented install the data records as broken (vllm 0.23.0 from PyPI beside vllm-ascend 0.23.0) stays so;
    when it resolves one day, the data and the lesson should say so."""
    for key in CONFLICTS:
        assert isinstance(resolutions[key], stacks.Unresolvable), key


# --- the lessons' kernels ----------------------------------------------------------------------------------------


def _code(source: str) -> str:
    """A cell's Python without IPython magics and shell escapes (a cell magic keeps its body)."""
    lines = source.splitlines()
    if lines and lines[0].startswith("%%"):
        lines = lines[1:]
    return "\n".join("" if line.lstrip().startswith(("%", "!")) or re.match(r"\s*\w+\s*=\s*!", line) else line
                     for line in lines)


@functools.cache
def kernel_imports(path) -> set[str]:
    """Top-level modules that a notebook's code cells import (the kernel runs them all)."""
    nb = nbformat.read(path, as_version=4)
    modules = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(_code(cell.source))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules.add(node.module.split(".")[0])
    return {m for m in modules if m not in sys.stdlib_module_names}


@functools.cache
def _lesson_stack(path) -> str:
    return stacks.notebook_stack(nbformat.read(path, as_version=4).metadata)


def test_every_lesson_names_a_known_stack():
    for path in NOTEBOOKS:
        name = _lesson_stack(path)
        assert name in stacks.load(), (path, name)
    triton = nbformat.read(REPO_ROOT / "chapters/06_advanced/02_triton_kernels.ipynb", as_version=4)
    assert stacks.notebook_stack(triton.metadata) == "triton-ascend"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_each_lesson_kernel_finds_its_imports_in_its_environment(resolutions, platform):
    """Every module a lesson imports, npulab's own dependencies and ipykernel are in the lesson's stack."""
    needed_by_npulab = {stacks.canonical(re.match(r"[A-Za-z0-9._-]+", d).group(0)) for d in stacks.course_dependencies()}
    missing, unresolved = [], {}
    for path in NOTEBOOKS:
        name = _lesson_stack(path)
        if isinstance(resolutions[(name, platform)], stacks.CpuIndexUnreachable):
            unresolved.setdefault(name, str(resolutions[(name, platform)]))
            continue
        result = _resolved(resolutions, name, platform)
        pins = {**result.pins, **result.elsewhere}  # elsewhere: what the install takes from its own index
        for dist in needed_by_npulab | {"ipykernel"}:
            if dist not in pins:
                missing.append(f"{path.relative_to(REPO_ROOT)} [{name}]: {dist}（npulab 或内核需要）")
        for module in sorted(kernel_imports(path) - {"npulab"} - set(stacks.OUTSIDE_PYPI_MODULES)):
            candidates = stacks.distributions_for(module)
            if not candidates:
                missing.append(f"{path.relative_to(REPO_ROOT)}: 不知道哪个包提供 {module}（补进 stacks.MODULE_DISTRIBUTIONS）")
            elif not candidates & set(pins):
                missing.append(f"{path.relative_to(REPO_ROOT)} [{name}]: {module}（{'/'.join(sorted(candidates))}）")
    assert not missing, "\n".join(missing)
    if unresolved and all(_lesson_stack(p) in unresolved for p in NOTEBOOKS):
        pytest.skip("；".join(unresolved.values()))
    print("".join(f"\n未核对（栈 {n}）：{why}" for n, why in unresolved.items()))
    elsewhere = {m: where for path in NOTEBOOKS for m in kernel_imports(path) if (where := stacks.OUTSIDE_PYPI_MODULES.get(m))}
    print("".join(f"\nPyPI 之外的模块 {m}：{where}" for m, where in sorted(elsewhere.items())))
