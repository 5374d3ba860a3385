# JupyterHub configuration for a workshop on one shared Ascend server (see workshop/README.md).
#
#     export WORKSHOP_PASSWORD='…'            # participants' shared password (≥ 8 characters)
#     export WORKSHOP_ADMIN_PASSWORD='…'      # the instructor's password (≥ 32 characters, different)
#     export WORKSHOP_NPUS=0,1,2,3,4,5,6,7    # the NPU pool;  WORKSHOP_PER_NPU=2 puts two seats on each
#     jupyterhub -f workshop/jupyterhub_config.py
#
# Everything else is optional (defaults in brackets):
#   WORKSHOP_ROSTER          file with one participant name per line; only they may log in   [anyone with the password]
#   WORKSHOP_ADMIN           the instructor's user name (admin)                              [instructor]
#   WORKSHOP_CANN_SET_ENV    CANN's set_env.sh, read once at hub start                      [/usr/local/Ascend/cann/…,
#                                                                                             then ascend-toolkit/…]
#   WORKSHOP_STATE_DIR       hub database, cookie secret, seat table, participants' homes   [./workshop-state]
#   WORKSHOP_COURSE          course folder copied into each new home (solutions never copied) [this checkout]
#   WORKSHOP_SPAWNER         simple (local processes, advisory NPU choice) or docker (isolated) [simple]
#   WORKSHOP_IMAGE           the container image for the docker spawner (CANN + torch_npu + the course's venv)
#   WORKSHOP_IDLE_MINUTES    a server with no activity for this long shuts itself down        [60]
#   WORKSHOP_MEM_LIMIT / WORKSHOP_CPU_LIMIT  per-participant limits; enforced by the docker spawner only [16G / 4]
#   WORKSHOP_ALLOW_ROOT=1    let single-user servers run as root (only for throwaway test machines)
import os
import sys
from pathlib import Path

from tornado import web

from npulab.course import workshop

c = get_config()  # noqa: F821  (provided by JupyterHub when it loads this file)
env = os.environ
HERE = Path(__file__).resolve().parent
STATE = Path(env.get("WORKSHOP_STATE_DIR", "workshop-state")).resolve()
STATE.mkdir(parents=True, exist_ok=True)
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")

# --- who may log in: a shared password for participants, a separate one for the instructor (admin) ---------
# JupyterHub's SharedPasswordAuthenticator (since 5.3): no system accounts needed. Anyone who knows the
# participants' password can log in under any participant name, so keep the password to the room; for
# per-person passwords use jupyterhub-nativeauthenticator instead (README).
ROSTER = []
if env.get("WORKSHOP_ROSTER"):
    ROSTER = [u.strip() for u in Path(env["WORKSHOP_ROSTER"]).read_text(encoding="utf-8").splitlines() if u.strip()]
ADMIN = env.get("WORKSHOP_ADMIN", "instructor")
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = env.get("WORKSHOP_PASSWORD")
if env.get("WORKSHOP_ADMIN_PASSWORD"):
    c.SharedPasswordAuthenticator.admin_password = env["WORKSHOP_ADMIN_PASSWORD"]
    c.Authenticator.admin_users = {ADMIN}
if ROSTER:
    c.Authenticator.allowed_users = set(ROSTER)
else:
    c.Authenticator.allow_all = True  # anyone with the password, under any name: seats go first come

# --- seats: one NPU (or a share of one) per participant, from the pool ----------------------------------------
POOL = workshop.SeatPool(
    [int(d) for d in env.get("WORKSHOP_NPUS", "0,1,2,3,4,5,6,7").split(",") if d.strip()],
    per_device=int(env.get("WORKSHOP_PER_NPU", "1")),
    roster=ROSTER,
    state_file=STATE / "seats.json",
)

# --- CANN's environment: read set_env.sh once; the spawner would otherwise drop every ASCEND_* variable -------
SET_ENV = workshop.find_set_env(env)
if SET_ENV is not None:
    CANN_ENV = workshop.read_set_env(SET_ENV)
else:  # no script found: pass on whatever CANN variables the hub itself was started with
    CANN_ENV = workshop.inherited_cann_environment(env)
EXTRA_ENV = {"GLOG_v": "4"}  # MindSpore: no C++ log lines in the notebooks

# --- the single-user servers -----------------------------------------------------------------------------------
IDLE_SECONDS = int(float(env.get("WORKSHOP_IDLE_MINUTES", "60")) * 60)
c.Spawner.default_url = "/lab"
c.Spawner.args = [
    f"--ServerApp.shutdown_no_activity_timeout={IDLE_SECONDS}",  # idle culling, done by the server itself
    f"--MappingKernelManager.cull_idle_timeout={IDLE_SECONDS // 2}",
    "--MappingKernelManager.cull_interval=120",
]
if env.get("WORKSHOP_ALLOW_ROOT") == "1":
    c.Spawner.args.append("--ServerApp.allow_root=True")
