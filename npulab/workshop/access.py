"""What the participants' accounts must be able to read: the course's venv, the Python it was made from, npulab.

A venv's ``python`` is a link to the interpreter it was created from; pyenv's or a Python built under ``/root``
sits behind root's home (mode 0700), which no other account may enter, so every participant's server fails to
start. ``blocked`` finds the directories in the way; ``grant_access`` gives the workshop group only what it needs
there (enter a directory on the way, read the targets themselves) through an ACL entry, and ``revoke_access``
takes those entries back when the accounts are removed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from npulab.core.i18n import t
from npulab.workshop import posix_acl
from npulab.workshop.posix_acl import R, X


def python_paths() -> list[Path]:
    """The interpreter (resolved), its installation, the venv and the checkout npulab is imported from."""
    import npulab

    return [Path(os.path.realpath(sys.executable)), Path(sys.base_prefix), Path(sys.prefix),
            Path(npulab.__file__).resolve().parent]


def _needs(paths: Iterable[Path | str]) -> dict[Path, int]:
    need: dict[Path, int] = {}
    for target in paths:
        target = Path(os.path.realpath(target))
        for parent in reversed(target.parents):
            need[parent] = need.get(parent, 0) | X
        need[target] = need.get(target, 0) | (R | X if target.is_dir() or os.access(target, os.X_OK) else R)
    return need


def blocked(paths: Iterable[Path | str], gid: int) -> list[tuple[Path, int]]:
    """(path, permissions missing) for each directory or file a member of group ``gid`` cannot use."""
    return [(p, want) for p, want in _needs(paths).items()
            if p.exists() and not posix_acl.allows(p, want, uid=None, gids={gid})]


def grant_access(paths: Iterable[Path | str], gid: int) -> list[Path]:
    """Give group ``gid`` what ``blocked`` found missing; returns the paths changed."""
    changed = []
    for path, want in blocked(paths, gid):
        posix_acl.grant(path, (posix_acl.named_entry(path, gid=gid) or 0) | want, gid=gid)
        changed.append(path)
    return changed


def revoke_access(paths: Iterable[Path | str], gid: int) -> list[Path]:
    """Remove group ``gid``'s ACL entries from every path ``grant_access`` may have changed."""
    return [p for p in _needs(paths) if p.exists() and posix_acl.revoke(p, gid=gid)]


def describe(missing: list[tuple[Path, int]]) -> str:
    """One line per blocked path, in the reader's language."""
    words = {X: t("workshop.tools.access.enter"), R: t("workshop.tools.access.read"), R | X: t("workshop.tools.access.read_enter")}
    return "\n".join(t("workshop.tools.access.blocked", path=p, what=words.get(w, oct(w))) for p, w in missing)
