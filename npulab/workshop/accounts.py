"""One Unix account per participant, ``jupyter-<name>``, created at their first login (as The Littlest JupyterHub does).

The hub (root) creates the account the first time a roster participant starts a server: ``useradd`` with a home
of mode 0700, a login shell for the terminal, the comment ``MARKER`` (so that ``remove_accounts`` removes only
accounts this tool made) and membership of the workshop group ``GROUP`` (what ``access.grant_access`` opens the
venv to). ``account_name`` maps a hub user name to a valid Unix name; names that are not one (Chinese, too
long) get a short hash, as The Littlest JupyterHub's ``generate_system_username`` does (its
``UserCreatingSpawner.start`` creates ``generate_system_username('jupyter-' + name)`` before the server starts:
jupyterhub/the-littlest-jupyterhub, ``tljh/user_creating_spawner.py``, ``tljh/normalize.py``, ``tljh/user.py``).
Here the hub's pre-spawn hook creates it, after the seat is granted, so a refused participant gets no account.
"""

from __future__ import annotations

import grp
import hashlib
import os
import pwd
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from npulab.core.i18n import t

PREFIX = "jupyter-"
GROUP = "jupyter-workshop"
MARKER = "npulab workshop participant"
MAX_NAME = 32  # useradd's limit on Linux


def home_base(defaults: Path | str = "/etc/default/useradd") -> Path:
    """Where ``useradd --create-home`` puts the accounts' homes: HOME= of its defaults file, else /home."""
    try:
        for line in Path(defaults).read_text(encoding="utf-8", errors="replace").splitlines():
            key, sep, value = line.strip().partition("=")
            if sep and key == "HOME" and value.strip():
                return Path(value.strip().strip('"'))
    except OSError:
        pass
    return Path("/home")
_VALID = re.compile(r"[a-z_][a-z0-9_-]*")
_lock = threading.Lock()


class AccountError(RuntimeError):
    """An account that cannot be created or removed (the message says why, in Chinese)."""


def account_name(hub_name: str) -> str:
    """The Unix account of hub user ``hub_name``: ``jupyter-<name>``, or a hashed form when that is not valid."""
    name = PREFIX + hub_name
    if _VALID.fullmatch(name) and len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(hub_name.encode("utf-8")).hexdigest()[:8]
    safe = re.sub(r"[^a-z0-9_-]+", "", hub_name.lower())
    return (PREFIX + safe)[: MAX_NAME - len(digest) - 1].rstrip("-") + "-" + digest


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AccountError(t("workshop.tools.accounts.command_failed", command=" ".join(cmd), code=done.returncode,
                               stderr=done.stderr.strip()))


def ensure_group(name: str = GROUP) -> int:
    """The workshop group's gid, creating the (system) group when missing."""
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        _run(["groupadd", "--system", name])
        return grp.getgrnam(name).gr_gid


def _marked(entry: pwd.struct_passwd) -> bool:
    return entry.pw_name.startswith(PREFIX) and entry.pw_gecos.split(",")[0] == MARKER


def ensure_account(hub_name: str, groups: Iterable[str] = ()) -> pwd.struct_passwd:
    """The participant's account, created (home 0700, bash, in ``GROUP`` and ``groups``) when it does not exist."""
    name = account_name(hub_name)
    with _lock:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            ensure_group()
            extra = [g for g in groups if g]
            _run(["useradd", "--create-home", "--shell", "/bin/bash", "--comment", MARKER, "--user-group",
                  "--groups", ",".join([GROUP, *extra]), name])
            entry = pwd.getpwnam(name)
        if not _marked(entry):
            raise AccountError(t("workshop.tools.accounts.foreign_account", name=name))
        home = Path(entry.pw_dir)
        home.mkdir(mode=0o700, exist_ok=True)
        os.chown(home, entry.pw_uid, entry.pw_gid)
        home.chmod(0o700)
    return entry


def chown_tree(path: Path | str, entry: pwd.struct_passwd) -> None:
    """Give everything under ``path`` to the account (files the hub, as root, copied into the home)."""
    for root, _dirs, files in os.walk(path):
        os.chown(root, entry.pw_uid, entry.pw_gid)
        for f in files:
            os.lchown(os.path.join(root, f), entry.pw_uid, entry.pw_gid)


def workshop_accounts() -> list[pwd.struct_passwd]:
    """Every account this tool created (prefix and marker), by name."""
    return sorted((e for e in pwd.getpwall() if _marked(e)), key=lambda e: e.pw_name)


def stop_processes(uid: int, wait_s: float = 5.0) -> int:
    """End every process running as ``uid`` (SIGTERM, then SIGKILL); returns how many there were."""
    import psutil

    procs = [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]
    for p in procs:
        try:
            p.terminate()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(procs, timeout=wait_s)
    for p in alive:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=wait_s)
    return len(procs)


def remove_account(entry: pwd.struct_passwd) -> None:
    """Stop the account's processes and delete it with its home (``userdel --remove``)."""
    if not _marked(entry):
        raise AccountError(t("workshop.tools.accounts.not_ours", name=entry.pw_name))
    for _ in range(3):
        stop_processes(entry.pw_uid)
        done = subprocess.run(["userdel", "--remove", entry.pw_name], capture_output=True, text=True, check=False)
        # exit 12: the home or mail spool could not be removed (no spool is normal); the account itself is gone
        if done.returncode in (0, 12) or not _exists(entry.pw_name):
            home = Path(entry.pw_dir)
            if home.is_dir() and home.stat().st_uid == entry.pw_uid and home.name == entry.pw_name:
                shutil.rmtree(home, ignore_errors=True)
            return
        time.sleep(0.5)  # a process started between the two steps (exit 8: "user is currently used")
    raise AccountError(t("workshop.tools.accounts.cannot_delete", name=entry.pw_name, stderr=done.stderr.strip()))


def _exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def remove_group(name: str = GROUP) -> bool:
    """Delete the workshop group once no account uses it; True when it was deleted."""
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    _run(["groupdel", name])
    return True