c.Spawner.mem_limit = env.get("WORKSHOP_MEM_LIMIT", "16G")  # JupyterHub: only spawners that support limits
c.Spawner.cpu_limit = float(env.get("WORKSHOP_CPU_LIMIT", "4"))  # enforce them (docker yes, local processes no)
COURSE = Path(env.get("WORKSHOP_COURSE", HERE.parent))
SPAWNER = env.get("WORKSHOP_SPAWNER", "simple")

if SPAWNER == "docker":
    # Isolation: each container gets only its own /dev/davinciN (workshop.container_options). CANN, torch_npu
    # and the course's Python packages come from the image, so the host's CANN paths are not passed on.
    c.JupyterHub.spawner_class = "docker"
    c.DockerSpawner.image = env["WORKSHOP_IMAGE"]
    c.DockerSpawner.remove = True
    c.DockerSpawner.notebook_dir = "/home/jovyan"
    c.DockerSpawner.volumes = {str(STATE / "homes" / "{username}"): "/home/jovyan"}
    c.JupyterHub.hub_ip = "0.0.0.0"  # containers reach the hub over the docker bridge
else:
    # Local processes under the hub's Unix user: no system accounts, but no isolation between seats either
    # (files and NPUs are reachable by everyone; ASCEND_RT_VISIBLE_DEVICES only says which NPU to use).
    c.JupyterHub.spawner_class = "simple"
    c.SimpleLocalProcessSpawner.home_dir_template = str(STATE / "homes" / "{username}")
    c.Spawner.cmd = [str(Path(sys.executable).with_name("jupyterhub-singleuser"))]


def give_seat(spawner):
    """Before a server starts: take a seat from the pool (or refuse), set its environment, copy the course."""
    user = spawner.user.name
    if user == ADMIN:
        device = None  # the instructor watches; give them a seat by listing them in the roster
    else:
        try:
            device = POOL.seat(user)
        except workshop.SeatError as err:
            raise web.HTTPError(403, str(err), reason="no seat left") from None
    home = STATE / "homes" / user
    home.mkdir(parents=True, exist_ok=True)
    workshop.copy_course(COURSE, home)
    if SPAWNER == "docker":
        environment = dict(EXTRA_ENV)
        if device is not None:
            options = workshop.container_options(device)
            spawner.extra_host_config = {**spawner.extra_host_config, **options["extra_host_config"]}
            spawner.volumes = {**spawner.volumes, **options["volumes"]}
    else:
        environment = dict(EXTRA_ENV, **CANN_ENV)
        if device is not None:
            environment = workshop.seat_environment(CANN_ENV, device, EXTRA_ENV)
    # a fresh dict per spawner: the configured one is shared by every participant
    spawner.environment = {**spawner.environment, **environment}


c.Spawner.pre_spawn_hook = give_seat


# === ws-seats: the seat map for the instructor, a hub service at /services/seats/ (admins only) ================
# npulab/course/workshop/seat_service.py; it reads the same seats.json as `python -m npulab workshop seats`.
# The hub's admin role has access:services, participants' default role does not, so they get a 403.
import os as _os  # noqa: E402  (this block is self-contained: the rest of the file belongs to the hub set-up)
import sys as _sys  # noqa: E402
from pathlib import Path as _Path  # noqa: E402

_SEATS_ENV = {k: _os.environ[k] for k in ("WORKSHOP_NPUS", "WORKSHOP_PER_NPU", "WORKSHOP_ROSTER") if _os.environ.get(k)}
_SEATS_ENV["WORKSHOP_STATE_DIR"] = str(_Path(_os.environ.get("WORKSHOP_STATE_DIR", "workshop-state")).resolve())
_SEATS_ENV["PYTHONPATH"] = str(_Path(__file__).resolve().parent.parent)  # this checkout's npulab
_SERVICES = c.JupyterHub.services if isinstance(c.JupyterHub.services, list) else []  # keep any set above
c.JupyterHub.services = [*_SERVICES, {
    "name": "seats",
    "display": True,  # listed in the hub's Services menu
    "url": "http://127.0.0.1:" + _os.environ.get("WORKSHOP_SEATS_PORT", "10101"),
    "command": [_sys.executable, "-m", "npulab.course.workshop.seat_service"],
    "environment": _SEATS_ENV,
    "oauth_no_confirm": True,
}]
# === end ws-seats ==============================================================================================
