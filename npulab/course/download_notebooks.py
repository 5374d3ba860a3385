"""The site's ".ipynb" download is the executed notebook, and its first cell says how to run it.

The theme's download button links ``_sources/<page>.ipynb``, which Sphinx copies from the *source* notebook — no
outputs, although ``_config.yml`` executes every lesson. MyST-NB writes the executed notebook (outputs from the
execution cache that ``make test`` fills) to ``_build/jupyter_execute/<page>.ipynb`` — but in ``cache`` mode it writes
the notebook it parsed, without the cached outputs, so those are merged in from the cache (``_build/.jupyter_cache``). When the build finishes,
:func:`publish` puts that one in ``_sources`` instead, with a first markdown cell on how to install ``npulab`` and
run it (tagged ``course-download-note``, so a later run replaces it rather than adding a second).
"""

from __future__ import annotations

import json
from pathlib import Path

NOTE_TAG = "course-download-note"


def note_text(page: str, repository_url: str | None = None) -> str:
    """The Chinese note put first in a downloaded notebook (``page`` is its path in the course repository)."""
    where = f"课程仓库（<{repository_url}>）" if repository_url else "课程仓库"
    clone = f"`git clone {repository_url}`，" if repository_url else ""
    return (
        "**下载的是课程网站上执行过的版本（含输出）。** 要自己运行它，需要课程的 Python 包 `npulab` 和它的依赖：\n\n"
        f"1. 取得{where}：{clone}进入仓库目录；\n"
        "2. 运行 `make lab`：它用 Python 3.11 建立 `.venv`，安装 `requirements.txt` 里的依赖与 `npulab`，再打开 "
        "JupyterLab（不用 make 的安装步骤见仓库的 README）；\n"
        f"3. 在仓库里打开 `{page}.ipynb` 运行——笔记本里的相对路径以它在仓库中的位置为准。\n\n"
        "没有昇腾 NPU 也能运行全部单元：需要 NPU 的单元会打印说明并跳过。"
    )


def with_note(nb: dict, page: str, repository_url: str | None = None) -> dict:
    """``nb`` with the download note as its first cell (replacing an earlier one)."""
    cells = [c for c in nb.get("cells", []) if NOTE_TAG not in c.get("metadata", {}).get("tags", [])]
    note = {"cell_type": "markdown", "id": NOTE_TAG, "metadata": {"tags": [NOTE_TAG]},
            "source": note_text(page, repository_url)}
    return {**nb, "cells": [note, *cells]}


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


def publish(outdir: Path, repository_url: str | None = None) -> int:
    """Replace each ``_sources/<page>.ipynb`` under ``outdir`` by the executed notebook with the note; return how many."""
    executed = Path(outdir).parent / "jupyter_execute"
    sources = Path(outdir) / "_sources"
    count = 0
    for path in sorted(executed.rglob("*.ipynb")) if executed.is_dir() else []:
        page = path.relative_to(executed).with_suffix("").as_posix()
        target = sources / f"{page}.ipynb"
        if not target.is_file():  # only pages the site offers for download
            continue
        nb = with_cached_outputs(json.loads(path.read_text(encoding="utf-8")), Path(outdir).parent / ".jupyter_cache")
        target.write_text(json.dumps(with_note(nb, page, repository_url), ensure_ascii=False, indent=1) + "\n",
                          encoding="utf-8")
        count += 1
    return count
