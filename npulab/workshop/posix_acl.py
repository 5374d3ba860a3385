"""POSIX access control lists (ACLs) on files and device nodes, read and written through their extended attribute.

Linux keeps a file's access ACL in the ``system.posix_acl_access`` attribute: a little-endian version word (2)
followed by (tag u16, permissions u16, id u32) entries (``include/uapi/linux/posix_acl_xattr.h`` in the Linux
sources). Writing it directly needs no ``setfacl`` (the ``acl`` package), which minimal servers often lack.
Adding a named entry recomputes the mask as ``setfacl -m`` does; removing the last named entry leaves only the
three base entries, which the kernel folds back into the file's mode bits.
"""

from __future__ import annotations

import errno
import os
import struct
from pathlib import Path

XATTR = "system.posix_acl_access"
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
UNDEFINED_ID = 0xFFFFFFFF
R, W, X = 4, 2, 1
_VERSION = 2
_ENTRY = struct.Struct("<HHI")

Entry = tuple[int, int, int]  # (tag, permissions, id)


class AclUnsupported(OSError):
    """The file system holding the path does not support POSIX ACLs."""


def _from_mode(mode: int) -> list[Entry]:
    return [(USER_OBJ, (mode >> 6) & 7, UNDEFINED_ID), (GROUP_OBJ, (mode >> 3) & 7, UNDEFINED_ID),
            (OTHER, mode & 7, UNDEFINED_ID)]


def read_acl(path: Path | str) -> list[Entry]:
    """The file's ACL entries; a file without an ACL gives the three entries of its mode bits."""
    try:
        raw = os.getxattr(path, XATTR)
    except OSError as err:
        if err.errno in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP):
            return _from_mode(os.stat(path).st_mode)
        raise
    version = struct.unpack_from("<I", raw)[0]
    if version != _VERSION:
        raise ValueError(f"{path}：未知的 ACL 版本 {version}")
    return [_ENTRY.unpack_from(raw, 4 + i * _ENTRY.size) for i in range((len(raw) - 4) // _ENTRY.size)]


def write_acl(path: Path | str, entries: list[Entry]) -> None:
    """Replace the file's ACL; the mask is recomputed (union of group-class entries) when named entries exist."""
    base = [e for e in entries if e[0] in (USER_OBJ, GROUP_OBJ, OTHER)]
    named = [e for e in entries if e[0] in (USER, GROUP)]
    out = base + named
    if named:
        mask = 0
        for tag, perms, _ in out:
            if tag in (GROUP_OBJ, USER, GROUP):
                mask |= perms
        out.append((MASK, mask, UNDEFINED_ID))
    out.sort(key=lambda e: (e[0], e[2]))
    raw = struct.pack("<I", _VERSION) + b"".join(_ENTRY.pack(*e) for e in out)
    try:
        os.setxattr(path, XATTR, raw)
    except OSError as err:
        if err.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            raise AclUnsupported(err.errno, f"{path} 所在的文件系统不支持 POSIX ACL") from None
        raise


def _key(uid: int | None, gid: int | None) -> tuple[int, int]:
    if (uid is None) == (gid is None):
        raise ValueError("给出 uid 或 gid 之一")
    return (USER, uid) if uid is not None else (GROUP, gid)


def grant(path: Path | str, perms: int, *, uid: int | None = None, gid: int | None = None) -> None:
    """Give one user (``uid``) or group (``gid``) ``perms`` on the file, keeping every other entry."""
    tag, ident = _key(uid, gid)
    entries = [e for e in read_acl(path) if e[0] != MASK and (e[0], e[2]) != (tag, ident)]
    write_acl(path, entries + [(tag, perms, ident)])


def revoke(path: Path | str, *, uid: int | None = None, gid: int | None = None) -> bool:
    """Remove one user's or group's entry; True when there was one."""
    tag, ident = _key(uid, gid)
    entries = read_acl(path)
    kept = [e for e in entries if e[0] != MASK and (e[0], e[2]) != (tag, ident)]
    if len(kept) == len([e for e in entries if e[0] != MASK]):
        return False
    write_acl(path, kept)
    return True


def named_entry(path: Path | str, *, uid: int | None = None, gid: int | None = None) -> int | None:
    """The permissions of one user's or group's named entry, or None without one."""
    tag, ident = _key(uid, gid)
    return next((p for t, p, i in read_acl(path) if (t, i) == (tag, ident)), None)


def allows(path: Path | str, want: int, *, uid: int | None, gids: set[int]) -> bool:
    """Whether a process with ``uid`` (None: a user not yet created) and groups ``gids`` gets ``want`` (POSIX.1e)."""
    st = os.stat(path)
    entries = read_acl(path)
    mask = next((p for t, p, _ in entries if t == MASK), 7)
    if uid is not None and uid == st.st_uid:
        return next(p for t, p, _ in entries if t == USER_OBJ) & want == want
    if uid is not None:
        for t, p, i in entries:
            if t == USER and i == uid:
                return p & mask & want == want
    groups = [p for t, p, i in entries if (t == GROUP_OBJ and st.st_gid in gids) or (t == GROUP and i in gids)]
    if groups:
        return any(p & mask & want == want for p in groups)
    return next(p for t, p, _ in entries if t == OTHER) & want == want
