import os
import runpy
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from npulab.core.paths import REPO_ROOT
from npulab.testing.synthetic_cann import make_synthetic_install
from npulab.workshop import (
    RosterError,
    SeatError,
    SeatPool,
    agenda,
    assign_devices,
    container_options,
    copy_course,
    load_times,
    read_set_env,
    seat_environment,
    times_from_cache,
)


def test_assignment_is_deterministic_even_and_respects_capacity():
    assert assign_devices(["a", "b"], [4, 5]) == {"a": 4, "b": 5}
    assert assign_devices(["a", "b", "c", "d"], [4, 5], per_device=2) == {"a": 4, "b": 5, "c": 4, "d": 5}
    with pytest.raises(RosterError, match="超出容量.*--per-npu 2"):
        assign_devices(["a", "b", "c"], [4, 5])
    with pytest.raises(RosterError, match="重复"):
        assign_devices(["a", "a"], [0, 1])
    with pytest.raises(RosterError, match="不重复"):
        assign_devices(["a"], [1, 1])


def test_agenda_lists_lessons_and_exercises_but_not_solutions():
    sessions = agenda()
    paths = [s.path for s in sessions]
    assert "chapters/01_environment/01_environment_setup.ipynb" in paths
    assert "notebooks/01_environment_lab.ipynb" in paths
    assert not any("solutions" in p for p in paths)
    assert all(s.minutes > 0 and s.title for s in sessions)
    assert "notebooks/quizzes.ipynb#01" in paths


def test_seat_pool_roster_first_then_first_come_and_a_clear_refusal(tmp_path):
    state = tmp_path / "seats.json"
    pool = SeatPool([4, 5], per_device=2, roster=["ann", "ben", "cat"], state_file=state)
    assert pool.seats() == {"ann": 4, "ben": 5, "cat": 4}
    assert pool.seat("dan") == 5 and pool.seat("ann") == 4 and pool.seat("dan") == 5
    with pytest.raises(SeatError, match="4 个座位（2 张 NPU × 每张 2 人）已全部分配"):
        pool.seat("eve")
    # a restarted hub keeps the first-come seats
    again = SeatPool([4, 5], per_device=2, roster=["ann", "ben", "cat"], state_file=state)
    assert again.seats()["dan"] == 5 and again.free() == []
    # roster names beyond capacity are reported and refused while the pool is full
    small = SeatPool([0], per_device=1, roster=["a", "b"])
    assert small.overflow == ["b"]
    with pytest.raises(SeatError):
        small.seat("b")
    with pytest.raises(RosterError, match="为空"):
        SeatPool([], per_device=1)


