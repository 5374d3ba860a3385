"""The site's ".ipynb" download is the executed notebook, clean, and it installs what it needs by itself.

The theme's download button links ``_sources/<page>.ipynb``, which Sphinx copies from the *source* notebook — no
outputs, although ``_config.yml`` executes every lesson. MyST-NB writes the executed notebook (outputs from the
execution cache that ``make test`` fills) to ``_build/jupyter_execute/<page>.ipynb`` — but in ``cache`` mode it writes
the notebook it parsed, without the cached outputs, so those are merged in from the cache (``_build/.jupyter_cache``).
When the build finishes, :func:`publish` puts that one in ``_sources`` instead:

* as clean as the page: build-machine paths become ``<Python 环境>``/``<课程目录>``/``<临时目录>`` (as on the page),
  the outputs the page removes (``remove-output``) and the execution timestamps are dropped;
* two first cells (tagged ``course-download-note``, so a later run replaces them rather than adding more): a note,
  and a code cell that — where ``npulab`` is missing — installs the ``npulab`` wheel the site ships
  (``_static/wheels``, :mod:`npulab.site.wheel`) plus the packages this notebook imports, with the pins of
  ``requirements.txt``. The wheel's address is relative to the notebook's own: ``NOTEBOOK_URL`` is the site's
  address where the build knows it, and the site's script writes the address the notebook was actually downloaded
  from (``assets/js/course.js``).
"""

from __future__ import annotations

import ast
import functools
import json
import re
import sys
from pathlib import Path

from npulab.core.paths import REPO_ROOT
from npulab.site.language import EN, ZH

PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder that holds npulab/

NOTE_TAG = "course-download-note"
INSTALL_ID = "course-download-install"
NOTEBOOK_URL_LINE = re.compile(r'^NOTEBOOK_URL = ".*"', re.M)  # course.js rewrites this line on download
ALWAYS_THERE = {"npulab", "IPython", "ipykernel", "__future__"}  # a Jupyter kernel has these (npulab: the wheel)
# what every lesson needs whatever it imports: npulab's device choice and environment summary import torch when
# called (not on import, so the import scan cannot see it), its data files are YAML, and tensors meet NumPy
EVERY_LESSON = {"torch", "yaml", "numpy"}


def note_text(page: str, repository_url: str | None = None, lang: str = ZH) -> str:
    """The note put first in a downloaded notebook (``page`` is its path in the course repository)."""
    if lang == EN:
        return _note_text_en(page, repository_url)
    clone = (f"或者取得整个课程仓库（`git clone {repository_url}`），在仓库里运行 `make lab`，再打开 `{page}.ipynb`"
             if repository_url else
             f"或者取得整个课程仓库，在仓库里运行 `make lab`，再打开 `{page}.ipynb`")
    return (
        "**下载的是课程网站上执行过的版本（含输出）。** 要自己运行它，需要课程的 Python 包 `npulab` 和本课用到的"
        "软件包：在任意装有 Jupyter 的 Python 3.11 环境中打开本笔记本，先运行下面的第一个代码单元——没有 `npulab` "
        "时，它从课程网站安装本网站构建所用的 `npulab` 安装包（wheel）和本课导入的软件包，然后照常从头运行；"
        f"{clone}（笔记本里的相对路径以它在仓库中的位置为准）。\n\n"
        "没有昇腾 NPU 也能运行全部单元：需要 NPU 的单元会打印说明并跳过。"
    )


def _note_text_en(page: str, repository_url: str | None) -> str:
    clone = f"`git clone {repository_url}`" if repository_url else "a clone of the course repository"
    return (
        "**This is the version the course site executed (with its outputs).** To run it yourself you need the course's "
        "Python package `npulab` and the packages this lesson uses: open the notebook in any Python 3.11 environment "
        "with Jupyter and run the first code cell below — where `npulab` is missing it installs the `npulab` wheel this "
        "site was built with and the packages the lesson imports from the course site; then run the notebook from the "
        f"top as usual. Or take {clone}, run `make lab` in it and open `en/{page}.ipynb` (relative paths in the "
        "notebook assume its place in the repository).\n\n"
        "Every cell runs without an Ascend NPU: the cells that need one print a note and are skipped."
    )


