"""Every environment the course sends a learner to, resolved for real: each stack's documented install
(npulab/data/stacks.yaml → requirements files and pip commands) with uv for linux aarch64 and x86_64 at the stack's
documented Python, against PyPI. What is not on PyPI is left out and must say where it comes from. Each lesson's
kernel imports must be in its stack's resolved set. Without network the tests skip and say why."""

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
from npulab.env import stacks

pytestmark = pytest.mark.xdist_group("stack-resolution")  # one worker resolves everything once (make test: loadgroup)
PLATFORMS = tuple(stacks.PLATFORMS)
NOTEBOOKS = sorted([*REPO_ROOT.glob("chapters/*/*.ipynb"), *REPO_ROOT.glob("notebooks/*.ipynb")])


# resolved with the stacks, in the same parallel batch: a pin that must not be on PyPI, and the recorded conflicts
NOT_ON_PYPI = ("vllm-ascend", "aarch64", "pip install triton-ascend==3.2.2")
CONFLICTS = [(name, "aarch64", *conflict["install"]) for name, stack in stacks.load().items()
             for conflict in stack.get("conflicts", [])]
EXTRA_JOBS = [NOT_ON_PYPI, *CONFLICTS]


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
    if any(isinstance(r, stacks.IndexUnreachable) for r in results.values()):
        pytest.skip(f"包索引中途不可达：{next(r for r in results.values() if isinstance(r, stacks.IndexUnreachable))}")
    return results


def _resolved(resolutions, name: str, platform: str) -> stacks.Resolution:
    result = resolutions[(name, platform)]
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
    for requirement in stacks.install_requirements(name)[0]:
        pin = re.fullmatch(r"([A-Za-z0-9._-]+)==([\w.+!-]+)", requirement.split(";")[0].strip())
        if pin:
            key = stacks.canonical(pin.group(1))
            assert (result.pins.get(key) or result.elsewhere.get(key)) == pin.group(2), (name, platform, requirement)
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
    missing = []
    for path in NOTEBOOKS:
        name = _lesson_stack(path)
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
    elsewhere = {m: where for path in NOTEBOOKS for m in kernel_imports(path) if (where := stacks.OUTSIDE_PYPI_MODULES.get(m))}
    print("".join(f"\nPyPI 之外的模块 {m}：{where}" for m, where in sorted(elsewhere.items())))
