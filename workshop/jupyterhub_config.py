# JupyterHub configuration for a workshop on one shared Ascend server: the steps are in workshop/README.md.
# A thin file: each concern is a module of npulab.workshop; this file only wires them.
#
# Run as root from the course checkout: the hub and its proxy run as root and start each participant's server
# as that participant's own Unix account, jupyter-<name>, created at their first login.
#
#     .venv/bin/python -m npulab workshop accounts passwords   # once: $WORKSHOP_STATE_DIR/passwords, root-only
#     .venv/bin/jupyterhub -f workshop/jupyterhub_config.py
#
# Settings (defaults in brackets):
#   WORKSHOP_STATE_DIR      hub database, cookie secret, passwords, seat table; made mode 0700   [./workshop-state]
#   WORKSHOP_ROSTER         one participant name per line; only they (and the instructor) may log in [anyone]
#   WORKSHOP_NPUS / WORKSHOP_PER_NPU   the NPU pool and seats per NPU                            [0,…,7 / 1]
#   WORKSHOP_IP / WORKSHOP_PORT        where participants connect (0.0.0.0: every interface)  [127.0.0.1 / 8000]
#   WORKSHOP_SSL_CERT / WORKSHOP_SSL_KEY  TLS; required for a bind beyond loopback (accounts certificate) [none]
#   WORKSHOP_HUB_PORT / WORKSHOP_PROXY_API_PORT  the hub's and proxy's internal ports (127.0.0.1)  [8081 / 8001]
#   WORKSHOP_ADMIN          the instructor's user name (admin, no seat unless on the roster)       [instructor]
#   WORKSHOP_SPAWNER        accounts (one Unix account each) or docker (one container each)       [accounts]
#   WORKSHOP_DEVICE_ACCESS  group (HwHiAiUser: every card) or seat (ACL: only the seat's card) or none [group]
#   WORKSHOP_CANN_SET_ENV   CANN's set_env.sh; WORKSHOP_NNAL_SET_ENV NNAL's          [found: README, "CANN"]
#   WORKSHOP_COURSE         course copied into each new home (solutions never copied)          [this checkout]
#   WORKSHOP_IMAGE          the docker spawner's image (workshop/Dockerfile)
#   WORKSHOP_IDLE_MINUTES   a server idle this long shuts itself down                                [60]
#   WORKSHOP_START_SECONDS  how long a server may take to start and answer                          [180]
#   WORKSHOP_MEM_LIMIT / WORKSHOP_CPU_LIMIT  per participant; enforced by the docker spawner only      [16G / 4]
import os
import sys
from pathlib import Path

from jupyterhub.spawner import SpawnException

from npulab import workshop
from npulab.workshop import (
    access,
    accounts,
    cann_env,
    course_copy,
    device_access,
    hub_checks,
    hub_secrets,
    proxy,
    sealed,
    server_args,
)
from npulab.workshop import spawner as local_spawner

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)
env = os.environ
HERE = Path(__file__).resolve().parent
VENV = Path(sys.prefix)
SETTINGS = workshop.WorkshopSettings.from_env(env)
SPAWNER = env.get("WORKSHOP_SPAWNER", "accounts")
DEVICES = device_access.check_mode(env.get("WORKSHOP_DEVICE_ACCESS", "group"))
DEV_DIR = env.get("WORKSHOP_DEV_DIR", "/dev")  # tests point this at stand-in device files


def say(message, warn=False):
    """A line in the hub's log (the config is read before JupyterHub's own logging starts); warnings framed."""
    line = "[工作坊] " + ("" if not warn or message.startswith("警告") else "警告！") + message
    frame = "[工作坊] " + "！" * 40
    print(*([frame, line, frame] if warn else [line]), sep="\n", file=sys.stderr, flush=True)


def refuse(message):
    say(message, warn=True)
    raise SystemExit(2)


# --- the hub: root, a private state folder, the proxy, where participants connect ------------------------------
if SPAWNER not in ("accounts", "docker"):
    refuse(f"WORKSHOP_SPAWNER 只能是 accounts 或 docker，收到 {SPAWNER!r}")
if SPAWNER == "accounts" and os.geteuid() != 0:
    refuse("hub 须以 root 运行（sudo -i 后再启动）：它为每位学员创建 jupyter-<名字> 账号，并以该账号启动学员的服务器")
os.umask(0o077)  # everything the hub writes (database, pid file, logs) is root's alone
STATE = hub_secrets.private_dir(SETTINGS.state_dir)
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")  # not in the checkout (the default: cwd)
try:
    c.ConfigurableHTTPProxy.command = proxy.find_proxy(HERE, env)
except proxy.ProxyMissing as err:
    refuse(str(err))
