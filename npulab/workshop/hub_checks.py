"""The hub's own prerequisites, checked the evening before: proxy, port, CANN's set_env.sh, accounts, root, TLS, NPU.

Each check returns a ``preflight.HostCheck``; ``cpu_only`` turns the NPU and CANN checks from failures into notes
(a workshop that runs every notebook on CPU needs neither).
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from npulab.core.paths import REPO_ROOT
from npulab.workshop import accounts, proxy
from npulab.workshop.settings import WorkshopSettings

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
NPU_DEVICE = Path("/dev/davinci_manager")  # present on every host with the Ascend driver loaded


@dataclass
class HostCheck:
    """A check of the server as a whole: id, status (ok/warn/fail/skip) and a Chinese message."""

    id: str
    status: str
    message: str



def proxy_check(workshop_dir: Path | None = None, environ: Mapping[str, str] | None = None) -> HostCheck:
    """configurable-http-proxy found exactly as the hub config finds it (``proxy.find_proxy``)."""
    workshop_dir = REPO_ROOT / "workshop" if workshop_dir is None else workshop_dir
    try:
        command = proxy.find_proxy(workshop_dir, os.environ if environ is None else environ)[0]
    except proxy.ProxyMissing as err:
        return HostCheck("proxy", "fail", str(err))
    if Path(command).parent != Path(workshop_dir) / "node_modules" / ".bin":
        return HostCheck("proxy", "warn", f"hub 会用 PATH 上的 {command}（版本未固定）；建议运行 make workshop-deps")
    return HostCheck("proxy", "ok", f"configurable-http-proxy：{command}")


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
    from npulab.workshop.cann_env import find_set_env, read_set_env

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
    """Each participant becomes a Unix account (``accounts.account_name``): the hub must be root and have useradd."""
    euid = os.geteuid() if euid is None else euid
    useradd = shutil.which("useradd") if useradd == "auto" else useradd
    problems = []
    if euid != 0:
        problems.append("hub 需要以 root 运行，才能为每位学员创建账号并以其身份启动服务器（sudo -i 后再启动）")
    if not useradd:
        problems.append("找不到 useradd（Debian/Ubuntu 的 passwd 包）")
    if problems:
        return HostCheck("accounts", "fail", "；".join(problems))
    hashed = {u: accounts.account_name(u) for u in users if accounts.account_name(u) != accounts.PREFIX + u}
    if hashed:
        listing = "、".join(f"{u} → {name}" for u, name in hashed.items())
        return HostCheck("accounts", "warn", f"这些名字不能原样成为 Unix 账号，将改用带散列的账号名：{listing}（"
                         "名单里改用拼音可避免）")
    return HostCheck("accounts", "ok", f"以 root 运行，可为名单上的人创建 {accounts.PREFIX}<名字> 账号")


def hub_checks(settings: WorkshopSettings, users: list[str], *, smi_file: str | None, cpu_only: bool,
               environ: Mapping[str, str] | None = None) -> tuple[list[HostCheck], dict[str, str]]:
    """All of the hub's prerequisites, and CANN's variables (for running a notebook as a seat would)."""
    cann, variables = cann_check(environ, cpu_only=cpu_only)
    checks = [npu_check(smi_file=smi_file, cpu_only=cpu_only), cann, proxy_check(),
              port_check(settings.ip, settings.port), bind_check(settings), accounts_check(users)]
    return checks, variables
