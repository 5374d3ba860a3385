"""The workshop hub, live, started exactly as ``workshop/README.md`` documents it: real JupyterHub, proxy, accounts.

The test reads the README's start block and clean-up block, changes only the values of the variables it exports
(a 127.0.0.1 bind, a free port, temporary folders, ``WORKSHOP_DEVICE_ACCESS=seat`` on stand-in device files),
the checkout folder and the venv's path, and runs them in a bash that already sourced a synthetic CANN
``set_env.sh`` (``npulab.testing.synthetic_cann``). The roster has a capitalised name ("Tina"). Tina and Tom
log in through the shared-password authenticator; the hub creates their accounts ``jupyter-tina`` and
``jupyter-tom``; each kernel reports its account, seat, CANN's variables and the venv first on PATH; Tess is
refused a seat in Chinese, in the browser page and the API. From Tina's kernel, reading the hub's and the
proxy's environment, the cookie secret, the database, the passwords, Tom's home and server environment and the
solutions all fail, and so does reading a solution through the checkout's git history (``accounts seal``); no
secret is visible in any process she can inspect, she opens only her own stand-in NPU, and her terminal runs as
``jupyter-tina``. While Tom's kernel prints, her kernel connects to every socket his kernels listen on (Unix
sockets under his home, TCP ports of his uid) and hears nothing, while the same listener hears her own kernel
(with the default TCP transport it heard Tom's output). The hub serves HTTPS with the README's own certificate. Then the hub is stopped, the clean-up block removes the accounts, and the test checks that nothing started
is left running and that no account, group or ACL entry is left behind.

Needs root (the hub creates accounts), ``useradd`` and ``workshop/node_modules`` (``make workshop-deps``);
skipped without them unless ``NPULAB_REQUIRE_HUB=1`` (set by ``make test``), which turns the skip into a failure.
"""

from __future__ import annotations

import grp
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest
import requests
import websocket

from npulab.core.paths import REPO_ROOT
from npulab.testing.rehearsal import make_rehearsal
from npulab.workshop import access, accounts, posix_acl

# real Unix accounts: never at the same time as the other module that creates them (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("unix-accounts")

README = REPO_ROOT / "workshop" / "README.md"
CHP = REPO_ROOT / "workshop" / "node_modules" / ".bin" / "configurable-http-proxy"
VENV = Path(sys.prefix)
ROSTER = ["Tina", "tom", "tess"]  # two NPUs, one seat each: Tess is beyond capacity
SOLUTION = "notebooks/solutions/03_pytorch_lab_solution.ipynb"  # committed: what git would give away
BUDGET_S = 240  # the whole scenario; the timeline it prints says where the time goes (load matters: see README)


def _require(condition: bool, why: str) -> None:
    if condition:
        return
    if os.environ.get("NPULAB_REQUIRE_HUB") == "1":
        pytest.fail(why)
    pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def readme_block(marker: str) -> list[str]:
    """The command lines of the bash block that follows ``<!-- workshop:<marker>`` in the README."""
    text = README.read_text(encoding="utf-8")
    m = re.search(rf"<!-- workshop:{marker}\b.*?-->\s*```bash\n(.*?)```", text, re.S)
    assert m, f"workshop/README.md has no block marked workshop:{marker}"
    return [line.split(" #")[0].rstrip() for line in m.group(1).splitlines() if line.strip()]


def substitute(lines: list[str], values: dict[str, str]) -> list[str]:
    """The README's commands with the test's values: every exported variable, the checkout, the venv."""
    out = []
    for line in lines:
        if line.startswith("cd "):
            line = f"cd {shlex.quote(str(REPO_ROOT))}"
        elif line.startswith("export "):
            pairs = []
            for assignment in shlex.split(line[len("export "):]):
                name = assignment.split("=", 1)[0]
                assert name in values, f"the README exports {name}: the live test has no test value for it"
                pairs.append(f"{name}={shlex.quote(values[name])}")
            line = "export " + " ".join(pairs)
        out.append(line.replace(".venv/bin/", f"{VENV}/bin/"))
    return out


class Deadline:
    def __init__(self, seconds: float):
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError("the live hub scenario ran over its time budget")
        return left


