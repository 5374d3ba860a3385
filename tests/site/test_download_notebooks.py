"""npulab.site.download_notebooks: the site's .ipynb download is the executed notebook with an install note."""

import json

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
