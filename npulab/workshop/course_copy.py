"""The course, delivered to each participant without the solutions."""

from __future__ import annotations

import shutil
from pathlib import Path

COURSE_PARTS = ("intro.md", "chapters", "notebooks")  # what a participant gets (npulab comes from the hub's venv)
# never copied to a participant: the solutions and the instructor guide (the quizzes are self-tests with their
# answers on the page by design, notebooks/quizzes.ipynb, so they are copied)
WITHHELD = ("solutions", "instructor_guide.ipynb")


def copy_course(source: Path | str, home: Path | str, folder: str = "course") -> Path | None:
    """Copy the course into ``home/folder`` once (a participant's later edits are kept); solutions stay behind.

    Returns the new folder, or None when it already existed.
    """
    src, dest = Path(source), Path(home) / folder
    if dest.exists():
        return None
    ignore = shutil.ignore_patterns(*WITHHELD, "*.pyc", "__pycache__", ".ipynb_checkpoints", "_build", "build",
                                    "rank_0", "kernel_meta")
    dest.mkdir(parents=True)
    for part in COURSE_PARTS:
        if (src / part).is_dir():
            shutil.copytree(src / part, dest / part, ignore=ignore)
        elif (src / part).is_file():
            shutil.copy2(src / part, dest / part)
    return dest


LAB_SETTINGS = Path(".jupyter") / "lab" / "user-settings"  # Chinese interface, no news pop-up (also `make lab`)


def copy_lab_settings(source: Path | str, home: Path | str) -> list[Path]:
    """Give a new home the course's JupyterLab settings (only files it does not have: a participant's own win)."""
    src, dest = Path(source) / LAB_SETTINGS, Path(home) / LAB_SETTINGS
    written = []
    for f in sorted(src.rglob("*.jupyterlab-settings")):
        target = dest / f.relative_to(src)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
            written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    """``python course_copy.py SOURCE HOME``: the course and the JupyterLab settings into a new home, solutions withheld.

    Runs as a plain script too (standard library only): the image build strips the solutions with it before the course
    enters the image (workshop/Dockerfile), and each pod's start copies that course into the participant's volume
    (the ``postStart`` hook of workshop/k8s/values.yaml).
    """
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("用法：course_copy.py <课程目录> <主目录>（把课程复制进 <主目录>/course，不含参考答案；已有时不动）",
              file=sys.stderr)
        return 2
    source, home = Path(args[0]), Path(args[1])
    if not (source / "chapters").is_dir():
        print(f"{source} 不是课程目录（没有 chapters/）", file=sys.stderr)
        return 2
    copied = copy_course(source, home)
    settings = copy_lab_settings(source, home)
    print(f"课程{'已复制到 ' + str(copied) if copied else '已在 ' + str(home / 'course') + '，未改动'}；"
          f"JupyterLab 设置新写 {len(settings)} 个文件")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