def test_read_set_env_returns_what_cann_sets(tmp_path):
    root = make_synthetic_install(tmp_path / "Ascend")
    env = read_set_env(root / "ascend-toolkit" / "set_env.sh", base={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert env["ASCEND_OPP_PATH"] == env["ASCEND_HOME_PATH"] + "/opp"
    assert env["PATH"].endswith(":/usr/bin:/bin") and "/driver/lib64" in env["LD_LIBRARY_PATH"]
    assert "HOME" not in env and "SHLVL" not in env  # only what the script changed
    seat = seat_environment(env, 3, {"GLOG_v": "4"})
    assert seat["ASCEND_RT_VISIBLE_DEVICES"] == "3" and seat["GLOG_v"] == "4"
    with pytest.raises(FileNotFoundError, match="找不到"):
        read_set_env(tmp_path / "missing.sh")


def test_container_options_pass_one_npu_and_the_driver_read_only():
    opts = container_options(6)
    devices = opts["extra_host_config"]["devices"]
    assert devices[0] == "/dev/davinci6:/dev/davinci6:rwm"
    assert [d.split(":")[0] for d in devices[1:]] == ["/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"]
    assert not any(d.startswith("/dev/davinci") and d.split(":")[0][len("/dev/davinci"):].isdigit()
                   for d in devices[1:]), "no other NPU"
    assert opts["volumes"]["/usr/local/Ascend/driver"] == {"bind": "/usr/local/Ascend/driver", "mode": "ro"}
    assert all(v["mode"] == "ro" for v in opts["volumes"].values())
    with pytest.raises(ValueError):
        container_options(-1)


def test_copy_course_withholds_solutions_and_keeps_edits(tmp_path):
    dest = copy_course(REPO_ROOT, tmp_path / "home")
    assert (dest / "notebooks" / "01_environment_lab.ipynb").exists()
    assert (dest / "chapters" / "01_environment" / "index.md").exists()
    assert not list(dest.rglob("*solution*")), "no solution reaches a participant"
    assert not (dest / "notebooks" / "instructor_guide.ipynb").exists() and (dest / "notebooks" / "quizzes.ipynb").exists()
    (dest / "notebooks" / "01_environment_lab.ipynb").write_text("edited")
    assert copy_course(REPO_ROOT, tmp_path / "home") is None
    assert (dest / "notebooks" / "01_environment_lab.ipynb").read_text() == "edited"


class _Config(SimpleNamespace):
    def __getattr__(self, name):
        value = _Config()
        setattr(self, name, value)
        return value


def _load_config(tmp_path, monkeypatch, **env):
    """Run workshop/jupyterhub_config.py as JupyterHub would, with a passwords file and a proxy in place."""
    for key in [k for k in os.environ if k.startswith(("WORKSHOP_", "ASCEND_"))]:
        monkeypatch.delenv(key)
    env.setdefault("WORKSHOP_STATE_DIR", str(tmp_path / "state"))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    from npulab.workshop import hub_secrets, proxy

    hub_secrets.ensure_passwords(env["WORKSHOP_STATE_DIR"])
    monkeypatch.setattr(proxy, "find_proxy", lambda *_: ["/bin/true"])  # found or refused: tests/workshop/test_workshop_accounts.py
    c = _Config()
    mask = os.umask(0o022)
    try:
        ns = runpy.run_path(str(REPO_ROOT / "workshop" / "jupyterhub_config.py"), init_globals={"get_config": lambda: c})
    finally:
        os.umask(mask)  # the hub sets 077 for itself; keep it out of the test process
    return c, ns


def _spawner(name, environment=None):
    return SimpleNamespace(user=SimpleNamespace(name=name), environment=dict(environment or {}),
                           extra_host_config={}, volumes={})


@pytest.mark.skipif(os.geteuid() != 0, reason="the accounts mode runs as root")
def test_jupyterhub_config_seats_users_passes_cann_and_refuses_beyond_capacity(tmp_path, monkeypatch):
    import pwd

    from jupyterhub.spawner import SpawnException

    from npulab.workshop import access, accounts, sealed

    (tmp_path / "roster.txt").write_text("Alice\nbob\ncarol\n")
    root = make_synthetic_install(tmp_path / "Ascend")
    home = tmp_path / "home-bob"
    me = pwd.getpwuid(os.getuid())
    made = []
    # no real account here (tests/workshop/test_live_hub.py creates real ones): the account is this user, at home
    monkeypatch.setattr(accounts, "ensure_group", lambda: 4242)
    monkeypatch.setattr(access, "blocked", lambda paths, gid: [])
    monkeypatch.setattr(sealed, "unsealed", lambda root, gid: [])  # the live test seals a real checkout
    monkeypatch.setattr(accounts, "ensure_account", lambda name, groups=(): made.append(name) or pwd.struct_passwd((*me[:5], str(home), me.pw_shell)))
    c, ns = _load_config(tmp_path, monkeypatch, WORKSHOP_ROSTER=str(tmp_path / "roster.txt"), WORKSHOP_NPUS="6,7",
                         WORKSHOP_CANN_SET_ENV=str(root / "ascend-toolkit" / "set_env.sh"))
    assert ns["POOL"].seats() == {"alice": 6, "bob": 7}
    assert c.Authenticator.allowed_users == {"alice", "bob", "carol"}  # normalised as JupyterHub does
    assert c.JupyterHub.authenticator_class == "shared-password" and c.JupyterHub.spawner_class.__name__ == "AccountSpawner"
    assert len(c.SharedPasswordAuthenticator.admin_password) >= 32
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8000" and c.ConfigurableHTTPProxy.command == ["/bin/true"]
    assert oct((tmp_path / "state").stat().st_mode & 0o777) == "0o700"
    assert any("shutdown_no_activity_timeout=3600" in a for a in c.Spawner.args)
    bob = _spawner("bob")
    c.Spawner.pre_spawn_hook(bob)
    assert made == ["bob"]
    env = bob.environment
    assert env["ASCEND_RT_VISIBLE_DEVICES"] == "7" and env["NPULAB_SEAT_DEVICES"] == "7" and env["GLOG_v"] == "4"
    assert env["NPULAB_WORKSHOP_SEAT"] == "bob" and env["PATH"].startswith(f"{sys.prefix}/bin:")
    assert env["ASCEND_HOME_PATH"].startswith(str(root)) and env["ASCEND_OPP_PATH"] == env["ASCEND_HOME_PATH"] + "/opp"
    assert (home / "course" / "notebooks").is_dir() and not (home / "course" / "notebooks" / "solutions").exists()
    assert (home / ".jupyter/lab/user-settings/@jupyterlab/apputils-extension/notification.jupyterlab-settings").is_file()
    with pytest.raises(SpawnException) as refused:
        c.Spawner.pre_spawn_hook(_spawner("carol"))
    assert refused.value.status_code == 403 and "已全部分配" in refused.value.message
    assert made == ["bob"], "no account for a participant without a seat"
    with pytest.raises(SpawnException) as instructor:
        c.Spawner.pre_spawn_hook(_spawner("instructor"))  # the admin, not on the roster: no server, no account
    assert instructor.value.status_code == 403 and "不占座位" in instructor.value.message and made == ["bob"]
    assert "--KernelManager.transport=ipc" in c.Spawner.args


def test_jupyterhub_config_refuses_to_start_while_participants_can_read_the_solutions(tmp_path, monkeypatch, capsys):
    from npulab.workshop import access, accounts, sealed

    monkeypatch.setattr(accounts, "ensure_group", lambda: 4242)
    monkeypatch.setattr(access, "blocked", lambda paths, gid: [])
    monkeypatch.setattr(sealed, "unsealed", lambda root, gid: [Path(root) / ".git"])
    with pytest.raises(SystemExit) as stop:
        _load_config(tmp_path, monkeypatch)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert ".git" in err and "accounts seal" in err


def test_jupyterhub_config_refuses_a_plain_http_bind_beyond_loopback(tmp_path, monkeypatch, capsys):
    with pytest.raises(SystemExit) as stop:
        _load_config(tmp_path, monkeypatch, WORKSHOP_IP="0.0.0.0", WORKSHOP_SPAWNER="docker", WORKSHOP_IMAGE="x")
    assert stop.value.code == 2 and "没有 TLS" in capsys.readouterr().err


def test_jupyterhub_config_refuses_clearly_without_passwords_or_proxy(tmp_path, monkeypatch, capsys):
    from npulab.workshop import proxy

    for key in [k for k in os.environ if k.startswith(("WORKSHOP_", "ASCEND_"))]:
        monkeypatch.delenv(key)
    for key, value in {"WORKSHOP_STATE_DIR": str(tmp_path / "state"), "WORKSHOP_SPAWNER": "docker",
                       "WORKSHOP_IMAGE": "x"}.items():
        monkeypatch.setenv(key, value)

    def start():
        mask = os.umask(0o022)
        with pytest.raises(SystemExit) as stop:
            runpy.run_path(str(REPO_ROOT / "workshop" / "jupyterhub_config.py"), init_globals={"get_config": _Config})
        os.umask(mask)
        assert stop.value.code == 2
        return capsys.readouterr().err

    monkeypatch.setattr(proxy, "find_proxy", lambda *_: ["/bin/true"])
    refused = start()
    assert "警告！找不到密码文件" in refused and "accounts passwords" in refused

    def missing(*_):
        raise proxy.ProxyMissing("找不到 configurable-http-proxy：运行 make workshop-deps")

    monkeypatch.setattr(proxy, "find_proxy", missing)
    assert "make workshop-deps" in start()
    monkeypatch.setenv("WORKSHOP_SPAWNER", "accounts")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert "须以 root 运行" in start()


def test_jupyterhub_config_docker_mode_isolates_the_npu(tmp_path, monkeypatch, capsys):
    c, _ = _load_config(tmp_path, monkeypatch, WORKSHOP_NPUS="2", WORKSHOP_SPAWNER="docker",
                        WORKSHOP_IMAGE="course:latest", HOME=str(tmp_path))
    if not any(Path(p).is_file() for p in ("/usr/local/Ascend/cann/set_env.sh", "/usr/local/Ascend/ascend-toolkit/set_env.sh")):
        assert "！！！\n[工作坊] 警告：找不到 CANN 的 set_env.sh" in capsys.readouterr().err  # framed, in the hub's log
    assert c.JupyterHub.spawner_class == "docker" and c.Authenticator.allow_all is True
    assert c.Authenticator.admin_users == {"instructor"}
    dan = _spawner("dan")
    c.Spawner.pre_spawn_hook(dan)
    assert "/dev/davinci2:/dev/davinci2:rwm" in dan.extra_host_config["devices"]
    assert "ASCEND_RT_VISIBLE_DEVICES" not in dan.environment  # the container sees only its own NPU
    assert dan.environment["NPULAB_SEAT_DEVICES"] == "2"
    assert "/usr/local/Ascend/driver" in dan.volumes


def test_times_from_a_real_jupyter_cache(tmp_path):
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    nb_path = REPO_ROOT / "notebooks" / "quizzes.ipynb"
    cache = get_cache(str(tmp_path / "cache"))
    cache.cache_notebook_bundle(CacheBundleIn(nbformat.read(nb_path, as_version=4), str(nb_path),
                                              data={"execution_seconds": 12.34}), check_validity=False)
    assert times_from_cache(tmp_path / "cache") == {"notebooks/quizzes.ipynb": 12.3}
    assert load_times(tmp_path / "none.yaml") == {"seconds": {}}


def test_workshop_cli_agenda_times_public_toc(tmp_path, capsys):
    import json as _json

    import yaml

    from npulab.__main__ import main

    assert main(["workshop", "agenda", "--json"]) == 0
    data = _json.loads(capsys.readouterr().out)
    assert data["rows"] and not data["skipped"] and all(r["minutes"] >= 5 for r in data["rows"])
    assert main(["workshop", "times", "--cache", str(tmp_path / "none")]) == 2
    assert "make test" in capsys.readouterr().err
    out = tmp_path / "toc.yml"
    assert main(["workshop", "public-toc", "--output", str(out)]) == 0
    toc = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert "notebooks/solutions/" not in out.read_text(encoding="utf-8") and toc["root"] == "intro"
    with pytest.raises(SystemExit) as usage:
        main(["workshop"])
    assert usage.value.code == 2


def test_times_to_an_unwritable_file_is_a_usage_error(tmp_path):
    import subprocess
    import sys

    cache = tmp_path / "cache"
    cache.mkdir()
    done = subprocess.run([sys.executable, "-m", "npulab", "workshop", "times", "--cache", str(cache),
                           "--output", str(tmp_path / "missing" / "times.yaml")], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "错误" in done.stderr
