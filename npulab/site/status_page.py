"""The course's status page: what the last build measured and what has been recorded on real Ascend hardware.

Generated at build time (the ``course-status`` directive of :mod:`npulab.site.sphinx_extension`): per lesson and lab,
the CPU execution time of the last build (measured by MyST-NB's executor, or by the run that filled its cache),
the number of ``npu`` cells, how many of them carry a recording and on what hardware, the versions of the key
packages the build used, and the retrieval dates of the compatibility tables.

Example::

    rows = [lesson_status(p, runtime_s=12.3) for p in iter_notebooks()]
    print(format_markdown(rows, package_versions(), compat_snapshot()))
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from npulab.core.notebook_cells import is_npu_cell, read
from npulab.core.paths import DATA_DIR, REPO_ROOT
from npulab.course.record import RECORD_KEY

KEY_PACKAGES = ("torch", "mindspore", "numpy", "jupyter-book", "sphinx", "myst-nb", "nbval")
STAMP_FIELDS = ("device", "driver", "cann", "torch_npu", "date")


@dataclass(frozen=True)
class LessonStatus:
    """One notebook's line on the status page."""

    path: str  # relative to the repository root, with forward slashes
    title: str
    runtime_s: float | None  # CPU execution time in the build; None when the build did not execute it
    npu_cells: int
    recorded_cells: int
    stamp: dict[str, str] | None  # the npu_recording stamp of the notebook metadata, if any

    @property
    def recorded_on(self) -> str:
        """Where the recording was made, in words (empty when nothing is recorded)."""
        if not self.stamp or not self.recorded_cells:
            return ""
        parts = [f"{k} {self.stamp[k]}" for k in STAMP_FIELDS if self.stamp.get(k) and k != "device"]
        return f"{self.stamp.get('device', '?')}（{'，'.join(parts)}）"


def notebook_title(nb) -> str:
    """The first H1 of a notebook (its page title)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def lesson_status(path: Path | str, runtime_s: float | None = None) -> LessonStatus:
    """Count the NPU cells of one notebook and read its recording stamp."""
    path = Path(path)
    nb = read(path)
    npu = [c for c in nb.cells if is_npu_cell(c)]
    recorded = [c for c in npu if c.get("outputs") and c.metadata.get(RECORD_KEY)]
    stamp = nb.metadata.get("course", {}).get(RECORD_KEY)
    try:
        shown = path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        shown = path.as_posix()
    return LessonStatus(shown, notebook_title(nb), runtime_s, len(npu), len(recorded),
                        dict(stamp) if isinstance(stamp, dict) else None)


def package_versions(names: tuple[str, ...] = KEY_PACKAGES) -> dict[str, str]:
    """Installed versions of the packages that shape the build ("未安装" where absent)."""
    from importlib import metadata

    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "未安装"
    return versions


def compat_snapshot(path: Path = DATA_DIR / "compatibility.yaml") -> dict[str, str]:
    """Table title -> retrieval date, from the compatibility data file."""
    from npulab.core.paths import load_yaml

    tables = load_yaml(path).get("tables", {})
    return {str(t.get("title", key)): str(t.get("retrieved", "未注明")) for key, t in tables.items()}


def _seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


Table = tuple[str, list[str], list[list[str]]]  # caption, header, rows of cell texts


# the tables' words in the two editions of the site (npulab.site.language)
WORDS = {
    "zh": {"path": "{title}（{path}）", "not_recorded": "尚未录制", "total": "合计（推导：各行之和）",
           "absent": "未安装", "undated": "未注明",
           "lessons": ("课程与实验笔记本", ["笔记本", "CPU 执行时间 / s（实测）", "npu 单元", "已录制", "录制环境"]),
           "packages": ("构建所用的关键软件包", ["软件包", "版本"]),
           "snapshot": ("兼容性数据表快照", ["数据表", "抓取日期"])},
    "en": {"path": "{title} ({path})", "not_recorded": "not recorded yet", "total": "Total (derived: sum of the rows)",
           "absent": "not installed", "undated": "not stated",
           "lessons": ("Lesson and lab notebooks", ["Notebook", "CPU run time / s (measured)", "npu cells", "Recorded",
                                                  "Recorded on"]),
           "packages": ("Key packages of the build", ["Package", "Version"]),
           "snapshot": ("Snapshots of the compatibility tables", ["Table", "Retrieved"])},
}


def tables(rows: list[LessonStatus], versions: dict[str, str], snapshot: dict[str, str],
           lang: str = "zh") -> list[Table]:
    """The status page's three tables (cell texts; every number labelled by its provenance), in ``lang``."""
    w = WORDS[lang]
    lessons = [[w["path"].format(title=r.title or r.path, path=r.path), _seconds(r.runtime_s), str(r.npu_cells),
                str(r.recorded_cells), r.recorded_on or (w["not_recorded"] if r.npu_cells else "—")] for r in rows]
    total = sum(r.runtime_s for r in rows if r.runtime_s is not None)
    lessons.append([w["total"], f"{total:.1f}", str(sum(r.npu_cells for r in rows)),
                    str(sum(r.recorded_cells for r in rows)), ""])
    absent = {WORDS["zh"]["absent"]: w["absent"], WORDS["zh"]["undated"]: w["undated"]}
    return [
        (*w["lessons"], lessons),
        (*w["packages"], [[k, absent.get(v, v)] for k, v in versions.items()]),
        (*w["snapshot"], [[k, absent.get(v, v)] for k, v in snapshot.items()]),
    ]


def format_markdown(rows: list[LessonStatus], versions: dict[str, str], snapshot: dict[str, str]) -> str:
    """The same tables as Markdown (for a terminal or a README)."""
    out = []
    for caption, header, body in tables(rows, versions, snapshot):
        out += [f"**{caption}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(cells) + " |" for cells in body]
        out.append("")
    return "\n".join(out)
