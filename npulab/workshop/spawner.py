"""Each participant's server as their own Unix account (``jupyter-<name>``), and the environment it starts with.

``AccountSpawner`` is JupyterHub's ``LocalProcessSpawner`` with one change: the Unix account is
``accounts.account_name(hub user)``, not the hub user name itself (The Littlest JupyterHub's
``jupyter-{USERNAME}`` convention), so the server, its kernels and its terminals run as that account, with its
home as ``HOME`` and working directory. The hub passes a server only ``Spawner.env_keep`` and
``Spawner.environment``: ``server_environment`` builds the latter from CANN's variables, the venv and the seat.
"""

from __future__ import annotations

import pwd
from collections.abc import Mapping
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid

from npulab.workshop.accounts import account_name
from npulab.workshop.cann_env import CLEAN_PATH

KEEP = ["LANG", "LC_ALL", "TZ"]  # from the hub's own environment; everything else is set explicitly


class AccountSpawner(LocalProcessSpawner):
    """LocalProcessSpawner running the server as ``jupyter-<name>`` (the account must exist before ``start``)."""

    def make_preexec_fn(self, name):
        return set_user_setuid(account_name(name))

    def user_env(self, env):
        entry = pwd.getpwnam(account_name(self.user.name))
        env.update(USER=entry.pw_name, LOGNAME=entry.pw_name, HOME=entry.pw_dir, SHELL=entry.pw_shell or "/bin/bash")
        return env


def server_environment(cann_env: Mapping[str, str], venv: Path | str, seat: Mapping[str, str],
                       extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A server's ``Spawner.environment``: CANN's variables, the venv's ``bin`` first on PATH, the seat's variables.

    Its Python reads bytecode from the venv's cache (the Makefile's ``PYTHONPYCACHEPREFIX``, filled for the whole venv
    by ``make bytecode``): a participant cannot write to the venv, so without it every kernel compiles from source.
    """
    bin_dir = str(Path(venv) / "bin")
    rest = [p for p in cann_env.get("PATH", CLEAN_PATH).split(":") if p and p != bin_dir]
    env = {**(extra or {}), **cann_env, **seat}
    env.update(PATH=":".join([bin_dir, *rest]), VIRTUAL_ENV=str(venv), PYTHONPYCACHEPREFIX=str(Path(venv) / "pycache"))
    return env
