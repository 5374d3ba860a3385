"""What a participant must not read in the hub's checkout, and closing it before the hub starts.

Participants' kernels import ``npulab`` from the hub's checkout, so the checkout stays readable; what is in it but
is the instructor's alone must be closed: the reference solutions, the instructor guide, the
instructor's built site (``make book`` renders the solutions) and, easy to forget, the git history, which holds
every solution ever committed (``git -c safe.directory=… show HEAD:notebooks/solutions/…`` reads it from a
world-readable ``.git``). ``seal`` removes group and other permissions from each of them; ``unsealed`` lists the
ones a workshop account could still read or enter, and the hub refuses to start while there are any.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from npulab.workshop import posix_acl
from npulab.workshop.posix_acl import R, X

# relative to the checkout: what the instructor has and the participants do not (their copies lack it too:
# course_copy.WITHHELD)
INSTRUCTOR_ONLY = ("notebooks/solutions", "notebooks/instructor_guide.ipynb", "_build")


def git_dirs(root: Path | str) -> list[Path]:
    """The checkout's git folders: its own and the common one (they differ in a ``git worktree``)."""
    root = Path(root)
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--absolute-git-dir", "--git-common-dir"],
                             capture_output=True, text=True, timeout=30, check=True).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return [root / ".git"] if (root / ".git").exists() else []
    found = [Path(line) if os.path.isabs(line) else root / line for line in out if line.strip()]
    if (root / ".git").is_file():  # a worktree's pointer file names the folder above
        found.append(root / ".git")
    return list(dict.fromkeys(Path(os.path.realpath(p)) for p in found))


def private_paths(root: Path | str) -> list[Path]:
    """Everything in the checkout that only the instructor may read (the ones that exist)."""
    root = Path(root)
    return [p for p in (*(root / rel for rel in INSTRUCTOR_ONLY), *git_dirs(root)) if p.exists()]


def _open_to(path: Path, gids: set[int]) -> bool:
    readable = posix_acl.allows(path, R, uid=None, gids=gids)
    return readable or (path.is_dir() and posix_acl.allows(path, X, uid=None, gids=gids))


def unsealed(root: Path | str, gid: int) -> list[Path]:
    """The private paths a member of group ``gid`` (a workshop account, not their owner) can read or enter."""
    return [p for p in private_paths(root) if _open_to(p, {gid})]


def _close(path: Path) -> bool:
    mode = stat.S_IMODE(path.lstat().st_mode)
    if mode & 0o077 == 0:
        return False
    os.chmod(path, mode & 0o700)
    return True


def seal(root: Path | str) -> list[Path]:
    """Remove group and other permissions from every private path and everything below it; returns the tops changed."""
    changed = []
    for top in private_paths(root):
        touched = _close(top) if not top.is_symlink() else False
        if top.is_dir() and not top.is_symlink():
            for folder, dirs, files in os.walk(top):
                for name in dirs + files:
                    child = Path(folder) / name
                    if not child.is_symlink():
                        touched |= _close(child)
        if touched:
            changed.append(top)
    return changed