BIND = hub_checks.bind_check(SETTINGS)  # beyond loopback only with TLS: the shared password is sent at every login
if BIND.status == "fail":
    refuse(BIND.message)
c.JupyterHub.bind_url = f"{'https' if SETTINGS.ssl_cert else 'http'}://{SETTINGS.ip}:{SETTINGS.port}"
if SETTINGS.ssl_cert:
    c.JupyterHub.ssl_cert, c.JupyterHub.ssl_key = str(SETTINGS.ssl_cert), str(SETTINGS.ssl_key)
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.template_paths = [str(HERE / "templates")]  # the login and error pages in Chinese
c.JupyterHub.hub_port = int(env.get("WORKSHOP_HUB_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(env.get('WORKSHOP_PROXY_API_PORT', '8001'))}"
say(f"学员访问 {c.JupyterHub.bind_url}/ （hub 内部端口 {c.JupyterHub.hub_port}，代理 API {c.ConfigurableHTTPProxy.api_url}）")

# --- who may log in: a shared password for participants, another for the instructor (admin) ----------------
# JupyterHub's SharedPasswordAuthenticator (since 5.3). The passwords come from the root-only file, never from
# the environment (a variable removed from os.environ stays readable in /proc/<pid>/environ).
if hub_secrets.pop_secrets(env, ("WORKSHOP_PASSWORD", "WORKSHOP_ADMIN_PASSWORD", "CONFIGPROXY_AUTH_TOKEN")):
    say("WORKSHOP_PASSWORD / WORKSHOP_ADMIN_PASSWORD / CONFIGPROXY_AUTH_TOKEN 已忽略：密码只从 root 专用的密码文件读取，"
        "代理令牌由 hub 自己生成", warn=True)
try:
    PASSWORDS = hub_secrets.read_passwords(STATE / hub_secrets.PASSWORDS_FILE)
except hub_secrets.SecretsError as err:
    refuse(str(err))
ROSTER = workshop.read_roster(SETTINGS.roster) if SETTINGS.roster else []  # normalised as JupyterHub does
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = PASSWORDS["participants"]
c.SharedPasswordAuthenticator.admin_password = PASSWORDS["instructor"]
c.Authenticator.admin_users = {SETTINGS.admin}
if ROSTER:
    c.Authenticator.allowed_users = set(ROSTER)
else:
    c.Authenticator.allow_all = True  # anyone with the password, under any name: seats go first come

# --- seats: one NPU (or a share of one) per participant ---------------------------------------------------------
POOL = workshop.SeatPool(SETTINGS.npus, per_device=SETTINGS.per_npu, roster=ROSTER, state_file=SETTINGS.seats_file)

# --- CANN's environment: set_env.sh (and NNAL's) read once, in a clean environment --------------------------------
SET_ENV, CANN_ENV, CANN_LOG = cann_env.load_cann(env, venv_bin=VENV / "bin")
say(CANN_LOG, warn=not CANN_ENV)
EXTRA_ENV = {"GLOG_v": "4"}  # MindSpore: no C++ log lines in the notebooks

# --- the single-user servers ------------------------------------------------------------------------------------
IDLE_SECONDS = int(float(env.get("WORKSHOP_IDLE_MINUTES", server_args.DEFAULT_IDLE_MINUTES)) * 60)
c.Spawner.default_url = "/lab"
c.Spawner.args = server_args.server_args(IDLE_SECONDS)  # idle culling; kernels over ipc (server_args.py)
# a room logging in at once on a shared server: a server may take a minute to import JupyterLab (defaults 60 / 30 s)
c.Spawner.start_timeout = c.Spawner.http_timeout = int(env.get("WORKSHOP_START_SECONDS", "180"))
c.Spawner.mem_limit = env.get("WORKSHOP_MEM_LIMIT", "16G")  # JupyterHub: only spawners that support limits
c.Spawner.cpu_limit = float(env.get("WORKSHOP_CPU_LIMIT", "4"))  # enforce them (docker yes, local processes no)
COURSE = Path(env.get("WORKSHOP_COURSE", HERE.parent))

if SPAWNER == "docker":
    # Isolation: each container gets only its own /dev/davinciN (workshop.container_options). CANN, torch_npu
    # and the course's Python packages come from the image (workshop/Dockerfile), not from the host.
    c.JupyterHub.spawner_class = "docker"
    c.DockerSpawner.image = env["WORKSHOP_IMAGE"]
    c.DockerSpawner.remove = True
    c.DockerSpawner.notebook_dir = "/home/jovyan"
    c.DockerSpawner.volumes = {str(STATE / "homes" / "{username}"): "/home/jovyan"}
    c.JupyterHub.hub_ip = "0.0.0.0"  # containers reach the hub over the docker bridge
else:
    GID = accounts.ensure_group()
    BLOCKED = access.blocked(access.python_paths(), GID)
    if BLOCKED:
        refuse("学员的账号用不了课程的 Python：\n" + access.describe(BLOCKED) + "\n运行 .venv/bin/python -m npulab "
               "workshop accounts allow-python（只给工作坊组这些目录的 x / r-x 权限），或用 /usr/bin/python3.11 "
               "在 /srv 之类的目录重建 venv（README「安装」）")
    OPEN = sealed.unsealed(HERE.parent, GID)
    if OPEN:
        refuse("学员的账号能读到只属于讲师的内容：" + "、".join(map(str, OPEN)) + "\n运行 .venv/bin/python -m npulab "
               "workshop accounts seal（参考答案、讲师指南、_build 与 git 历史只留给属主）")
    c.JupyterHub.spawner_class = local_spawner.AccountSpawner
    c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
    c.Spawner.env_keep = list(local_spawner.KEEP)


def refuse_spawn(message, reason):
    """Stop a server from starting with a Chinese message the participant reads (spawn page, API, progress page)."""
    # JupyterHub 6's SpawnException: its message is what the spawn page and the API show; jupyterhub_message is what
    # the progress page ("Spawn failed: …") and a later visit to /user/<name> show
    refusal = SpawnException(message, reason=reason, status_code=403)
    refusal.jupyterhub_message = message
    raise refusal from None


def give_seat(spawner):
    """Before a server starts: a seat (or a refusal the participant reads), the account, the home, the environment."""
    user = spawner.user.name
    seat = {}
    if user == SETTINGS.admin and user not in ROSTER:
        refuse_spawn(f"讲师账号（{user}）不占座位，也不启动自己的服务器（不会为它创建 Unix 账号）：在 /hub/admin 查看与"
                     "管理学员。要自己试一个座位，把这个名字加进名单（WORKSHOP_ROSTER）后重启 hub", "instructor")
    else:
        try:
            entry = POOL.entry(user)
        except workshop.SeatError as err:
            refuse_spawn(str(err), "no-seat")
        seat = {**POOL.variables(user), cann_env.VISIBLE_ENV: str(entry.device)}
    if SPAWNER == "docker":
        home = STATE / "homes" / user
        home.mkdir(parents=True, exist_ok=True)
        workshop.copy_course(COURSE, home)
        if seat:
            options = workshop.container_options(entry.device)
            spawner.extra_host_config = {**spawner.extra_host_config, **options["extra_host_config"]}
            spawner.volumes = {**spawner.volumes, **options["volumes"]}
        seat.pop(cann_env.VISIBLE_ENV, None)  # the container sees only its own NPU, as its device 0
        spawner.environment = {**spawner.environment, **EXTRA_ENV, **seat}
        return
    account = accounts.ensure_account(user, groups=device_access.account_groups(DEVICES))
    home = Path(account.pw_dir)
    if workshop.copy_course(COURSE, home) is not None:
        course_copy.copy_lab_settings(HERE.parent, home)
        accounts.chown_tree(home, account)
    if DEVICES == "seat" and seat:
        device_access.grant_seat(account.pw_uid, [entry.device], DEV_DIR)
    # a fresh dict per spawner: the configured one is shared by every participant
    spawner.environment = {**spawner.environment, **local_spawner.server_environment(CANN_ENV, VENV, seat, EXTRA_ENV)}


c.Spawner.pre_spawn_hook = give_seat


def landing_page(handler):
    """Where a login lands: the instructor (unless seated on the roster) on the admin page; "" for JupyterHub's default
    (a participant's own server)."""
    user = handler.current_user
    if user is not None and user.name == SETTINGS.admin and user.name not in ROSTER:
        return handler.hub.base_url + "admin"
    return ""


c.JupyterHub.default_url = landing_page


# --- the seat map for the instructor: a hub service at /services/seats/ (admins only) -----------------------------
# npulab/workshop/seat_service.py reads the same seats.json as `python -m npulab workshop seats`; the hub's
# admin role has access:services, participants' default role does not, so they get a 403.
SEATS_ENV = {k: env[k] for k in ("WORKSHOP_NPUS", "WORKSHOP_PER_NPU", "WORKSHOP_ROSTER") if env.get(k)}
SEATS_ENV["WORKSHOP_STATE_DIR"] = str(STATE)
SEATS_ENV["PYTHONPATH"] = str(HERE.parent)  # this checkout's npulab
c.JupyterHub.services = [{
    "name": "seats",
    "display": True,  # listed in the hub's Services menu
    "url": "http://127.0.0.1:" + env.get("WORKSHOP_SEATS_PORT", "10101"),
    "command": [sys.executable, "-m", "npulab.workshop.seat_service"],
    "environment": SEATS_ENV,
    "oauth_no_confirm": True,
}]
