"""Run an external tool (npu-smi, ascend-dmi) without ever raising: missing tools and timeouts become results."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from npulab.core.i18n import t

MISSING = 127  # the shell's "command not found"
TIMEOUT = 124  # coreutils timeout's code


@dataclass(frozen=True)
class Result:
    """What a command returned: exit code, standard output and standard error (text)."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def missing(self) -> bool:
        return self.returncode == MISSING


Runner = Callable[[list[str]], Result]


def run(argv: list[str], timeout: float = 60.0, env: Mapping[str, str] | None = None) -> Result:
    """Run ``argv``; a missing program gives code 127 and a timeout code 124, with a Chinese message in stderr."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=timeout,
                              env=dict(env) if env is not None else None, check=False)
    except FileNotFoundError:
        return Result(tuple(argv), MISSING, "", t("smi.command_missing", command=argv[0]))
    except PermissionError:
        return Result(tuple(argv), MISSING, "", t("smi.command_forbidden", command=argv[0]))
    except subprocess.TimeoutExpired as err:
        out = err.stdout.decode(errors="replace") if isinstance(err.stdout, bytes) else (err.stdout or "")
        return Result(tuple(argv), TIMEOUT, out, t("smi.command_timeout", command=" ".join(argv), timeout=timeout))
    return Result(tuple(argv), done.returncode, done.stdout, done.stderr)
