"""npulab.course.download_notebooks: the site's .ipynb download is the executed notebook with an install note."""

import json

from npulab.course import download_notebooks as dl


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
