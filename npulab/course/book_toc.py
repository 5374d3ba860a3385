"""The book's table of contents (``_toc.yml``) as data: chapters, their lessons and titles. The home page's learning
path and the run-on-NPU page's lesson list are generated from it, so that no lesson is left out by hand."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from npulab.core.paths import REPO_ROOT, parse_yaml

TOC_FILE = REPO_ROOT / "_toc.yml"
SUFFIXES = (".ipynb", ".md")


@dataclass(frozen=True)
class Page:
    file: str    # path without suffix, as in _toc.yml
    path: str    # path with suffix, relative to the book root
    title: str


@dataclass(frozen=True)
class Chapter:
    page: Page
    sections: tuple[Page, ...]
    caption: str


def title(path: Path) -> str:
    """The first level-1 heading of a notebook or Markdown page (the file name when it has none)."""
    if path.suffix == ".ipynb":
        from npulab.core.notebook_cells import read

        try:
            lines = [ln for c in read(path).cells if c.cell_type == "markdown" for ln in c.source.splitlines()]
        except (OSError, ValueError):
            lines = []
    else:
        lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return next((ln[2:].strip() for ln in lines if ln.startswith("# ")), path.stem)


def page(file: str, root: Path = REPO_ROOT) -> Page:
    for suffix in SUFFIXES:
        if (root / f"{file}{suffix}").is_file():
            return Page(file, f"{file}{suffix}", title(root / f"{file}{suffix}"))
    raise FileNotFoundError(f"_toc.yml 列出的 {file} 不存在（.ipynb 或 .md）")


def chapters(toc_file: Path = TOC_FILE) -> list[Chapter]:
    """Every chapter of every part of the table of contents, in order, with its sections."""
    root = toc_file.parent
    toc = parse_yaml(toc_file.read_text(encoding="utf-8"))
    found = []
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            found.append(Chapter(page(chapter["file"], root),
                                 tuple(page(s["file"], root) for s in chapter.get("sections", [])),
                                 str(part.get("caption", ""))))
    return found


def lessons(toc_file: Path = TOC_FILE) -> list[Page]:
    """The lesson notebooks (``chapters/``), in the order of the table of contents."""
    return [s for c in chapters(toc_file) for s in c.sections
            if s.path.startswith("chapters/") and s.path.endswith(".ipynb")]


# the learning path in each edition: its table of contents, the part that holds the lessons, the table's header
LEARNING_PATH = {
    "zh": (TOC_FILE, "课程", "| 章 | 主题 | 各节 |"),
    "en": (REPO_ROOT / "en" / "_toc.yml", "Course", "| Chapter | Topic | Lessons |"),
}


def learning_path_markdown(toc_file: Path = TOC_FILE, part: str = "课程", header: str = LEARNING_PATH["zh"][2]) -> str:
    """The home page's learning path: one row per chapter of ``part``, naming (and linking) every lesson."""
    rows = []
    for chapter in (c for c in chapters(toc_file) if c.caption == part):
        number, _, name = chapter.page.title.partition(" ")
        links = "<br>".join(f"[{s.title}]({s.path})" for s in chapter.sections)
        rows.append(f"| {number} | [{name or chapter.page.title}]({chapter.page.path}) | {links} |")
    return header + "\n|---|---|---|\n" + "\n".join(rows)
