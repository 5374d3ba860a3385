"""JupyterHub's proxy: configurable-http-proxy from ``workshop/node_modules`` (``make workshop-deps``) or PATH."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

PROXY = "configurable-http-proxy"


class ProxyMissing(RuntimeError):
    """No proxy (or no Node.js to run it); the message names the fix, in Chinese."""


def find_proxy(workshop_dir: Path | str, environ: Mapping[str, str]) -> list[str]:
    """``ConfigurableHTTPProxy.command``: the copy ``make workshop-deps`` installed, else one on PATH."""
    local = Path(workshop_dir) / "node_modules" / ".bin" / PROXY
    path = environ.get("PATH", "")
    if local.is_file():
        command = str(local)
    else:
        command = shutil.which(PROXY, path=path)
        if command is None:
            raise ProxyMissing(f"找不到 JupyterHub 的代理 {PROXY}（{local} 不存在，PATH 上也没有）：在课程目录运行 "
                               "make workshop-deps（需要 nodejs 与 npm），它把固定版本装进 workshop/node_modules/")
    if shutil.which("node", path=path) is None:
        raise ProxyMissing(f"找到了 {command}，但 PATH 上没有 node（Node.js）：先安装 nodejs（例如 apt install nodejs）")
    return [command]