def _wait_for(check, deadline: Deadline, interval: float = 0.2):
    while True:
        deadline.left()
        try:
            value = check()
        except (requests.ConnectionError, OSError):  # not listening yet; OSError: its certificate not written yet
            value = None
        if value:
            return value
        time.sleep(interval)


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _still_running(pids, wait_s: float) -> list[int]:
    end = time.monotonic() + wait_s
    alive = [p for p in pids if _running(p)]
    while alive and time.monotonic() < end:
        time.sleep(0.2)
        alive = [p for p in alive if _running(p)]
    return alive


def _login(base: str, user: str, password: str) -> requests.Session:
    s = requests.Session()
    s.get(f"{base}/hub/login", timeout=10)
    r = s.post(f"{base}/hub/login", data={"username": user, "password": password, "_xsrf": s.cookies.get("_xsrf")},
               allow_redirects=False, timeout=10)
    s.login_status, s.landing = r.status_code, r.headers.get("Location", "")
    s.login_page = r.content.decode("utf-8")  # <meta charset="utf-8">; the header names no charset
    return s


def _token(s: requests.Session, base: str, user: str) -> str:
    r = s.post(f"{base}/hub/api/users/{user}/tokens", headers={"X-XSRFToken": s.cookies.get("_xsrf")},
               json={"note": "live hub test", "expires_in": 600}, timeout=10)
    r.raise_for_status()
    return r.json()["token"]


def _websocket(base: str, path: str, token: str, deadline: Deadline):
    """A websocket to the hub over TLS, trusting the hub's own certificate (as requests does: REQUESTS_CA_BUNDLE)."""
    return websocket.create_connection(base.replace("https://", "wss://") + path, header=[f"Authorization: token {token}"],
                                       timeout=deadline.left(), sslopt={"ca_certs": os.environ["REQUESTS_CA_BUNDLE"]})


def _send(base: str, user: str, token: str, code: str, deadline: Deadline):
    """Start a kernel in ``user``'s server and send it ``code`` over the kernel websocket; (websocket, message id)."""
    auth = {"Authorization": f"token {token}"}
    r = requests.post(f"{base}/user/{user}/api/kernels", headers=auth, json={"name": "python3"}, timeout=30)
    r.raise_for_status()
    kernel = r.json()["id"]
    ws = _websocket(base, f"/user/{user}/api/kernels/{kernel}/channels", token, deadline)
    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({
        "header": {"msg_id": msg_id, "username": user, "session": uuid.uuid4().hex, "msg_type": "execute_request",
                   "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True},
    }))
    return ws, msg_id


