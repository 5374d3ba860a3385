"""The learner's way in through JupyterLab: `make lab` opens the first lesson; notebooks open unmodified."""

import json
import re

import yaml

from npulab.core.notebook_cells import iter_notebooks
from npulab.core.paths import REPO_ROOT


def _first_lesson() -> str:
    toc = yaml.safe_load((REPO_ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return toc["parts"][0]["chapters"][0]["sections"][0]["file"]


def test_make_lab_opens_the_first_lesson_of_the_toc():
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    start = re.search(r"^LAB_START := (\S+)$", makefile, re.M).group(1)
    assert start == _first_lesson() + ".ipynb" and (REPO_ROOT / start).is_file()
    recipe = makefile.split("\nlab: venv\n", 1)[1].split("\n\n", 1)[0]
    # LabApp (not ServerApp) owns the URL JupyterLab opens and "/" redirects to
    assert "--LabApp.default_url=/lab/tree/$(LAB_START)" in recipe and "--ServerApp.root_dir=$(CURDIR)" in recipe


def test_notebooks_store_the_language_info_the_kernel_writes():
    """JupyterLab writes the kernel's language_info into the notebook on opening: stored differently, it opens modified."""
    from ipykernel.ipkernel import IPythonKernel

    expected = dict(IPythonKernel.language_info)
    course_python = expected.pop("version").rsplit(".", 1)[0]  # patch releases differ between machines
    wrong = []
    for path in iter_notebooks():
        meta = json.loads(path.read_text(encoding="utf-8"))["metadata"]
        info = dict(meta.get("language_info", {}))
        version = str(info.pop("version", ""))
        if info != expected or not version.startswith(course_python + ".") or list(meta["language_info"]) != sorted(
                meta["language_info"]):  # sorted keys: what nbformat writes when JupyterLab saves
            wrong.append(path.relative_to(REPO_ROOT).as_posix())
        if meta.get("kernelspec") != {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}:
            wrong.append(f"{path.relative_to(REPO_ROOT).as_posix()}（kernelspec）")
    assert wrong == []
