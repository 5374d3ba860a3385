"""The hub's own prerequisites, checked the evening before: proxy, port, CANN's set_env.sh, accounts, root, TLS, NPU.

Each check returns a ``preflight.HostCheck``; ``cpu_only`` turns the NPU and CANN checks from failures into notes
(a workshop that runs every notebook on CPU needs neither).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
from collections.abc import Iterable, Mapping
from pathlib import Path

from npulab.core.paths import REPO_ROOT
from npulab.course.workshop.preflight import HostCheck
from npulab.course.workshop.settings import WorkshopSettings

PROXY = REPO_ROOT / "workshop" / "node_modules" / ".bin" / "configurable-http-proxy"
ACCOUNT_PREFIX = "jupyter-"  # one Unix account per participant, as The Littlest JupyterHub names them
# useradd's default NAME_REGEX on Debian (adduser.conf / useradd(8)): lowercase ASCII, digits, _ and -; ≤ 32 characters
ACCOUNT_NAME = re.compile(r"[a-z_][a-z0-9_-]*")
MAX_ACCOUNT_NAME = 32
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
NPU_DEVICE = Path("/dev/davinci_manager")  # present on every host with the Ascend driver loaded


def proxy_check(proxy: Path | None = None) -> HostCheck:
    """configurable-http-proxy where the hub config looks for it (workshop/node_modules/.bin), or on PATH."""
    proxy = PROXY if proxy is None else proxy
    if proxy.is_file() and os.access(proxy, os.X_OK):
        return HostCheck("proxy", "ok", f"configurable-http-proxy：{proxy}")
    found = shutil.which("configurable-http-proxy")
    if found:
        return HostCheck("proxy", "warn", f"{proxy} 不存在，hub 会用 PATH 上的 {found}（版本未固定）；建议运行 make workshop-deps")
    return HostCheck("proxy", "fail", f"找不到 configurable-http-proxy（{proxy}）：运行 make workshop-deps（需要 nodejs 与 npm）")


def port_check(ip: str, port: int) -> HostCheck:
    """The hub's address can be bound now (nothing else, e.g. an earlier hub, listens there)."""
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((ip if ip != "localhost" else "127.0.0.1", port))
        except OSError as err:
            return HostCheck("port", "fail", f"{ip}:{port} 无法监听（{err.strerror}）：已有程序（也许是上一次的 hub）在用它，"
                                             f"或换一个 WORKSHOP_PORT")
    return HostCheck("port", "ok", f"{ip}:{port} 空闲")


def bind_check(settings: WorkshopSettings) -> HostCheck:
    """Either the hub listens on loopback only, or it has TLS (a certificate and a key that exist)."""
    where = f"{settings.ip}:{settings.port}"
    if settings.ip in LOOPBACK:
        return HostCheck("tls", "ok", f"只在本机回环地址 {where} 监听（学员经 SSH 隧道或反向代理访问）")
    missing = [str(p) for p in (settings.ssl_cert, settings.ssl_key) if p is None or not p.is_file()]
    if settings.ssl_cert and settings.ssl_key and not missing:
        return HostCheck("tls", "ok", f"在 {where} 以 HTTPS 监听（证书 {settings.ssl_cert}）")
    return HostCheck("tls", "fail", f"在 {where} 对外监听却没有 TLS：密码会明文传输。设置 WORKSHOP_SSL_CERT 与 "
                                    f"WORKSHOP_SSL_KEY" + (f"（找不到：{'、'.join(missing)}）" if settings.ssl_cert else "")
                                    + "，或让 hub 只监听 127.0.0.1 并在前面放一个 HTTPS 反向代理")


