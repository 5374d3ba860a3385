"""CANN's environment for every participant: read ``set_env.sh`` once and hand its variables to each server."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping
from pathlib import Path

VISIBLE_ENV = "ASCEND_RT_VISIBLE_DEVICES"
# Variables CANN's set_env.sh exports (CANN environment-variable reference; npulab.env.cann_install writes the same list into
# its synthetic installs). Used when the hub itself was started with CANN loaded and no set_env.sh is named.
CANN_VARIABLES = (
    "ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH", "TOOLCHAIN_HOME",
    "LD_LIBRARY_PATH", "PYTHONPATH", "PATH",
)
# set_env.sh also sets variables that describe the shell, not CANN; never hand these to a participant's server
_SHELL_NOISE = frozenset({"_", "SHLVL", "PWD", "OLDPWD", "BASH_EXECUTION_STRING"})


def _env_dump(script: str, base: Mapping[str, str], timeout: float) -> dict[str, str]:
    done = subprocess.run(["bash", "-c", script + "\nenv -0"], capture_output=True, env=dict(base),
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace").strip() or f"bash 退出码 {done.returncode}")
    pairs = (item.split("=", 1) for item in done.stdout.decode(errors="replace").split("\0") if "=" in item)
    return dict(pairs)


def read_set_env(set_env: Path | str, base: Mapping[str, str] | None = None, timeout: float = 30.0) -> dict[str, str]:
    """Variables that ``source set_env.sh`` adds or changes, starting from ``base`` (default: this process)."""
    path = Path(set_env)
    if not path.is_file():
        raise FileNotFoundError(f"找不到 CANN 的环境脚本：{path}")
    base = dict(os.environ if base is None else base)
    before = _env_dump(":", base, timeout)
    after = _env_dump(f"source {shlex.quote(str(path))} >/dev/null 2>&1 || exit 3", base, timeout)
    return {k: v for k, v in after.items() if before.get(k) != v and k not in _SHELL_NOISE}


def find_set_env(environ: Mapping[str, str] | None = None) -> Path | None:
    """CANN's set_env.sh: ``WORKSHOP_CANN_SET_ENV`` if set, else the ≥ 8.5 layout, else the legacy one."""
    env = os.environ if environ is None else environ
    if env.get("WORKSHOP_CANN_SET_ENV"):
        return Path(env["WORKSHOP_CANN_SET_ENV"])
    for candidate in ("/usr/local/Ascend/cann/set_env.sh", "/usr/local/Ascend/ascend-toolkit/set_env.sh"):
        if Path(candidate).is_file():
            return Path(candidate)
    return None


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
