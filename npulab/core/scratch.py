"""Scratch folders for lessons: one per lesson and user, emptied on every run, shown on pages without machine paths.

``tempfile.mkdtemp`` made a new folder on every run and nothing removed it: chapter 05 lesson 3 (a 100 MB ONNX
export and its FP16 copy) left about 150 MB in /tmp per run. ``scratch_dir("ch05-atc")`` is always
``<cache>/npulab/scratch/ch05-atc`` in the user's own cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``),
emptied when a run starts, so a lesson leaves one copy however often it runs. Not in the shared ``/tmp``: there a
fixed name such as ``/tmp/npulab-<user>`` can be created first by another account on a shared workshop server,
which then owns (and can read or break) that participant's lesson files. ``NPULAB_SCRATCH`` names another folder.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from npulab.core.i18n import book_of, t


def _base() -> Path:
    if os.environ.get("NPULAB_SCRATCH"):
        return Path(os.environ["NPULAB_SCRATCH"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "npulab" / "scratch"


def root() -> Path:
    """The user's folder of lesson scratch folders: created private, refused when another account owns it."""
    folder = _base()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid():
        raise PermissionError(t("scratch.not_own", folder=folder, uid=info.st_uid))
    if info.st_mode & 0o077:
        folder.chmod(0o700)
    return folder


def scratch_dir(name: str) -> Path:
    """The empty scratch folder ``name`` of this user (what was left there by an earlier run is removed first)."""
    if not re.fullmatch(r"[\w.-]+", name) or name in (".", ".."):
        raise ValueError(t("scratch.bad_name", name=repr(name)))

    # a lesson and its English twin (en/…) may run at the same time (make test): each book has its own folder
    folder = root() / (f"{name}-en" if book_of(Path.cwd()) == "en" else name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    return folder


def shown(path: Path | str) -> str:
    """The path as a page shows it: the system temp folder and the user's scratch root written as the site's
    placeholder in the reader's language (``<临时目录>``, ``<temporary folder>``: ``site.path_tmp``, as the site's
    own path scrubbing writes it)."""
    text = str(path)
    for prefix in (str(root()), tempfile.gettempdir()):
        if text == prefix or text.startswith(prefix + os.sep):
            return t("site.path_tmp") + text[len(prefix):]
    return text
