"""JupyterHub's proxy: configurable-http-proxy from ``workshop/node_modules`` (``make workshop-deps``) or PATH."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from npulab.core.i18n import t

PROXY = "configurable-http-proxy"


class ProxyMissing(RuntimeError):
    """No proxy (or no Node.js to run it); the message names the fix, in the reader's language."""


def find_proxy(workshop_dir: Path | str, environ: Mapping[str, str]) -> list[str]:
    """``ConfigurableHTTPProxy.command``: the copy ``make workshop-deps`` installed, else one on PATH."""
    local = Path(workshop_dir) / "node_modules" / ".bin" / PROXY
    path = environ.get("PATH", "")
    if local.is_file():
        command = str(local)
    else:
        command = shutil.which(PROXY, path=path)
        if command is None:
            raise ProxyMissing(t("workshop.checks.proxy.missing", proxy=PROXY, local=local))
    if shutil.which("node", path=path) is None:
        raise ProxyMissing(t("workshop.checks.proxy.no_node", command=command))
    return [command]
