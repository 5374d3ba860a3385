"""What another Python environment holds, asked from outside it: ``doctor --stack NAME --python PATH`` runs this
file with that interpreter. The stacks need Pythons npulab does not run on (MindSpeed-LLM: 3.10; the vLLM-Ascend
image: 3.12), so this file imports nothing but the standard library and keeps to Python 3.8 syntax; it prints one
JSON document: the interpreter's version and machine, every installed distribution with its version, and the CANN /
NNAL variables of its environment. Run by hand it prints the same (``python3.10 npulab/env/stack_probe.py``).
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys

# the environment variables that say which CANN / NNAL the process has loaded (set_env.sh of each)
ENVIRON_KEYS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "ASCEND_OPP_PATH", "ATB_HOME_PATH", "LD_LIBRARY_PATH")
TIMEOUT_S = 60.0


def _canonical(name):
    """PEP 503 name (the same rule as npulab.env.stacks.canonical)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def report():
    """The probe's document (runs inside the probed interpreter)."""
    distributions = {}
    try:
        import importlib.metadata as metadata  # Python >= 3.8
    except ImportError:  # pragma: no cover - Python < 3.8 has no importlib.metadata
        metadata = None
    if metadata is not None:
        for dist in metadata.distributions():
            try:
                name, version = dist.metadata["Name"], dist.version
            except Exception:  # noqa: BLE001 - a broken .dist-info must not stop the probe
                continue
            if name:
                distributions.setdefault(_canonical(name), version)
    return {
        "python": platform.python_version(),
        "executable": sys.executable,
        "prefix": sys.prefix,
        "machine": platform.machine(),
        "distributions": distributions,
        "environ": {key: os.environ.get(key) for key in ENVIRON_KEYS},
    }


class ProbeError(Exception):
    """The interpreter could not be run or did not answer with the probe's document; the message says why."""


def query(python, timeout=TIMEOUT_S):
    """Run this file with interpreter ``python`` (a path, or a venv folder) and return its document."""
    from npulab.core.i18n import t  # here, not at the top: this file also runs alone under the other interpreter

    path = os.path.expanduser(str(python))
    if os.path.isdir(path):
        path = os.path.join(path, "bin", "python")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise ProbeError(t("stack.probe_not_python", python=python))
    try:
        done = subprocess.run([path, os.path.abspath(__file__)], capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ProbeError(t("stack.probe_failed", path=path, error=f"{type(err).__name__}: {err}")) from err
    try:
        return json.loads(done.stdout)
    except ValueError:
        last = (done.stderr.strip().splitlines() or [t("stack.probe_exit_code", code=done.returncode)])[-1]
        raise ProbeError(t("stack.probe_no_answer", path=path, last=last)) from None


if __name__ == "__main__":
    json.dump(report(), sys.stdout, ensure_ascii=False, indent=1, sort_keys=True)
    sys.stdout.write("\n")
