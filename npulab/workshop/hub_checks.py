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

from npulab.core.i18n import t
from npulab.core.paths import REPO_ROOT
from npulab.workshop import accounts, proxy
from npulab.workshop.settings import WorkshopSettings

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
NPU_DEVICE = Path("/dev/davinci_manager")  # present on every host with the Ascend driver loaded


@dataclass
class HostCheck:
    """A check of the server as a whole: id, status (ok/warn/fail/skip) and a message in the reader's language."""

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
        return HostCheck("proxy", "warn", t("workshop.checks.proxy.unpinned", command=command))
    return HostCheck("proxy", "ok", t("workshop.checks.proxy.ok", command=command))


def port_check(ip: str, port: int) -> HostCheck:
    """The hub's address can be bound now (nothing else, e.g. an earlier hub, listens there)."""
    family = socket.AF_INET6 if ":" in ip else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((ip if ip != "localhost" else "127.0.0.1", port))
        except OSError as err:
            return HostCheck("port", "fail", t("workshop.checks.port.taken", ip=ip, port=port, error=err.strerror))
    return HostCheck("port", "ok", t("workshop.checks.port.free", ip=ip, port=port))


def bind_check(settings: WorkshopSettings) -> HostCheck:
    """Either the hub listens on loopback only, or it has TLS (a certificate and a key that exist)."""
    where = f"{settings.ip}:{settings.port}"
    if settings.ip in LOOPBACK:
        return HostCheck("tls", "ok", t("workshop.checks.tls.loopback", where=where))
    missing = [str(p) for p in (settings.ssl_cert, settings.ssl_key) if p is None or not p.is_file()]
    if settings.ssl_cert and settings.ssl_key and not missing:
        return HostCheck("tls", "ok", t("workshop.checks.tls.https", where=where, cert=settings.ssl_cert))
    files = t("workshop.checks.tls.missing", files=t("workshop.checks.list_sep").join(missing)) if settings.ssl_cert else ""
    return HostCheck("tls", "fail", t("workshop.checks.tls.open", where=where, missing=files))


def cann_check(environ: Mapping[str, str] | None = None, *, cpu_only: bool = False) -> tuple[HostCheck, dict[str, str]]:
    """CANN's set_env.sh as the hub finds it, read in a clean environment; its variables for ``--execute``."""
    from npulab.workshop.cann_env import find_set_env, read_set_env

    path = find_set_env(environ)
    if path is None or not Path(path).is_file():
        status = "warn" if cpu_only else "fail"
        return HostCheck("cann", status, t("workshop.checks.cann.missing")
                         + (t("workshop.checks.cann.cpu_ok") if cpu_only else "")), {}
    try:
        variables = read_set_env(path, base={"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root")})
    except (OSError, RuntimeError) as err:
        return HostCheck("cann", "fail", t("workshop.checks.cann.failed", path=path, error=err)), {}
    if not any(k.startswith("ASCEND_") for k in variables):
        return HostCheck("cann", "fail", t("workshop.checks.cann.no_ascend", path=path)), variables
    return HostCheck("cann", "ok", t("workshop.checks.cann.ok", path=path, count=len(variables))), variables


def npu_check(*, smi_file: str | None, cpu_only: bool, device: Path | None = None) -> HostCheck:
    """An Ascend driver on this host (its management device); a saved npu-smi table is not the host itself."""
    device = NPU_DEVICE if device is None else device
    if cpu_only:
        return HostCheck("npu", "skip", t("workshop.checks.npu.cpu_only"))
    if not device.exists():
        source = t("workshop.checks.npu.saved_source", file=smi_file) if smi_file else ""
        return HostCheck("npu", "fail", t("workshop.checks.npu.missing", device=device, source=source))
    note = t("workshop.checks.npu.saved_note", file=smi_file) if smi_file else ""
    return HostCheck("npu", "ok" if not smi_file else "warn", t("workshop.checks.npu.present", device=device, note=note))


def accounts_check(users: Iterable[str], *, euid: int | None = None, useradd: str | None = "auto") -> HostCheck:
    """Each participant becomes a Unix account (``accounts.account_name``): the hub must be root and have useradd."""
    euid = os.geteuid() if euid is None else euid
    useradd = shutil.which("useradd") if useradd == "auto" else useradd
    problems = []
    if euid != 0:
        problems.append(t("workshop.checks.accounts.not_root"))
    if not useradd:
        problems.append(t("workshop.checks.accounts.no_useradd"))
    if problems:
        return HostCheck("accounts", "fail", t("workshop.checks.clause_sep").join(problems))
    hashed = {u: accounts.account_name(u) for u in users if accounts.account_name(u) != accounts.PREFIX + u}
    if hashed:
        listing = t("workshop.checks.list_sep").join(f"{u} → {name}" for u, name in hashed.items())
        return HostCheck("accounts", "warn", t("workshop.checks.accounts.hashed", listing=listing))
    return HostCheck("accounts", "ok", t("workshop.checks.accounts.ok", prefix=accounts.PREFIX))


def hub_checks(settings: WorkshopSettings, users: list[str], *, smi_file: str | None, cpu_only: bool,
               environ: Mapping[str, str] | None = None) -> tuple[list[HostCheck], dict[str, str]]:
    """All of the hub's prerequisites, and CANN's variables (for running a notebook as a seat would)."""
    cann, variables = cann_check(environ, cpu_only=cpu_only)
    checks = [npu_check(smi_file=smi_file, cpu_only=cpu_only), cann, proxy_check(),
              port_check(settings.ip, settings.port), bind_check(settings), accounts_check(users)]
    return checks, variables
