"""The hub's secrets kept where no participant can read them: a root-only state folder and passwords file.

JupyterHub writes its cookie secret (mode 0600) and its sqlite database (mode from the umask) into the state
folder; ``private_dir`` makes that folder 0700 and root's, so neither is readable by a participant's account.
The passwords live in ``<state>/passwords`` (0600), never in the environment: a variable deleted from
``os.environ`` is still in ``/proc/<pid>/environ``, which holds a process's environment as it was at ``exec``.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import MutableMapping
from pathlib import Path

from npulab.core.i18n import t

PASSWORDS_FILE = "passwords"
KEYS = ("participants", "instructor")
MIN_LENGTH = {"participants": 8, "instructor": 32}
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: easy to read off a slide


class SecretsError(RuntimeError):
    """Secrets that are missing, weak or readable by others (the message says why, in Chinese)."""


def private_dir(path: Path | str) -> Path:
    """Create ``path`` (and parents) and make it mode 0700, owned by the current user."""
    path = Path(path).resolve()
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o700)
    return path


def check_private(path: Path | str) -> None:
    """Raise SecretsError when group or others may read ``path`` or it belongs to another user."""
    st = os.stat(path)
    if st.st_mode & 0o077 or st.st_uid != os.geteuid():
        raise SecretsError(t("workshop.tools.secrets.not_private", path=path, mode=stat.filemode(st.st_mode),
                             uid=st.st_uid))


def participant_password() -> str:
    """A password to say aloud in the room: three groups of four letters or digits (about 59 bits)."""
    return "-".join("".join(secrets.choice(_ALPHABET) for _ in range(4)) for _ in range(3))


def ensure_passwords(state: Path | str) -> tuple[Path, bool]:
    """``<state>/passwords`` (created with fresh random passwords when missing); returns (file, created)."""
    path = private_dir(state) / PASSWORDS_FILE
    if path.exists():
        return path, False
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("# 工作坊密码（只有 root 可读）：participants = 学员共用，instructor = 讲师（管理员）\n"
                f"participants={participant_password()}\ninstructor={secrets.token_urlsafe(30)}\n")
    return path, True


def read_passwords(path: Path | str) -> dict[str, str]:
    """The passwords in the file, checked: private, both present, long enough and different."""
    path = Path(path)
    if not path.is_file():
        raise SecretsError(t("workshop.tools.secrets.missing", path=path))
    check_private(path)
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition("=")
        if sep and not key.strip().startswith("#"):
            found[key.strip()] = value.strip()
    for key in KEYS:
        if len(found.get(key, "")) < MIN_LENGTH[key]:
            raise SecretsError(t("workshop.tools.secrets.too_short", path=path, who=key, length=MIN_LENGTH[key]))
    if found["participants"] == found["instructor"]:
        raise SecretsError(t("workshop.tools.secrets.same", path=path))
    return {k: found[k] for k in KEYS}


def pop_secrets(environ: MutableMapping[str, str], names: tuple[str, ...]) -> dict[str, str]:
    """Take secret variables out of ``environ`` so no child process inherits them (``/proc`` keeps the original)."""
    return {n: environ.pop(n) for n in names if n in environ}
