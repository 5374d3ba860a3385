"""The built site's .ipynb downloads: the executed lesson, first cell on installing npulab (issue 22)."""

import json

import pytest
from sitekit import BUILD

from npulab.site.download_notebooks import NOTE_TAG


def test_every_lesson_download_is_executed_and_says_how_to_run_it():
    if not (BUILD / "index.html").exists():
        pytest.skip("没有生成网站：先运行 make book")
    lessons = sorted((BUILD / "_sources" / "chapters").rglob("*.ipynb"))
    assert len(lessons) >= 19
    for path in lessons:
        nb = json.loads(path.read_text(encoding="utf-8"))
        first = nb["cells"][0]
        assert NOTE_TAG in first["metadata"].get("tags", []) and "npulab" in "".join(first["source"]), path.name
        code = [c for c in nb["cells"] if c["cell_type"] == "code"]
        assert any(c.get("outputs") for c in code), f"{path.name}：下载的笔记本没有输出"
