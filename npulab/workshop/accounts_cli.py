"""``python -m npulab workshop accounts passwords|certificate|allow-python|seal|create|list|remove``: the participants' accounts.

Reads the same ``WORKSHOP_*`` variables as the hub (``settings.WorkshopSettings``). ``remove`` is the one
command that undoes a workshop on the server: every account this tool created (with its home and processes),
its device ACL entries, the workshop group and the group's entries on the venv's directories.
"""

from __future__ import annotations

import grp
import os

from npulab.core.cli import UsageError
from npulab.core.paths import REPO_ROOT
from npulab.workshop import access, accounts, device_access, hub_secrets, sealed, tls
from npulab.workshop.settings import WorkshopSettings


def _need_root() -> None:
    if os.geteuid() != 0:
        raise UsageError("须以 root 运行（账号、ACL 与 root 专用的密码文件都需要 root）")


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
    print(f"{'已生成' if created else '已有'}密码文件 {path}（只有 root 可读；hub 启动时读取它）")
    print(f"  学员共用密码：{passwords['participants']}")
    print(f"  讲师（{_settings().admin}）密码：{passwords['instructor']}")
    return 0


def _certificate(args) -> int:
    _need_root()
    settings = _settings()
    if not (settings.ssl_cert and settings.ssl_key):
        raise UsageError("先设置 WORKSHOP_SSL_CERT 与 WORKSHOP_SSL_KEY（证书与私钥的路径；hub 读同样的变量）")
    if settings.ssl_cert.is_file() and settings.ssl_key.is_file():
        print(f"已有证书 {settings.ssl_cert}（SHA-256 指纹 {tls.fingerprint(settings.ssl_cert)}），不改动")
        return 0
    names = [*args.host, *tls.host_names()]
    digest = tls.make_self_signed(settings.ssl_cert, settings.ssl_key, list(dict.fromkeys(names)), days=args.days)
    print(f"已生成自签名证书 {settings.ssl_cert}（私钥 {settings.ssl_key}，0600），{args.days} 天有效，"
          f"适用于：{'、'.join(dict.fromkeys(names))}")
    print(f"SHA-256 指纹：{digest}\n浏览器第一次会提示证书不受信任：请学员核对这个指纹后再继续")
    return 0


def _allow_python(args) -> int:
    _need_root()
    gid = accounts.ensure_group()
    changed = access.grant_access(access.python_paths(), gid)
    left = access.blocked(access.python_paths(), gid)
    for path in changed:
        print(f"已允许工作坊组（{accounts.GROUP}）使用 {path}")
    if left:
        print("仍然无法使用：\n" + access.describe(left))
        return 1
    if not changed:
        print(f"课程的 Python 已可被工作坊组（{accounts.GROUP}）使用，无需改动")
    return 0


def _seal(args) -> int:
    _need_root()
    for path in sealed.seal(REPO_ROOT):
        print(f"已关闭 {path}：只有属主可读（学员账号读不到）")
    left = sealed.unsealed(REPO_ROOT, accounts.ensure_group())
    if left:
        print("仍可被学员账号读取：" + "、".join(map(str, left)))
        return 1
    print("参考答案、讲师指南、生成的网站与 git 历史：学员账号都读不到")
    return 0


def _create(args) -> int:
    _need_root()
    from npulab.workshop.seats import read_roster

    roster = _settings().roster
    if roster is None:
        raise UsageError("没有名单：设置 WORKSHOP_ROSTER（预先创建的账号来自名单）")
    groups = device_access.account_groups(device_access.check_mode(os.environ.get("WORKSHOP_DEVICE_ACCESS", "group")))
    for name in read_roster(roster):
        entry = accounts.ensure_account(name, groups=groups)
        print(f"{name} → {entry.pw_name}（{entry.pw_dir}，0700）")
    return 0


def _list(args) -> int:
    found = accounts.workshop_accounts()
    for entry in found:
        print(f"{entry.pw_name}  uid {entry.pw_uid}  {entry.pw_dir}")
    print(f"共 {len(found)} 个工作坊账号")
    return 0


def _remove(args) -> int:
    _need_root()
    found = accounts.workshop_accounts()
    for entry in found:
        device_access.revoke_user(entry.pw_uid, args.dev_dir)
        accounts.remove_account(entry)
        print(f"已删除 {entry.pw_name} 及其主目录 {entry.pw_dir}")
    try:
        gid = grp.getgrnam(accounts.GROUP).gr_gid
    except KeyError:
        gid = None
    if gid is not None:
        for path in access.revoke_access(access.python_paths(), gid):
            print(f"已收回工作坊组在 {path} 上的权限")
        accounts.remove_group()
    print(f"共删除 {len(found)} 个账号" + ("，以及工作坊组" if gid is not None else ""))
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