# the install cell's own words; its code is the same in both editions
INSTALL_WORDS = {
    ZH: {
        "head": "# 只在下载的笔记本里：没有 npulab 时，从课程网站安装它和本课导入的软件包（地址由网站写入）",
        "wheel": "相对于 NOTEBOOK_URL",
        "torch": "从 PyTorch 的 CPU 索引单独先装：PyPI 上的 torch 是 CUDA 版",
        "present": "npulab 已安装，直接运行下面的单元。",
        "no_site": "不知道本笔记本来自哪个网站：请从课程网站的「下载」按钮重新下载，或在课程仓库中运行 make lab。",
        "no_index": ('f"连不上 PyTorch 的 CPU 索引 {CPU_INDEX}：PyPI 上 {platform.machine()} 的 torch 是 CUDA 版，"',
                     '"这里不改装它。换一个能访问该索引的网络（或它的镜像），再运行本单元。"'),
        "fallback": "PyTorch CPU 索引不可用：torch 改由可达的索引安装（PyPI 上的是 CUDA 版，几 GB）",
        "failed": "安装失败：见上面 pip 的输出",
        "done": "已安装 npulab：",
    },
    EN: {
        "head": "# Only in a downloaded notebook: without npulab, install it and this lesson's imports from the course site",
        "wheel": "relative to NOTEBOOK_URL",
        "torch": "installed first and alone from PyTorch's CPU index: PyPI's torch is a CUDA build",
        "present": "npulab is installed: run the cells below.",
        "no_site": "This notebook does not know which site it came from: download it again with the course site's "
                   "download button, or run make lab in the course repository.",
        "no_index": ('f"Cannot reach PyTorch\'s CPU index {CPU_INDEX}: PyPI\'s torch for {platform.machine()} is a CUDA build, "',
                     '"which this cell does not install. Use a network that reaches the index (or its mirror) and run this cell again."'),
        "fallback": "PyTorch's CPU index is unreachable: torch comes from the reachable index instead (PyPI's is a "
                    "CUDA build, several GB)",
        "failed": "Installation failed: see pip's output above",
        "done": "npulab installed:",
    },
}


