"""Run a command with the statx system call answered "not implemented" (ENOSYS): `python3 no_statx.py CMD [ARG …]`.

PRoot 5.1.0 (Debian bookworm) translates the paths of stat and fstatat but not of statx, so under proot a statx on a
path of the emulated root looks at the host's file system instead. qemu-user tries the host's statx first and, when it
is missing, answers the guest's statx from fstatat itself, which proot does translate; uv (Rust) and coreutils' ls
and stat then see the right files. A seccomp filter (inherited by proot, qemu and everything they start) makes the
x86_64 statx fail with ENOSYS; every other system call is allowed.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

STATX = 332  # x86_64 system call number
AUDIT_ARCH_X86_64 = 0xC000003E
LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06
ALLOW, ERRNO = 0x7FFF0000, 0x00050000
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


class SockFilter(ctypes.Structure):
    """struct sock_filter."""

    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class SockFprog(ctypes.Structure):
    """struct sock_fprog."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def install_filter() -> None:
    """statx → ENOSYS for this process and its children."""
    program = [
        (LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (JEQ_K, 0, 3, AUDIT_ARCH_X86_64),
        (LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        (JEQ_K, 0, 1, STATX),
        (RET_K, 0, 0, ERRNO | 38),  # ENOSYS
        (RET_K, 0, 0, ALLOW),
    ]
    filters = (SockFilter * len(program))(*[SockFilter(*op) for op in program])
    fprog = SockFprog(len(program), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) or libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                                                                  ctypes.byref(fprog), 0, 0):
        raise OSError(ctypes.get_errno(), "seccomp filter")


def main() -> int:
    if len(sys.argv) < 2:
        print("用法：python3 no_statx.py 命令 [参数 …]", file=sys.stderr)
        return 2
    if platform.machine() != "x86_64":
        print(f"no_statx.py 只用于 x86_64 主机（这里是 {platform.machine()}）", file=sys.stderr)
        return 2
    install_filter()
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