def cann_check(environ: Mapping[str, str] | None = None, *, cpu_only: bool = False) -> tuple[HostCheck, dict[str, str]]:
    """CANN's set_env.sh as the hub finds it, read in a clean environment; its variables for ``--execute``."""
    from npulab.course.workshop.cann_env import find_set_env, read_set_env

    path = find_set_env(environ)
    if path is None or not Path(path).is_file():
        status = "warn" if cpu_only else "fail"
        return HostCheck("cann", status, "找不到 CANN 的 set_env.sh（WORKSHOP_CANN_SET_ENV 或默认安装位置）：学员的内核里"
                                         "不会有 CANN" + ("；CPU 模式下可以接受" if cpu_only else "")), {}
    try:
        variables = read_set_env(path, base={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")})
    except (OSError, RuntimeError) as err:
        return HostCheck("cann", "fail", f"执行 {path} 失败：{err}"), {}
    if not any(k.startswith("ASCEND_") for k in variables):
        return HostCheck("cann", "fail", f"{path} 没有设置任何 ASCEND_* 变量"), variables
    return HostCheck("cann", "ok", f"{path}：设置 {len(variables)} 个变量，会传给每位学员的服务器"), variables


def npu_check(*, smi_file: str | None, cpu_only: bool, device: Path | None = None) -> HostCheck:
    """An Ascend driver on this host (its management device); a saved npu-smi table is not the host itself."""
    device = NPU_DEVICE if device is None else device
    if cpu_only:
        return HostCheck("npu", "skip", "CPU 模式（--cpu-only）：不检查 NPU，学员的笔记本在 CPU 上运行")
    if not device.exists():
        source = f"；座位表里的 npu-smi 数据来自文件 {smi_file}，不是本机" if smi_file else ""
        return HostCheck("npu", "fail", f"本机没有昇腾 NPU（没有 {device}，驱动未加载）{source}。若整场工作坊只用 CPU，"
                                        f"加 --cpu-only")
    note = f"（座位表用的是文件 {smi_file}，开课前在本机再跑一次不带 --smi-file 的检查）" if smi_file else ""
    return HostCheck("npu", "ok" if not smi_file else "warn", f"{device} 存在{note}")


def accounts_check(users: Iterable[str], *, euid: int | None = None, useradd: str | None = "auto") -> HostCheck:
    """Each participant becomes the Unix account ``jupyter-<name>``: the hub must be root and every name valid."""
    euid = os.geteuid() if euid is None else euid
    useradd = shutil.which("useradd") if useradd == "auto" else useradd
    bad = [u for u in users if not ACCOUNT_NAME.fullmatch(ACCOUNT_PREFIX + u) or len(ACCOUNT_PREFIX + u) > MAX_ACCOUNT_NAME]
    problems = []
    if euid != 0:
        problems.append("hub 需要以 root 运行，才能为每位学员创建账号并以其身份启动服务器（sudo -E …）")
    if not useradd:
        problems.append("找不到 useradd（Debian/Ubuntu 的 passwd 包）")
    if bad:
        problems.append(f"这些名字不能成为 Unix 账号 {ACCOUNT_PREFIX}<名字>（只能用小写字母、数字、_ 和 -，以字母或 _ 开头，"
                        f"全长不超过 {MAX_ACCOUNT_NAME} 个字符）：{'、'.join(bad)}；在名单里改用拼音")
    if problems:
        return HostCheck("accounts", "fail", "；".join(problems))
    return HostCheck("accounts", "ok", f"以 root 运行，可为名单上的人创建 {ACCOUNT_PREFIX}<名字> 账号")


def hub_checks(settings: WorkshopSettings, users: list[str], *, smi_file: str | None, cpu_only: bool,
               environ: Mapping[str, str] | None = None) -> tuple[list[HostCheck], dict[str, str]]:
    """All of the hub's prerequisites, and CANN's variables (for running a notebook as a seat would)."""
    cann, variables = cann_check(environ, cpu_only=cpu_only)
    checks = [npu_check(smi_file=smi_file, cpu_only=cpu_only), cann, proxy_check(),
              port_check(settings.ip, settings.port), bind_check(settings), accounts_check(users)]
    return checks, variables