def install_source(notebook_url: str, wheel: str, requires: list[str], lang: str = ZH) -> str:
    """The first code cell of a download: install the site's npulab wheel (and ``requires``) when npulab is missing.

    torch comes first and alone from the PyTorch CPU index (npulab.env.torch_install: PyPI's torch is a CUDA build on
    x86_64 and, since 2.11, on aarch64); where that index cannot be reached, x86_64 takes torch from the reachable
    indexes and says so, aarch64 stops with the reason (scripts/python_packages.sh follows the same rule)."""
    from npulab.env.torch_install import CPU_INDEX

    torches = [r for r in requires if re.fullmatch(r"torch\b(?![-_]).*", r)]
    torch = max(torches, key=len, default=None)  # the pinned one where both a bare and a pinned torch are asked for
    rest = [r for r in requires if r not in torches]
    w = INSTALL_WORDS[lang]
    return "\n".join([
        w["head"],
        f"NOTEBOOK_URL = {json.dumps(notebook_url)}",
        f"WHEEL = {json.dumps(wheel)}  # {w['wheel']}",
        f"TORCH = {json.dumps(torch)}  # {w['torch']}",
        f"CPU_INDEX = {json.dumps(CPU_INDEX)}",
        f"REQUIRES = {json.dumps(rest, ensure_ascii=False)}",
        "import importlib.util",
        *(["import os"] if lang == EN else []),
        "import platform",
        "import subprocess",
        "import sys",
        "from urllib.parse import urljoin",
        *(["", 'os.environ.setdefault("NPULAB_LANG", "en")  # npulab answers in English'] if lang == EN else []),
        "",
        "",
        "def pip(*args):",
        '    return subprocess.run([sys.executable, "-m", "pip", "install", "-q", *args]).returncode == 0',
        "",
        "",
        'if importlib.util.find_spec("npulab") is not None:',
        f'    print({json.dumps(w["present"], ensure_ascii=False)})',
        'elif not NOTEBOOK_URL.startswith(("http://", "https://")):',
        f'    print({json.dumps(w["no_site"], ensure_ascii=False)})',
        "else:",
        '    if TORCH and not pip(TORCH, "--index-url", CPU_INDEX, "--timeout", "10", "--retries", "1"):',
        '        if platform.machine() != "x86_64":',
        f'            raise SystemExit({w["no_index"][0]}',
        f'                             {w["no_index"][1]})',
        f'        print({json.dumps(w["fallback"], ensure_ascii=False)})',
        "        REQUIRES.insert(0, TORCH)",
        "    if not pip(urljoin(NOTEBOOK_URL, WHEEL), *REQUIRES):",
        f'        raise SystemExit({json.dumps(w["failed"], ensure_ascii=False)})',
        "    importlib.invalidate_caches()",
        f'    print({json.dumps(w["done"], ensure_ascii=False)}, urljoin(NOTEBOOK_URL, WHEEL))',
    ])


def with_note(nb: dict, page: str, repository_url: str | None = None, install: str | None = None,
              lang: str = ZH) -> dict:
    """``nb`` with the download note (and the install cell, when given) first, replacing earlier ones."""
    cells = [c for c in nb.get("cells", []) if NOTE_TAG not in c.get("metadata", {}).get("tags", [])]
    note = {"cell_type": "markdown", "id": NOTE_TAG, "metadata": {"tags": [NOTE_TAG]},
            "source": note_text(page, repository_url, lang)}
    first = [note]
    if install is not None:
        first.append({"cell_type": "code", "id": INSTALL_ID, "metadata": {"tags": [NOTE_TAG]}, "source": install,
                      "execution_count": None, "outputs": []})
    return {**nb, "cells": [*first, *cells]}


def clean(nb: dict) -> dict:
    """As clean as the page: no build-machine paths in outputs and metadata (sources are the repository's own text,
    left as written), no outputs the page removes, no execution timestamps."""
    from npulab.site.paths import path_replacements, scrub_json

    pairs = path_replacements()
    cells = []
    for cell in nb.get("cells", []):
        cell = dict(cell)
        meta = {k: v for k, v in cell.get("metadata", {}).items() if k != "execution"}
        cell["metadata"] = scrub_json(meta, pairs)
        if cell.get("cell_type") == "code":
            outputs = [] if "remove-output" in meta.get("tags", []) else cell.get("outputs", [])
            cell["outputs"] = scrub_json(outputs, pairs)
        cells.append(cell)
    return {**nb, "metadata": scrub_json(nb.get("metadata", {}), pairs), "cells": cells}


# ---- what a notebook imports, and the pins of requirements.txt ------------------------------------------------

def _imports(source: str) -> set[str]:
    """Top-level module names imported by Python ``source`` (lines starting with % or ! are IPython, skipped)."""
    code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)  # a submodule, or a name (harmless)
    return names


@functools.cache
def _module_level_imports(module: str) -> frozenset[str]:
    """Imports at module level of an npulab module (those run on ``import``; lazy ones in functions are not),
    read from its source file without importing it."""
    base = PACKAGE_ROOT.joinpath(*module.split("."))
    path = next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)
    if path is None:
        return frozenset()
    names = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:  # npulab imports absolutely
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return frozenset(names)


