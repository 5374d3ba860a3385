"""``python -m npulab workshop accounts passwords|certificate|allow-python|seal|create|list|remove``: the participants' accounts.

Reads the same ``WORKSHOP_*`` variables as the hub (``settings.WorkshopSettings``). ``remove`` is the one
command that undoes a workshop on the server: every account this tool created (with its home and processes),
its device ACL entries, the workshop group and the group's entries on the venv's directories.
"""

from __future__ import annotations

import grp
import os

from npulab.core.cli import UsageError
from npulab.core.i18n import t
from npulab.core.paths import REPO_ROOT
from npulab.workshop import access, accounts, device_access, hub_secrets, sealed, tls
from npulab.workshop.settings import WorkshopSettings


def _need_root() -> None:
    if os.geteuid() != 0:
        raise UsageError(t("workshop.tools.accounts.need_root"))


def _settings() -> WorkshopSettings:
    try:
        return WorkshopSettings.from_env()
    except ValueError as err:
        raise UsageError(str(err)) from None


def _passwords(args) -> int:
    _need_root()
    path, created = hub_secrets.ensure_passwords(_settings().state_dir)
    try:
        passwords = hub_secrets.read_passwords(path)
    except hub_secrets.SecretsError as err:
        print(err)
        return 1
    print(t("workshop.tools.accounts.passwords_new", path=path) if created else t("workshop.tools.accounts.passwords_old", path=path))
    print(t("workshop.tools.accounts.participants_password", password=passwords["participants"]))
    print(t("workshop.tools.accounts.instructor_password", admin=_settings().admin, password=passwords["instructor"]))
    return 0


def _certificate(args) -> int:
    _need_root()
    settings = _settings()
    if not (settings.ssl_cert and settings.ssl_key):
        raise UsageError(t("workshop.tools.accounts.need_cert_paths"))
    if settings.ssl_cert.is_file() and settings.ssl_key.is_file():
        print(t("workshop.tools.accounts.cert_exists", cert=settings.ssl_cert, fingerprint=tls.fingerprint(settings.ssl_cert)))
        return 0
    names = [*args.host, *tls.host_names()]
    digest = tls.make_self_signed(settings.ssl_cert, settings.ssl_key, list(dict.fromkeys(names)), days=args.days)
    print(t("workshop.tools.accounts.cert_made", cert=settings.ssl_cert, private_key=settings.ssl_key, days=args.days,
            names=t("workshop.tools.list_sep").join(dict.fromkeys(names))))
    print(t("workshop.tools.accounts.cert_fingerprint", fingerprint=digest))
    return 0


def _allow_python(args) -> int:
    _need_root()
    gid = accounts.ensure_group()
    changed = access.grant_access(access.python_paths(), gid)
    left = access.blocked(access.python_paths(), gid)
    for path in changed:
        print(t("workshop.tools.accounts.python_allowed", group=accounts.GROUP, path=path))
    if left:
        print(t("workshop.tools.accounts.python_blocked", details=access.describe(left)))
        return 1
    if not changed:
        print(t("workshop.tools.accounts.python_ok", group=accounts.GROUP))
    return 0


def _seal(args) -> int:
    _need_root()
    for path in sealed.seal(REPO_ROOT):
        print(t("workshop.tools.accounts.sealed", path=path))
    left = sealed.unsealed(REPO_ROOT, accounts.ensure_group())
    if left:
        print(t("workshop.tools.accounts.still_open", paths=t("workshop.tools.list_sep").join(map(str, left))))
        return 1
    print(t("workshop.tools.accounts.all_sealed"))
    return 0


def _create(args) -> int:
    _need_root()
    from npulab.workshop.seats import read_roster

    roster = _settings().roster
    if roster is None:
        raise UsageError(t("workshop.tools.accounts.no_roster"))
    groups = device_access.account_groups(device_access.check_mode(os.environ.get("WORKSHOP_DEVICE_ACCESS", "group")))
    for name in read_roster(roster):
        entry = accounts.ensure_account(name, groups=groups)
        print(t("workshop.tools.accounts.created", name=name, account=entry.pw_name, home=entry.pw_dir))
    return 0


def _list(args) -> int:
    found = accounts.workshop_accounts()
    for entry in found:
        print(t("workshop.tools.accounts.listed", account=entry.pw_name, uid=entry.pw_uid, home=entry.pw_dir))
    print(t("workshop.tools.accounts.count", count=len(found)))
    return 0


def _remove(args) -> int:
    _need_root()
    found = accounts.workshop_accounts()
    for entry in found:
        device_access.revoke_user(entry.pw_uid, args.dev_dir)
        accounts.remove_account(entry)
        print(t("workshop.tools.accounts.removed", account=entry.pw_name, home=entry.pw_dir))
    try:
        gid = grp.getgrnam(accounts.GROUP).gr_gid
    except KeyError:
        gid = None
    if gid is not None:
        for path in access.revoke_access(access.python_paths(), gid):
            print(t("workshop.tools.accounts.revoked", path=path))
        accounts.remove_group()
    print(t("workshop.tools.accounts.removed_count", count=len(found))
          + (t("workshop.tools.accounts.removed_group") if gid is not None else ""))
    return 0


def build_parser(parser) -> None:
    """Add the sub-commands of ``workshop accounts``."""
    from npulab.core.cli import CourseArgumentParser

    inner = parser.add_subparsers(dest="accounts_tool", metavar="<command>", parser_class=CourseArgumentParser)
    inner.required = True
    inner.add_parser("passwords", help="生成（或显示）root 专用的密码文件 $WORKSHOP_STATE_DIR/passwords"
                     ).set_defaults(run=_passwords)
    cert = inner.add_parser("certificate", help="没有机构的证书时，为 hub 生成自签名 TLS 证书（写到 WORKSHOP_SSL_CERT / _KEY）")
    cert.add_argument("--host", action="append", default=[], help="学员输入的主机名或 IP（可重复；本机名与 127.0.0.1 总在内）")
    cert.add_argument("--days", type=int, default=30, help="有效天数（默认 30）")
    cert.set_defaults(run=_certificate)
    inner.add_parser("allow-python", help="让学员账号能用课程的 venv 及其 Python（只加必要的 ACL）"
                     ).set_defaults(run=_allow_python)
    inner.add_parser("seal", help="关闭检出目录里只属于讲师的部分：参考答案、讲师指南、_build 与 git 历史"
                     ).set_defaults(run=_seal)
    inner.add_parser("create", help="按名单预先创建账号 jupyter-<名字>（否则首次登录时创建）").set_defaults(run=_create)
    inner.add_parser("list", help="列出工作坊创建的账号").set_defaults(run=_list)
    rm = inner.add_parser("remove", help="删除所有工作坊账号及其主目录、进程、设备权限和工作坊组")
    rm.add_argument("--dev-dir", default=os.environ.get("WORKSHOP_DEV_DIR", "/dev"), help="设备目录（默认 /dev）")
    rm.set_defaults(run=_remove)
