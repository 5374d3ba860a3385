"""``make book-public`` after ``make book``: its own emptied folder, and the checker it runs fails on any solution.

The recipe is run for real (GNU make on the repository's Makefile) with a stand-in ``jupyter-book`` that writes a
tiny site the way Jupyter Book 1.x lays it out (``--path-output DIR`` → ``DIR/_build/html``); the checker is the
one the recipe calls, ``python -m npulab workshop check-public``.
"""

import os
import shutil
import subprocess
import sys

import pytest

from npulab.__main__ import main
from npulab.core.paths import REPO_ROOT

FAKE_BOOK = """#!/bin/sh
# stand-in for `jupyter-book build . --toc TOC --path-output OUT ...`: one page per file in the TOC
out=""; toc=""
while [ $# -gt 0 ]; do case "$1" in --path-output) out="$2"; shift;; --toc) toc="$2"; shift;; esac; shift; done
html="$out/_build/html"; mkdir -p "$html/_sources"
echo '<a href="notebooks/01_environment_lab.html">lab</a>' > "$html/index.html"
for f in $(grep -o 'file: [^ ]*' "$toc" | cut -d' ' -f2); do
  mkdir -p "$html/$(dirname $f)" "$html/_sources/$(dirname $f)"; echo page > "$html/$f.html"; echo src > "$html/_sources/$f.ipynb"
done
if [ -n "$FAKE_LEAK" ]; then mkdir -p "$html/notebooks/solutions"; echo x > "$html/notebooks/solutions/01_environment_lab_solution.html"; fi
"""


@pytest.fixture
def project(tmp_path):
    if not shutil.which("make"):
        pytest.skip("GNU make is not installed")
    shutil.copy(REPO_ROOT / "Makefile", tmp_path / "Makefile")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "jupyter-book").write_text(FAKE_BOOK)
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    # what `make book` left: the instructor's site with every solution, and a stale public build next to it
    for stale in ("_build/html/notebooks/solutions/01_environment_lab_solution.html",
                  "_build/public/_build/html/notebooks/solutions/02_architecture_lab_solution.html"):
        (tmp_path / stale).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / stale).write_text("answer")
    (tmp_path / "_build" / ".jupyter_cache").mkdir()
    return tmp_path


def _make(project, **env):
    return subprocess.run(["make", "-o", "venv", "-o", "site-runtime", "book-public", f"BIN={project / 'bin'}"], cwd=project,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT), **env},
                          timeout=120)


def test_book_public_after_book_ships_no_solution(project):
    done = _make(project)
    assert done.returncode == 0, done.stdout + done.stderr
    site = project / "_build" / "public" / "_build" / "html"
    assert (site / "notebooks" / "01_environment_lab.html").is_file()
    assert (site / "_sources" / "notebooks" / "01_environment_lab.ipynb").is_file()
    assert not [p for p in site.rglob("*") if "solution" in p.name], "the stale public build was emptied"
    assert (project / "_build" / "public" / "_build" / ".jupyter_cache").resolve() == project / "_build" / ".jupyter_cache"
    assert "不含参考答案" in done.stdout
    assert (project / "_build/html/notebooks/solutions/01_environment_lab_solution.html").is_file()  # the instructor's stays


def test_book_public_fails_when_a_solution_is_in_the_site(project):
    done = _make(project, FAKE_LEAK="1")
    assert done.returncode != 0
    assert "notebooks/solutions/01_environment_lab_solution.html" in done.stdout and "不要发布" in done.stdout


def test_checker_finds_pages_sources_and_links(tmp_path, capsys):
    site = tmp_path / "html"
    (site / "_sources" / "notebooks" / "solutions").mkdir(parents=True)
    (site / "index.html").write_text('<a href="notebooks/03_pytorch_lab.html">实验</a>')
    assert main(["workshop", "check-public", str(site)]) == 0
    (site / "_sources" / "notebooks" / "solutions" / "03_pytorch_lab_solution.ipynb").write_text("{}")
    (site / "page.html").write_text('<a href="notebooks/solutions/03_pytorch_lab_solution.html">答案</a>')
    assert main(["workshop", "check-public", str(site)]) == 1
    out = capsys.readouterr().out
    assert "_sources/notebooks/solutions/03_pytorch_lab_solution.ipynb" in out and "page.html（链接到参考答案）" in out
    assert main(["workshop", "check-public", str(tmp_path / "none")]) == 2