def imported_top_levels(sources: list[str]) -> set[str]:
    """Third-party top-level modules the code needs on import, following npulab's own module-level imports."""
    seen, todo, third = set(), set(), set()
    for source in sources:
        todo |= _imports(source)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        top = name.split(".")[0]
        if top == "npulab":
            parts = name.split(".")
            for i in range(1, len(parts) + 1):  # the package __init__s run too
                todo |= _module_level_imports(".".join(parts[:i])) - seen
        elif top not in sys.stdlib_module_names and top not in ALWAYS_THERE:
            third.add(top)
    return third


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_pins(path: Path = REPO_ROOT / "requirements.txt") -> dict[str, str]:
    """Distribution name (normalised) -> requirement line of requirements.txt (``numpy>=1.26.4,<2``)."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9_.\-]*)(\[[^\]]*\])?\s*([<>=!~][^#\s]*)?", line)
        if m and not line.lstrip().startswith("#"):
            pins[_normal(m.group(1))] = m.group(1) + (m.group(3) or "")
    return pins


@functools.lru_cache(maxsize=1)
def _distributions() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return packages_distributions()


def requirements_for(nb: dict, pins: dict[str, str] | None = None) -> list[str]:
    """pip requirements for what ``nb`` imports: the distributions of the build environment that provide those
    modules, with the pins of requirements.txt where it names them."""
    pins = requirement_pins() if pins is None else pins
    dists = _distributions()
    code = [c.get("source", "") if isinstance(c.get("source"), str) else "".join(c.get("source", []))
            for c in nb.get("cells", []) if c.get("cell_type") == "code"
            and "skip-execution" not in c.get("metadata", {}).get("tags", [])]
    wanted = set()
    for top in imported_top_levels(code) | EVERY_LESSON:
        for dist in dists.get(top, []):
            wanted.add(pins.get(_normal(dist), dist))
    return sorted(wanted, key=str.lower)


def with_cached_outputs(nb: dict, cache_dir: Path) -> dict:
    """``nb`` with the outputs the execution cache holds for it, when it has none of its own (MyST-NB's cache mode)."""
    if any(c.get("outputs") for c in nb.get("cells", []) if c.get("cell_type") == "code") or not cache_dir.is_dir():
        return nb
    import nbformat
    from jupyter_cache import get_cache

    try:
        _, merged = get_cache(str(cache_dir)).merge_match_into_notebook(nbformat.from_dict(nb))
    except KeyError:  # not in the cache (executed by the book itself, or not at all)
        return nb
    return merged


def publish(outdir: Path, repository_url: str | None = None, wheel: str | None = None, site_url: str = "",
            lang: str = ZH) -> int:
    """Replace each ``_sources/<page>.ipynb`` under ``outdir`` by the executed, cleaned notebook with the note and
    (when the site ships ``wheel``, a file name under ``_static/wheels``) the install cell; return how many."""
    executed = Path(outdir).parent / "jupyter_execute"
    sources = Path(outdir) / "_sources"
    pins = requirement_pins()
    count = 0
    for path in sorted(executed.rglob("*.ipynb")) if executed.is_dir() else []:
        page = path.relative_to(executed).with_suffix("").as_posix()
        target = sources / f"{page}.ipynb"
        if not target.is_file():  # only pages the site offers for download
            continue
        nb = with_cached_outputs(json.loads(path.read_text(encoding="utf-8")), Path(outdir).parent / ".jupyter_cache")
        nb = clean(nb)
        install = None
        if wheel:
            depth = len(Path("_sources", page).parts) - 1
            notebook_url = f"{site_url}_sources/{page}.ipynb" if site_url else ""
            install = install_source(notebook_url, "../" * depth + f"_static/wheels/{wheel}", requirements_for(nb, pins),
                                     lang)
        target.write_text(json.dumps(with_note(nb, page, repository_url, install, lang), ensure_ascii=False, indent=1)
                          + "\n",
                          encoding="utf-8")
        count += 1
    return count