def _execute(base: str, user: str, token: str, code: str, deadline: Deadline) -> dict:
    """Start a kernel in ``user``'s server, run ``code`` over the kernel websocket, return its last line as JSON."""
    ws, msg_id = _send(base, user, token, code, deadline)
    out, errors = [], []
    try:
        while True:
            ws.settimeout(deadline.left())
            msg = json.loads(ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["msg_type"]
            if kind == "stream":
                out.append(msg["content"]["text"])
            elif kind == "error":
                errors.append("\n".join(msg["content"]["traceback"]))
            elif kind == "status" and msg["content"]["execution_state"] == "idle":
                break
    finally:
        ws.close()
    assert not errors, errors
    return json.loads("".join(out).strip().splitlines()[-1])


def _terminal_user(base: str, user: str, token: str, deadline: Deadline) -> str:
    """Open a terminal in ``user``'s server, run ``id -un`` in it, return what it printed."""
    auth = {"Authorization": f"token {token}"}
    r = requests.post(f"{base}/user/{user}/api/terminals", headers=auth, timeout=30)
    r.raise_for_status()
    name = r.json()["name"]
    ws = _websocket(base, f"/user/{user}/terminals/websocket/{name}", token, deadline)
    seen = ""
    try:
        ws.send(json.dumps(["stdin", "echo WHO=$(id -un)=\r"]))
        while (m := re.search(r"WHO=([a-z0-9_-]+)=", seen)) is None:
            ws.settimeout(deadline.left())
            kind, *data = json.loads(ws.recv())
            if kind == "stdout":
                seen += data[0]
    finally:
        ws.close()
        requests.delete(f"{base}/user/{user}/api/terminals/{name}", headers=auth, timeout=10)
    return m.group(1)


# Run in each participant's kernel: who am I, what did the hub give me, and what can I reach.
PROBE = """
import json, os, pwd, shutil, stat, pathlib
probe = json.loads({probe!r})
def attempt(path, write=False):
    try:
        if os.path.isdir(path):
            os.listdir(path)
        else:
            with open(path, "r+b" if write else "rb") as f:
                f.read(1)
        return "ok"
    except OSError as err:
        return type(err).__name__
import subprocess
shown = subprocess.run(["git", "-c", "safe.directory=*", "-C", probe["repo"], "show", "HEAD:" + probe["solution"]],
                       capture_output=True, text=True)  # the solutions through the checkout's git history
visible = []  # secrets found in any /proc/<pid>/environ or cmdline this account can read
for pid in filter(str.isdigit, os.listdir("/proc")):
    for part in ("environ", "cmdline"):
        try:
            data = open(f"/proc/{{pid}}/{{part}}", "rb").read().decode(errors="replace")
        except OSError:
            continue
        visible += [f"{{name}} in /proc/{{pid}}/{{part}}" for name, value in probe["secrets"].items() if value in data]
import npulab_synthetic_cann  # only importable when set_env.sh's PYTHONPATH reached the kernel
home = pathlib.Path.home()
names = ["ASCEND_RT_VISIBLE_DEVICES", "ASCEND_HOME_PATH", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH", "TOOLCHAIN_HOME",
         "ASCEND_TOOLKIT_HOME", "LD_LIBRARY_PATH", "JUPYTERHUB_USER", "GLOG_v", "NPULAB_WORKSHOP_SEAT",
         "NPULAB_SEAT_DEVICES", "NPULAB_SEAT_PORT", "VIRTUAL_ENV", "PATH"]
print(json.dumps({{
    "account": pwd.getpwuid(os.getuid()).pw_name, "home": str(home), "home_mode": oct(stat.S_IMODE(home.stat().st_mode)),
    "env": {{n: os.environ.get(n) for n in names}}, "python": shutil.which("python"), "cann_marker": npulab_synthetic_cann.VERSION,
    "labs": sorted(p.name for p in (home / "course" / "notebooks").glob("*_lab.ipynb")),
    "solutions_copied": (home / "course" / "notebooks" / "solutions").exists(),
    "lab_locale": json.loads((home / ".jupyter/lab/user-settings/@jupyterlab/translation-extension/plugin.jupyterlab-settings").read_text())["locale"],
    "reach": {{name: attempt(path) for name, path in probe["forbidden"].items()}},
    "devices": {{name: attempt(path, write=True) for name, path in probe["devices"].items()}},
    "secrets_visible": visible, "pid": os.getpid(), "git_solution": shown.returncode == 0 and bool(shown.stdout),
}}))
"""


# Run in one participant's kernel while another's kernel prints: connect to every socket the other account's kernels
# listen on (Unix sockets under their home, TCP ports their uid listens on) and listen for IOPub messages. The same
# listener on this kernel's own IOPub socket must hear this kernel's output: the attack itself works.
ATTACK = """
import json, pwd, socket, time, zmq
from ipykernel import get_connection_file
other = pwd.getpwnam({account!r})
unix_paths = sorted({{line.split()[-1] for line in open("/proc/net/unix").read().splitlines()[1:]
                     if len(line.split()) >= 8 and line.split()[-1].startswith(other.pw_dir + "/")}})
def unix_connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return "connected"
    except OSError as err:
        return type(err).__name__
    finally:
        s.close()
tcp_ports = sorted({{int(f[1].rsplit(":", 1)[1], 16) for table in ("/proc/net/tcp", "/proc/net/tcp6")
                    for f in (line.split() for line in open(table).read().splitlines()[1:])
                    if f[3] == "0A" and int(f[7]) == other.pw_uid}})
ctx = zmq.Context()
def listener(address):
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.setsockopt(zmq.LINGER, 0)
    sub.connect(address)
    return sub
def heard(subs, seconds, talk=None):
    poller, got, end, next_talk = zmq.Poller(), 0, time.time() + seconds, 0.0
    for sub in subs:
        poller.register(sub, zmq.POLLIN)
    while time.time() < end:
        if talk and time.time() >= next_talk:
            talk()
            next_talk = time.time() + 0.2
        for sub, _ in poller.poll(100):
            sub.recv_multipart()
            got += 1
    return got
stolen = heard([listener(f"tcp://127.0.0.1:{{p}}") for p in tcp_ports] + [listener("ipc://" + p) for p in unix_paths], 4)
own = json.load(open(get_connection_file()))
own_address = (f"ipc://{{own['ip']}}-{{own['iopub_port']}}" if own["transport"] == "ipc"
               else f"tcp://{{own['ip']}}:{{own['iopub_port']}}")
own_heard = heard([listener(own_address)], 3, talk=lambda: print("self-check", flush=True))
print(json.dumps({{"unix": {{p: unix_connect(p) for p in unix_paths}}, "tcp_ports": tcp_ports, "stolen": stolen,
                  "own_transport": own["transport"], "own_heard": own_heard}}))
"""
CHATTER = "import time\nfor i in range(100):\n    print('private output', i, flush=True)\n    time.sleep(0.1)\n"


def _acl_snapshot() -> dict[str, list]:
    return {str(p): posix_acl.read_acl(p) for p in access._needs(access.python_paths()) if p.exists()}


@pytest.fixture
def live_hub(tmp_path, monkeypatch):
    _require(os.geteuid() == 0, "the workshop hub runs as root (it creates one Unix account per participant)")
    _require(shutil.which("useradd") is not None, "useradd is missing (package passwd)")
    _require((VENV / "bin" / "jupyterhub").exists(), f"jupyterhub is not installed in {VENV}")
    _require(CHP.exists(), "configurable-http-proxy is not installed; run `make workshop-deps` (npm)")
    if accounts.workshop_accounts():
        pytest.fail("this machine already has workshop accounts (a workshop in progress?): the live test removes "
                    "every workshop account at the end, so it does not run here")
    acl_before = _acl_snapshot()
    base = Path(tempfile.mkdtemp(prefix="npulab-live-hub-"))
    # the documented rehearsal (README): a synthetic CANN and stand-in device nodes, root:root 0660 like the real
    # ones (root:HwHiAiUser); the folder is readable by the accounts, like /srv: the state is protected by its 0700
    rehearsal = make_rehearsal(base, [4, 5], layout="legacy", version="8.0.0")
    root, dev = base / "Ascend", Path(rehearsal["WORKSHOP_DEV_DIR"])
    roster = base / "roster.txt"
    roster.write_text("\n".join(ROSTER) + "\n", encoding="utf-8")
    port = _free_port()
    values = {"WORKSHOP_STATE_DIR": str(base / "state"), "WORKSHOP_ROSTER": str(roster), "WORKSHOP_NPUS": "4,5",
              "WORKSHOP_PER_NPU": "1", "WORKSHOP_IP": "127.0.0.1", "WORKSHOP_PORT": str(port),
              "WORKSHOP_DEVICE_ACCESS": "seat", "WORKSHOP_SSL_CERT": str(base / "tls" / "hub.crt"),
              "WORKSHOP_SSL_KEY": str(base / "tls" / "hub.key")}
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", values["WORKSHOP_SSL_CERT"])  # the README's own certificate is trusted
    start = substitute(readme_block("start"), values)
    assert start[-1].startswith(f"{VENV}/bin/jupyterhub "), "the start block ends by starting the hub"
    script = base / "start.sh"
    script.write_text("\n".join([
        "set -e",
        f"source {shlex.quote(rehearsal['WORKSHOP_CANN_SET_ENV'])}  # the shell already loaded CANN",
        f"export WORKSHOP_HUB_PORT={_free_port()} WORKSHOP_PROXY_API_PORT={_free_port()} WORKSHOP_DEV_DIR={dev}",
        *start[:-1], "exec " + start[-1], ""]), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASCEND_", "WORKSHOP_", "NPULAB_SEAT"))}
    log = (base / "hub.log").open("w")
    hub = subprocess.Popen(["bash", str(script)], cwd=base, env=env, stdout=log, stderr=subprocess.STDOUT,
                           start_new_session=True)
    started: set[int] = set()

    def remember_children():
        try:
            started.update(p.pid for p in psutil.Process(hub.pid).children(recursive=True))
        except psutil.NoSuchProcess:
            pass

    info = {"base": f"https://127.0.0.1:{port}", "hub": hub, "log": base / "hub.log", "state": base / "state",
            "dev": dev, "cann": root, "remember": remember_children, "started": started}
    try:
        yield info
    finally:
        remember_children()
        if hub.poll() is None:
            hub.send_signal(signal.SIGTERM)
            try:
                hub.wait(timeout=60)
            except subprocess.TimeoutExpired:
                hub.kill()
        for pid in _still_running(started, wait_s=10):  # never leave anything running, even on failure
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log.close()
        cleanup = substitute(readme_block("cleanup"), values)
        done = subprocess.run(["bash", "-c", "\n".join(["set -e", f"export WORKSHOP_DEV_DIR={dev}", *cleanup])],
                              cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=60)
        left = [e.pw_name for e in accounts.workshop_accounts()]
        for name in left:  # the documented command failed: remove them anyway, then fail below
            subprocess.run(["userdel", "--remove", name], capture_output=True, check=False)
        info.update(cleanup=done, accounts_left=left, acl_before=acl_before, acl_after=_acl_snapshot(),
                    group_left=_group_exists(accounts.GROUP))
        shutil.copy(base / "hub.log", tmp_path / "hub.log")  # kept by pytest for a failure's post-mortem
        shutil.rmtree(base, ignore_errors=True)


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def _server_pid(account: str, started: set[int]) -> int:
    for pid in started:
        try:
            p = psutil.Process(pid)
            if p.username() == account and any("jupyterhub-singleuser" in a for a in p.cmdline()):
                return pid
        except psutil.NoSuchProcess:
            continue
    raise AssertionError(f"no server process of {account}")


def test_the_readme_start_gives_each_participant_an_account_a_seat_cann_and_no_secrets(live_hub):
    base, deadline = live_hub["base"], Deadline(BUDGET_S)
    t0 = time.monotonic()
    marks = {}
    _wait_for(lambda: requests.get(f"{base}/hub/api/", timeout=2).ok, deadline)
    marks["hub up"] = time.monotonic() - t0
    assert subprocess.run(["git", "-C", str(REPO_ROOT), "show", f"HEAD:{SOLUTION}"], capture_output=True).returncode == 0, \
        "the checkout's git history holds the solution (so a participant's failure to read it means something)"
    print("hub start-up:", *[line for line in live_hub["log"].read_text(encoding="utf-8").splitlines() if "[工作坊]" in line],
          sep="\n  ")
    state = live_hub["state"]
    assert oct(state.stat().st_mode & 0o777) == "0o700"
    passwords = dict(line.split("=", 1) for line in (state / "passwords").read_text().splitlines() if "=" in line
                     and not line.startswith("#"))
    hub_log = live_hub["log"].read_text(encoding="utf-8")
    assert f"https://127.0.0.1:{base.rsplit(':', 1)[1]}" in hub_log, "the hub states where participants connect"
    assert "CANN 环境：在干净的环境（env -i）里读取了" in hub_log and "ASCEND_OPP_PATH" in hub_log

    refused = _login(base, "tina", "wrong-password")
    assert refused.login_status == 403 and "用户名或密码不对" in refused.login_page  # the workshop's Chinese login page
    assert "Invalid username" not in refused.login_page
    assert _login(base, "mallory", passwords["participants"]).login_status == 403  # not on the roster
    sessions = {"tina": _login(base, "Tina", passwords["participants"]),  # typed as on the roster: capitalised
                "tom": _login(base, "tom", passwords["participants"]),
                "tess": _login(base, "tess", passwords["participants"])}
    assert all(s.login_status == 302 for s in sessions.values()), {u: s.login_status for u, s in sessions.items()}
    tokens = {user: _token(s, base, user) for user, s in sessions.items()}
    def start_server(user):
        return requests.post(f"{base}/hub/api/users/{user}/server",
                             headers={"Authorization": f"token {tokens[user]}"}, timeout=60)

    with ThreadPoolExecutor(2) as pool:  # both at once, as a room does (each request waits up to 10 s)
        for r in pool.map(start_server, ("tina", "tom")):
            assert r.status_code in (201, 202), r.text

    # Tess: no seat left, said in Chinese in the page her browser gets and in the API
    page = sessions["tess"].get(f"{base}/hub/spawn/tess", timeout=30)
    shown = re.search(r'<div class="error">(.*?)</div>', page.content.decode("utf-8"), re.S)  # <meta charset="utf-8">
    assert page.status_code == 403 and shown and "已全部分配" in shown.group(1), shown.group(1) if shown else page.text
    assert "无法继续（403）" in shown.group(1) and "Forbidden" not in shown.group(1), shown.group(1)
    api = requests.post(f"{base}/hub/api/users/tess/server", headers={"Authorization": f"token {tokens['tess']}"},
                        timeout=30)
    assert api.status_code == 403 and "已全部分配" in api.json()["message"]

    for user in ("tina", "tom"):
        def ready(user=user):
            r = requests.get(f"{base}/hub/api/users/{user}", headers={"Authorization": f"token {tokens[user]}"},
                             timeout=5)
            return r.ok and r.json()["servers"].get("", {}).get("ready")
        _wait_for(ready, deadline)
        marks[f"{user} ready"] = time.monotonic() - t0
    live_hub["remember"]()
    started = live_hub["started"]
    hub_pid = live_hub["hub"].pid
    proxy_pid = next(p for p in started if _running(p) and "configurable-http-proxy" in " ".join(psutil.Process(p).cmdline()))
    proxy_token = dict(item.split("=", 1) for item in
                       Path(f"/proc/{proxy_pid}/environ").read_bytes().decode().split("\0") if "=" in item)[
        "CONFIGPROXY_AUTH_TOKEN"]
    secrets = {"participants' password": passwords["participants"], "instructor's password": passwords["instructor"],
               "proxy token": proxy_token, "cookie secret": (state / "jupyterhub_cookie_secret").read_text().strip()}
    dev = live_hub["dev"]
    reports = {}
    for user, other in (("tina", "tom"), ("tom", "tina")):
        probe = {"secrets": secrets, "devices": {"own": str(dev / ("davinci4" if user == "tina" else "davinci5")),
                                                 "other": str(dev / ("davinci5" if user == "tina" else "davinci4")),
                                                 "manager": str(dev / "davinci_manager")},
                 "forbidden": {"hub environ": f"/proc/{hub_pid}/environ", "proxy environ": f"/proc/{proxy_pid}/environ",
                               "cookie secret": str(state / "jupyterhub_cookie_secret"),
                               "database": str(state / "jupyterhub.sqlite"), "passwords": str(state / "passwords"),
                               "state folder": str(state), "other's home": f"/home/jupyter-{other}",
                               "other's server environ": f"/proc/{_server_pid(f'jupyter-{other}', started)}/environ",
                               "solutions": str(REPO_ROOT / "notebooks" / "solutions")},
                 "repo": str(REPO_ROOT), "solution": SOLUTION}
        reports[user] = _execute(base, user, tokens[user], PROBE.format(probe=json.dumps(probe)), deadline)
        marks[f"{user} kernel ran"] = time.monotonic() - t0
    # Tom's kernel talks while Tina's kernel tries every socket his kernels listen on
    chatter, _ = _send(base, "tom", tokens["tom"], CHATTER, deadline)
    try:
        attack = _execute(base, "tina", tokens["tina"], ATTACK.format(account="jupyter-tom"), deadline)
    finally:
        chatter.close()
    marks["kernel attack ran"] = time.monotonic() - t0
    live_hub["remember"]()

    assert _terminal_user(base, "tina", tokens["tina"], deadline) == "jupyter-tina"
    marks["terminal ran"] = time.monotonic() - t0
    for user, device in (("tina", "4"), ("tom", "5")):
        rep, env = reports[user], reports[user]["env"]
        assert rep["account"] == f"jupyter-{user}" and rep["home"] == f"/home/jupyter-{user}", rep
        assert rep["home_mode"] == "0o700"
        assert env["JUPYTERHUB_USER"] == user and env["NPULAB_WORKSHOP_SEAT"] == user
        assert env["ASCEND_RT_VISIBLE_DEVICES"] == device and env["NPULAB_SEAT_DEVICES"] == device
        assert env["PATH"].split(":")[0] == str(VENV / "bin") and rep["python"] == str(VENV / "bin" / "python")
        assert env["VIRTUAL_ENV"] == str(VENV) and env["GLOG_v"] == "4"
        # the variables a second sourcing of set_env.sh would not change reached the kernel all the same
        home = env["ASCEND_HOME_PATH"]
        assert home.startswith(str(live_hub["cann"])) and env["ASCEND_OPP_PATH"] == home + "/opp"
        assert env["ASCEND_AICPU_PATH"] == home and env["TOOLCHAIN_HOME"] == home + "/toolkit"
        assert "/driver/lib64" in env["LD_LIBRARY_PATH"] and rep["cann_marker"] == "8.0.0"
        assert rep["labs"] and not rep["solutions_copied"] and rep["lab_locale"] == "zh_CN"
        assert rep["reach"] == dict.fromkeys(rep["reach"], "PermissionError"), rep["reach"]
        assert rep["secrets_visible"] == []
        assert rep["devices"] == {"own": "ok", "other": "PermissionError", "manager": "ok"}, rep["devices"]
        assert rep["git_solution"] is False, "a participant read a solution through the checkout's git history"
    # the other participant's kernels: found (their sockets are listed), unreachable, nothing heard; the same
    # listener heard Tina's own kernel, so the attack would have worked over TCP
    assert attack["own_transport"] == "ipc" and attack["own_heard"] > 0, attack
    assert attack["unix"] and set(attack["unix"].values()) == {"PermissionError"}, attack
    assert attack["stolen"] == 0, attack
    assert reports["tina"]["env"]["NPULAB_SEAT_PORT"] != reports["tom"]["env"]["NPULAB_SEAT_PORT"]
    assert not Path("/home/jupyter-tess").exists(), "no account for a participant without a seat"

    # the instructor logs in with the admin password and sees everyone; the participants' password is not enough
    admin = _login(base, "instructor", passwords["instructor"])
    assert admin.login_status == 302 and admin.landing.endswith("/hub/admin"), admin.landing  # not a server of their own
    own = requests.post(f"{base}/hub/api/users/instructor/server",
                        headers={"Authorization": f"token {_token(admin, base, 'instructor')}"}, timeout=30)
    assert own.status_code == 403 and "不占座位" in own.json()["message"], own.text
    assert not Path("/home/jupyter-instructor").exists(), "no Unix account for the instructor"
    users = requests.get(f"{base}/hub/api/users", headers={"Authorization": f"token {_token(admin, base, 'instructor')}"},
                         timeout=10).json()
    assert {"tina", "tom", "tess", "instructor"} <= {u["name"] for u in users}
    assert _login(base, "instructor", passwords["participants"]).login_status == 403
    assert {reports[u]["pid"] for u in reports} <= started, "the kernels were started under the hub"

    # stopping the hub stops everything it started: proxy, single-user servers, kernels
    print("live hub timeline (s since start):", {k: round(v, 1) for k, v in marks.items()})
    hub = live_hub["hub"]
    hub.send_signal(signal.SIGTERM)
    hub.wait(timeout=deadline.left())  # the hub stops every server first
    assert _still_running(started, wait_s=10) == [], "still running after the hub stopped"
    marks["all stopped"] = time.monotonic() - t0
    print("live hub timeline (s since start):", {k: round(v, 1) for k, v in marks.items()})


@pytest.fixture(autouse=True)
def _cleanup_is_checked(request):
    """After the live test: the README's clean-up block removed every account, the group and the ACL entries."""
    yield
    info = request.node.funcargs.get("live_hub") if hasattr(request.node, "funcargs") else None
    if not info or "cleanup" not in info:
        return
    assert info["cleanup"].returncode == 0, info["cleanup"].stdout + info["cleanup"].stderr
    assert info["accounts_left"] == [], f"left behind: {info['accounts_left']}"
    assert not info["group_left"], f"the group {accounts.GROUP} was left behind"
    assert info["acl_after"] == info["acl_before"], "ACL entries left on the venv's directories"
