"""CANN's environment for every participant: read ``set_env.sh`` once and hand its variables to each server."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from npulab.core.i18n import t

VISIBLE_ENV = "ASCEND_RT_VISIBLE_DEVICES"
# Variables CANN's set_env.sh exports (CANN environment-variable reference; npulab.env.cann_install writes the same list into
# its synthetic installs). Used when the hub itself was started with CANN loaded and no set_env.sh is named.
CANN_VARIABLES = (
    "ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH", "TOOLCHAIN_HOME",
    "LD_LIBRARY_PATH", "PYTHONPATH", "PATH",
)
# set_env.sh also sets variables that describe the shell, not CANN; never hand these to a participant's server
_SHELL_NOISE = frozenset({"_", "SHLVL", "PWD", "OLDPWD", "BASH_EXECUTION_STRING"})


# The clean environment set_env.sh is read in (``env -i`` plus these): whatever the hub's own shell already
# sourced changes nothing. The venv's bin comes first so that a script calling ``python3`` reaches the course's
# interpreter, as it would in a participant's terminal.
CLEAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_NNAL = ("nnal/atb/set_env.sh",)  # NNAL's Ascend Transformer Boost (vLLM-Ascend, MindIE need it), beside CANN


def clean_base(venv_bin: Path | str | None = None) -> dict[str, str]:
    """The environment ``set_env.sh`` is read in: a minimal PATH (the venv's bin first), HOME and a UTF-8 locale."""
    path = f"{venv_bin}:{CLEAN_PATH}" if venv_bin else CLEAN_PATH
    return {"PATH": path, "HOME": os.path.expanduser("~"), "LANG": "C.UTF-8"}


def _env_dump(script: str, base: Mapping[str, str], timeout: float) -> dict[str, str]:
    done = subprocess.run(["bash", "--noprofile", "--norc", "-c", script + "\nenv -0"], capture_output=True,
                          env=dict(base), timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace").strip()
                           or t("workshop.checks.cann_env.bash_exit", code=done.returncode))
    pairs = (item.split("=", 1) for item in done.stdout.decode(errors="replace").split("\0") if "=" in item)
    return dict(pairs)


def read_set_env(set_env: Path | str | Sequence[Path | str], base: Mapping[str, str] | None = None,
                 timeout: float = 30.0) -> dict[str, str]:
    """Variables that sourcing the script(s), in order, adds or changes in ``base`` (default: ``clean_base()``).

    Read in a clean environment (``env -i``), not in this process's: a hub started from a shell that already
    sourced ``set_env.sh`` would otherwise see only the variables a second sourcing changes (the PATH-like
    ones) and lose ``ASCEND_HOME_PATH``, ``ASCEND_OPP_PATH`` and the rest.
    """
    scripts = [Path(set_env)] if isinstance(set_env, (str, Path)) else [Path(p) for p in set_env]
    for path in scripts:
        if not path.is_file():
            raise FileNotFoundError(t("workshop.checks.cann_env.script_missing", path=path))
    base = dict(clean_base() if base is None else base)
    before = _env_dump(":", base, timeout)
    sources = "\n".join(f"source {shlex.quote(str(p))} >/dev/null 2>&1 || exit 3" for p in scripts)
    after = _env_dump(sources, base, timeout)
    return {k: v for k, v in after.items() if before.get(k) != v and k not in _SHELL_NOISE}


def _candidates(env: Mapping[str, str], home: Path) -> list[Path]:
    out = []
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):  # a shell that already sourced a script: find it again
        if env.get(var):
            loaded = Path(env[var])
            out += [loaded / "set_env.sh", loaded.parent / "set_env.sh"]
    for root in (Path("/usr/local/Ascend"), home / "Ascend"):  # root's install, then a user's (CANN install guide)
        out += [root / "cann" / "set_env.sh", root / "ascend-toolkit" / "set_env.sh"]
    out.append(Path("/usr/local/Ascend/nnae/set_env.sh"))
    return out


def find_set_env(environ: Mapping[str, str] | None = None, home: Path | str | None = None) -> Path | None:
    """CANN's set_env.sh: ``WORKSHOP_CANN_SET_ENV`` if set; else the one an already loaded CANN came from;
    else ``/usr/local/Ascend/{cann,ascend-toolkit}``, then ``~/Ascend/…``, then ``nnae``."""
    env = os.environ if environ is None else environ
    if env.get("WORKSHOP_CANN_SET_ENV"):
        return Path(env["WORKSHOP_CANN_SET_ENV"])
    home = Path(home) if home is not None else Path.home()
    return next((p for p in _candidates(env, home) if p.is_file()), None)


def find_nnal_set_env(cann_set_env: Path | str, environ: Mapping[str, str] | None = None) -> list[Path]:
    """NNAL's set_env.sh beside this CANN (``<Ascend>/nnal/atb/``), or ``WORKSHOP_NNAL_SET_ENV``; [] without NNAL."""
    env = os.environ if environ is None else environ
    if env.get("WORKSHOP_NNAL_SET_ENV"):
        return [Path(p) for p in env["WORKSHOP_NNAL_SET_ENV"].split(":") if p]
    ascend = Path(cann_set_env).resolve().parent.parent  # <Ascend>/ascend-toolkit/set_env.sh, <Ascend>/cann-x/set_env.sh
    return [ascend / rel for rel in _NNAL if (ascend / rel).is_file()]


def load_cann(environ: Mapping[str, str] | None = None, venv_bin: Path | str | None = None,
              home: Path | str | None = None) -> tuple[list[Path], dict[str, str], str]:
    """(scripts read, variables they set, a log line in the reader's language) for the hub; no script: ([], {}, a
    warning)."""
    env = os.environ if environ is None else environ
    cann = find_set_env(env, home)
    if cann is None:
        return [], {}, t("workshop.checks.cann_env.not_found")
    scripts = [cann, *find_nnal_set_env(cann, env)]
    variables = read_set_env(scripts, base=clean_base(venv_bin))
    named = t("workshop.checks.list_sep").join(map(str, scripts))
    if not variables:
        return scripts, {}, t("workshop.checks.cann_env.empty", scripts=named)
    return scripts, variables, t("workshop.checks.cann_env.loaded", scripts=named, count=len(variables),
                                 names=", ".join(sorted(variables)))


def inherited_cann_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The CANN variables of an already loaded environment (the hub started after ``source set_env.sh``)."""
    env = os.environ if environ is None else environ
    return {k: env[k] for k in CANN_VARIABLES if k in env}


def seat_environment(cann_env: Mapping[str, str], device: int, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """``Spawner.environment`` for one seat: CANN's variables, the seat's NPU and any extra settings."""
    env = dict(extra or {})
    env.update(cann_env)
    env[VISIBLE_ENV] = str(device)
    return env
