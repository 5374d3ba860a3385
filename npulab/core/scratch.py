"""Scratch folders for lessons: one per lesson and user, emptied on every run, shown on pages without machine paths.

``tempfile.mkdtemp`` made a new folder on every run and nothing removed it: chapter 05 lesson 3 (a 100 MB ONNX
export and its FP16 copy) left about 150 MB in /tmp per run. ``scratch_dir("ch05-atc")`` is always
``<system temp>/npulab-<user>/ch05-atc``, emptied when a run starts, so a lesson leaves one copy however often it
runs; the user in the name keeps participants on a shared workshop server apart (mode 0700).
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import tempfile
from pathlib import Path


def _user() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):  # a container user without a passwd entry
        name = str(os.getuid())
    return re.sub(r"[^\w.-]", "_", name)


def root() -> Path:
    """The user's folder of lesson scratch folders (created private)."""
    folder = Path(tempfile.gettempdir()) / f"npulab-{_user()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def scratch_dir(name: str) -> Path:
    """The empty scratch folder ``name`` of this user (what was left there by an earlier run is removed first)."""
    if not re.fullmatch(r"[\w.-]+", name) or name in (".", ".."):
        raise ValueError(f"临时目录名只能含字母、数字、点、下划线与连字符，收到 {name!r}")
    folder = root() / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    return folder


def shown(path: Path | str) -> str:
    """The path as a page shows it: the system temp folder and the user's scratch root written as <临时目录>."""
    text = str(path)
    for prefix in (str(root()), tempfile.gettempdir()):
        if text == prefix or text.startswith(prefix + os.sep):
            return "<临时目录>" + text[len(prefix):]
    return text
