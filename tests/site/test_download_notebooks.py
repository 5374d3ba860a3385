"""npulab.site.download_notebooks: the site's .ipynb download is the executed notebook with an install note."""

import json

import pytest

from npulab.site import download_notebooks as dl


def _nb(outputs):
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "c1", "metadata": {}, "source": "print(1)", "execution_count": 1 if outputs else None,
         "outputs": outputs}]}


def test_publish_replaces_the_source_copy_by_the_executed_notebook_with_a_note(tmp_path):
    html = tmp_path / "html"
    executed = tmp_path / "jupyter_execute" / "chapters" / "01_environment" / "02_hello_npu.ipynb"
    executed.parent.mkdir(parents=True)
    executed.write_text(json.dumps(_nb([{"output_type": "stream", "name": "stdout", "text": "1\n"}])))
    source = html / "_sources" / "chapters" / "01_environment" / "02_hello_npu.ipynb"
    source.parent.mkdir(parents=True)
    source.write_text(json.dumps(_nb([])))
    (tmp_path / "jupyter_execute" / "not_on_site.ipynb").write_text(json.dumps(_nb([])))

    assert dl.publish(html, "https://github.com/org/course") == 1
    nb = json.loads(source.read_text(encoding="utf-8"))
    note, code = nb["cells"]
    assert code["outputs"][0]["text"] == "1\n"  # the executed one
    assert note["cell_type"] == "markdown" and "npulab" in note["source"] and "make lab" in note["source"]
    assert "git clone https://github.com/org/course" in note["source"]
    assert "chapters/01_environment/02_hello_npu.ipynb" in note["source"]
    assert not (html / "_sources" / "not_on_site.ipynb").exists()
    # a second run replaces the note instead of adding another
    executed.write_text(json.dumps(dl.with_note(json.loads(executed.read_text()), "x")))
    dl.publish(html)
    cells = json.loads(source.read_text(encoding="utf-8"))["cells"]
    assert [c["cell_type"] for c in cells] == ["markdown", "code"] and "git clone" not in cells[0]["source"]


def test_no_executed_folder_is_not_an_error(tmp_path):
    assert dl.publish(tmp_path / "html") == 0


def test_outputs_come_from_the_execution_cache_when_myst_nb_wrote_none(tmp_path):
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache_dir = tmp_path / ".jupyter_cache"
    executed = nbformat.from_dict(_nb([{"output_type": "stream", "name": "stdout", "text": "1\n"}]))
    get_cache(str(cache_dir)).cache_notebook_bundle(
        CacheBundleIn(executed, str(tmp_path / "nb.ipynb")), check_validity=False)
    merged = dl.with_cached_outputs(_nb([]), cache_dir)
    assert merged["cells"][0]["outputs"][0]["text"] == "1\n"
    unknown = {**_nb([]), "cells": [{**_nb([])["cells"][0], "source": "print(2)"}]}
    assert dl.with_cached_outputs(unknown, cache_dir) == unknown  # not cached: left as it is
    assert dl.with_cached_outputs(_nb([]), tmp_path / "none") == _nb([])


def _run_install_cell(monkeypatch, machine: str, cpu_index_up: bool) -> tuple[list[list[str]], BaseException | None]:
    """Execute the download's install cell with pip stood in for (it records each command; the CPU index answers or
    not) and no npulab importable; (pip commands, what the cell raised)."""
    import importlib.util
    import platform
    import subprocess
    import types

    calls: list[list[str]] = []

    def fake_run(args, *rest, **kw):
        calls.append(list(args[4:]))  # after python -m pip install
        ok = cpu_index_up or "--index-url" not in args
        return types.SimpleNamespace(returncode=0 if ok else 1)

    monkeypatch.setattr(subprocess, "run", fake_run)
    monkeypatch.setattr(platform, "machine", lambda: machine)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    source = dl.install_source("https://course.example/ch/x.html", "../_static/wheels/npulab.whl",
                               ["torch==2.13.0", "numpy>=1.26.4,<2"])
    try:
        exec(compile(source, "install-cell", "exec"), {})
    except SystemExit as stop:
        return calls, stop
    return calls, None


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_install_cell_takes_torch_alone_from_the_cpu_index(monkeypatch, machine):
    from npulab.env.torch_install import CPU_INDEX

    calls, stopped = _run_install_cell(monkeypatch, machine, cpu_index_up=True)
    assert stopped is None
    assert calls[0][:2] == ["-q", "torch==2.13.0"] and calls[0][2:4] == ["--index-url", CPU_INDEX]
    assert calls[1][1].endswith("npulab.whl") and "torch==2.13.0" not in calls[1] and "--index-url" not in calls[1]


def test_install_cell_without_the_cpu_index_stops_on_aarch64_and_falls_back_on_x86_64(monkeypatch):
    calls, stopped = _run_install_cell(monkeypatch, "aarch64", cpu_index_up=False)
    assert stopped is not None and "CUDA" in str(stopped) and len(calls) == 1  # nothing else installed
    calls, stopped = _run_install_cell(monkeypatch, "x86_64", cpu_index_up=False)
    assert stopped is None and calls[1][2] == "torch==2.13.0"  # then from the reachable indexes, said aloud
