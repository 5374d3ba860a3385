"""Run shell lines (``source set_env.sh``, ``source venv/bin/activate`` …) in a clean bash and report the environment.

A lesson uses ``compare_orders`` to test, rather than assert, whether the order of loading CANN and activating a
venv matters. Activation only changes PATH, PS1 and VIRTUAL_ENV (and unsets PYTHONHOME; Python 3.11's script also
exports VIRTUAL_ENV_PROMPT); it never touches LD_LIBRARY_PATH or PYTHONPATH (CPython ``Lib/venv/scripts/common/activate``), whatever the seed article says. What the order does change is PATH's order, and what
``deactivate`` restores: the PATH saved at activation time.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import tempfile
from pathlib import Path

from npulab.env.cann_install import describe

# the environment every observation starts from: nothing inherited from the caller
MINIMAL_PATH = "/usr/local/bin:/usr/bin:/bin"
LIST_VARS = ("PATH", "LD_LIBRARY_PATH", "PYTHONPATH")


def _split(value: str | None) -> list[str]:
    return [p for p in value.split(":") if p] if value else []


def minimal_environ() -> dict[str, str]:
    """The clean starting environment: a short PATH, HOME and a UTF-8 locale."""
    return {"PATH": MINIMAL_PATH, "HOME": tempfile.gettempdir(), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def observe(steps: list[str], cwd: str | Path | None = None, timeout: float = 30.0) -> dict:
    """Run ``steps`` in ``bash`` with a minimal environment; return the resulting PATH, LD_LIBRARY_PATH, PYTHONPATH,
    VIRTUAL_ENV, the ``python`` found on PATH and that python's ``sys.path``."""
    with tempfile.TemporaryDirectory(prefix="npulab-shellenv-") as tmp:
        out = Path(tmp)
        # __npulab_out is a shell variable, not exported, so it never shows up in the dumped environment
        script = "\n".join([
            f"__npulab_out={shlex.quote(tmp)}",
            *steps,
            'echo "$?" > "$__npulab_out/rc"',
            'env -0 > "$__npulab_out/env"',
            '__npulab_py="$(command -v python || true)"',
            'printf %s "$__npulab_py" > "$__npulab_out/python"',
            'if [ -n "$__npulab_py" ]; then',
            '  "$__npulab_py" -c "import json, sys; print(json.dumps(sys.path))" > "$__npulab_out/sys_path" 2>/dev/null',
            "fi",
        ])
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-c", script],
            cwd=cwd, env=minimal_environ(), capture_output=True, text=True, timeout=timeout,
        )
        env: dict[str, str] = {}
        if (out / "env").exists():
            for item in (out / "env").read_bytes().decode("utf-8", "replace").split("\0"):
                if "=" in item:
                    key, _, value = item.partition("=")
                    env[key] = value
        python = (out / "python").read_text() if (out / "python").exists() else ""
        sys_path = None
        if (out / "sys_path").exists():
            try:
                sys_path = json.loads((out / "sys_path").read_text())
            except ValueError:
                sys_path = None
        rc_file = out / "rc"
        last_rc = int(rc_file.read_text().strip() or 0) if rc_file.exists() else proc.returncode
    # the private temp dir is gone now; drop the variables bash itself adds
    for noise in ("PWD", "OLDPWD", "SHLVL", "_"):
        env.pop(noise, None)
    result: dict = {name: _split(env.get(name)) for name in LIST_VARS}
    result.update({
        "VIRTUAL_ENV": env.get("VIRTUAL_ENV"),
        "python": python or None,
        "sys_path": sys_path,
        "env": env,
        "returncode": proc.returncode,
        "last_step_rc": last_rc,
        "stderr": proc.stderr,
    })
    return result


def _set_env_script(cann_root: Path) -> Path:
    """The set_env.sh of the install under ``cann_root`` (legacy or ≥8.5 layout)."""
    inst = describe(cann_root).primary
    if inst is None or inst.set_env is None:
        raise ValueError(f"{cann_root} 下找不到 CANN 的 set_env.sh")
    return inst.set_env


def changed_variables(before: dict, after: dict) -> list[str]:
    """Names of environment variables that differ between two observations."""
    a, b = before["env"], after["env"]
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def compare_orders(cann_root: str | Path, venv: str | Path) -> dict:
    """Load CANN then activate ``venv``, and the reverse, then ``deactivate`` in each case; report what differs."""
    set_env = shlex.quote(str(_set_env_script(Path(cann_root))))
    activate = shlex.quote(str(Path(venv) / "bin" / "activate"))
    cann_step, venv_step = f"source {set_env}", f"source {activate}"
    cann_bin = [p for p in observe([cann_step])["PATH"] if p not in MINIMAL_PATH.split(":")]

    baseline = observe([])
    venv_only = observe([venv_step])
    first = observe([cann_step, venv_step])
    second = observe([venv_step, cann_step])
    first_off = observe([cann_step, venv_step, "deactivate"])
    second_off = observe([venv_step, cann_step, "deactivate"])

    def kept(obs: dict) -> bool:
        return all(p in obs["PATH"] for p in cann_bin)

    return {
        "steps": {"cann_then_venv": [cann_step, venv_step], "venv_then_cann": [venv_step, cann_step]},
        "cann_then_venv": first,
        "venv_then_cann": second,
        "activate_changes": changed_variables(baseline, venv_only),
        "same_LD_LIBRARY_PATH": first["LD_LIBRARY_PATH"] == second["LD_LIBRARY_PATH"],
        "same_PYTHONPATH": first["PYTHONPATH"] == second["PYTHONPATH"],
        "same_python": first["python"] == second["python"],
        "same_sys_path": first["sys_path"] == second["sys_path"],
        "same_PATH": first["PATH"] == second["PATH"],
        "differing_variables": changed_variables(first, second),
        "cann_bin_dirs": cann_bin,
        "after_deactivate": {"cann_then_venv": first_off, "venv_then_cann": second_off},
        "cann_bin_kept_after_deactivate": {"cann_then_venv": kept(first_off), "venv_then_cann": kept(second_off)},
        "LD_LIBRARY_PATH_kept_after_deactivate": {
            "cann_then_venv": first_off["LD_LIBRARY_PATH"] == first["LD_LIBRARY_PATH"],
            "venv_then_cann": second_off["LD_LIBRARY_PATH"] == second["LD_LIBRARY_PATH"],
        },
    }
