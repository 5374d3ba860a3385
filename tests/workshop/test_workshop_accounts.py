"""The workshop hub's building blocks: account names and accounts, ACLs, venv access, device permissions,
the root-only secrets, the proxy's discovery and CANN's environment read in a clean shell."""

import os
import pwd
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from npulab.testing.synthetic_cann import make_synthetic_install
from npulab.workshop import access, accounts, cann_env, device_access, hub_secrets, posix_acl, proxy
from npulab.workshop.posix_acl import R, W, X

# real Unix accounts: never at the same time as the other module that creates them (pytest-xdist --dist loadgroup)
pytestmark = pytest.mark.xdist_group("unix-accounts")

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (useradd, setuid, other users' ACLs)")
NOBODY = 54321  # a uid with no account: ACL entries and setuid work without one


@pytest.fixture
def open_tmp():
    """A folder every account may enter (pytest's own tmp_path sits under a 0700 folder)."""
    path = Path(tempfile.mkdtemp(prefix="npulab-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _as(uid: int, script: str) -> str:
    """Run a shell ``script`` as ``uid`` with no groups (the venv's Python may itself be out of its reach); stdout."""
    done = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True, timeout=60,
                          preexec_fn=lambda: (os.setgroups([]), os.setgid(uid), os.setuid(uid)))
    return done.stdout.strip()


def _opens(path: Path) -> str:
    """Shell: "ok" when the file opens for reading and writing, else "denied"."""
    return f"( : <> {path} ) 2>/dev/null && echo ok || echo denied"


def test_account_names_are_prefixed_valid_and_stable():
    assert accounts.account_name("alice") == "jupyter-alice"
    for odd in ("张三", "a" * 40, "bob.smith", "Ünal"):
        name = accounts.account_name(odd)
        assert name.startswith("jupyter-") and len(name) <= 32 and accounts._VALID.fullmatch(name), name
        assert name == accounts.account_name(odd)
    assert accounts.account_name("张三") != accounts.account_name("李四")


def test_acl_grant_revoke_and_the_effective_check(tmp_path):
    f = tmp_path / "node"
    f.write_bytes(b"")
    f.chmod(0o660)
    assert not posix_acl.allows(f, R | W, uid=NOBODY, gids=set())
    posix_acl.grant(f, R | W, uid=NOBODY)
    assert posix_acl.named_entry(f, uid=NOBODY) == R | W and posix_acl.allows(f, R | W, uid=NOBODY, gids=set())
    assert stat.S_IMODE(f.stat().st_mode) == 0o660  # the mask (rw) shows as the group bits, unchanged
    posix_acl.grant(f, R, gid=NOBODY + 1)
    assert posix_acl.allows(f, R, uid=None, gids={NOBODY + 1}) and not posix_acl.allows(f, W, uid=None, gids={NOBODY + 1})
    assert posix_acl.revoke(f, uid=NOBODY) and posix_acl.revoke(f, gid=NOBODY + 1)
    assert not posix_acl.revoke(f, uid=NOBODY)
    assert posix_acl.read_acl(f) == posix_acl._from_mode(0o660) and stat.S_IMODE(f.stat().st_mode) == 0o660


@root_only
def test_the_venv_behind_a_private_directory_is_opened_to_the_group_only_as_far_as_needed(open_tmp):
    private = open_tmp / "root"
    python = private / ".pyenv" / "bin" / "python3"
    python.parent.mkdir(parents=True)
    for d in (private / ".pyenv", python.parent):
        d.chmod(0o755)
    python.write_text("#!/bin/sh\necho ran\n")
    python.chmod(0o755)
    private.chmod(0o700)
    before = {p: posix_acl.read_acl(p) for p in (private, python)}
    gid = NOBODY + 7  # the workshop group; NOBODY itself is not in it
    assert access.blocked([python], gid) == [(private, X)]
    assert "无法进入" in access.describe(access.blocked([python], gid))
    assert access.grant_access([python], gid) == [private] and access.blocked([python], gid) == []
    assert stat.S_IMODE(private.stat().st_mode) == 0o710  # x for the group through the mask; others still nothing
    assert _as(NOBODY, str(python)) == ""  # a uid outside the group still cannot
    done = subprocess.run([str(python)], capture_output=True, text=True,
                          preexec_fn=lambda: (os.setgroups([gid]), os.setgid(gid), os.setuid(NOBODY)))
    assert done.stdout.strip() == "ran"
    assert access.revoke_access([python], gid) == [private]
    assert {p: posix_acl.read_acl(p) for p in (private, python)} == before


@root_only
def test_seat_device_permissions_on_stand_in_nodes(open_tmp):
    dev = open_tmp / "dev"
    dev.mkdir()
    for name in ("davinci0", "davinci1", "davinci2", "davinci_manager", "devmm_svm", "hisi_hdc"):
        (dev / name).write_bytes(b"\0")
        (dev / name).chmod(0o660)
    assert list(device_access.cards(dev)) == [0, 1, 2] and len(device_access.management_nodes(dev)) == 3
    granted = device_access.grant_seat(NOBODY, [1], dev)
    assert [p.name for p in granted] == ["davinci1", "davinci_manager", "devmm_svm", "hisi_hdc"]
    assert [_as(NOBODY, _opens(dev / n)) for n in ("davinci0", "davinci1", "davinci_manager")] == ["denied", "ok", "ok"]
    device_access.grant_seat(NOBODY, [2], dev)  # the seat moved: the old card is taken back
    assert posix_acl.named_entry(dev / "davinci1", uid=NOBODY) is None
    assert posix_acl.named_entry(dev / "davinci2", uid=NOBODY) == R | W
    assert len(device_access.revoke_user(NOBODY, dev)) == 4
    assert all(posix_acl.read_acl(p) == posix_acl._from_mode(0o660) for p in dev.iterdir())
    with pytest.raises(FileNotFoundError, match="davinci7"):
        device_access.grant_seat(NOBODY, [7], dev)
    with pytest.raises(ValueError, match="WORKSHOP_DEVICE_ACCESS"):
        device_access.check_mode("all")
    assert device_access.account_groups("seat") == [] and device_access.account_groups("none") == []


@root_only
def test_an_account_is_created_once_private_marked_and_removed_with_its_processes():
    name = "tunit"
    try:
        entry = accounts.ensure_account(name)
        assert entry.pw_name == "jupyter-tunit" and entry.pw_gecos == accounts.MARKER and entry.pw_shell == "/bin/bash"
        assert stat.S_IMODE(os.stat(entry.pw_dir).st_mode) == 0o700 and os.stat(entry.pw_dir).st_uid == entry.pw_uid
        assert accounts.GROUP in subprocess.run(["id", "-Gn", entry.pw_name], capture_output=True, text=True).stdout
        assert accounts.ensure_account(name).pw_uid == entry.pw_uid  # the second login finds it
        assert "jupyter-tunit" in [e.pw_name for e in accounts.workshop_accounts()]
        sleeper = subprocess.Popen(["sleep", "60"], preexec_fn=lambda: os.setuid(entry.pw_uid))
        accounts.remove_account(entry)
        assert sleeper.wait(timeout=10) is not None
        with pytest.raises(KeyError):
            pwd.getpwnam("jupyter-tunit")
        assert not Path(entry.pw_dir).exists()
    finally:
        subprocess.run(["userdel", "--remove", "jupyter-tunit"], capture_output=True, check=False)
        if not accounts.workshop_accounts():
            accounts.remove_group()


@root_only
def test_an_account_the_tool_did_not_make_is_never_used_or_removed():
    subprocess.run(["useradd", "--no-create-home", "jupyter-tforeign"], check=True, capture_output=True)
    try:
        with pytest.raises(accounts.AccountError, match="不是工作坊工具创建的"):
            accounts.ensure_account("tforeign")
        with pytest.raises(accounts.AccountError):
            accounts.remove_account(pwd.getpwnam("jupyter-tforeign"))
        assert "jupyter-tforeign" not in [e.pw_name for e in accounts.workshop_accounts()]
    finally:
        subprocess.run(["userdel", "jupyter-tforeign"], capture_output=True, check=False)
        if not accounts.workshop_accounts():
            accounts.remove_group()


def test_passwords_live_in_a_private_file_not_in_the_environment(tmp_path):
    state = tmp_path / "state"
    path, created = hub_secrets.ensure_passwords(state)
    assert created and stat.S_IMODE(state.stat().st_mode) == 0o700 and stat.S_IMODE(path.stat().st_mode) == 0o600
    first = hub_secrets.read_passwords(path)
    assert len(first["participants"]) == 14 and len(first["instructor"]) >= 32
    assert hub_secrets.ensure_passwords(state) == (path, False) and hub_secrets.read_passwords(path) == first
    path.chmod(0o644)
    with pytest.raises(hub_secrets.SecretsError, match="chmod go="):
        hub_secrets.read_passwords(path)
    path.chmod(0o600)
    path.write_text("participants=short\ninstructor=" + "x" * 40 + "\n")
    with pytest.raises(hub_secrets.SecretsError, match="少于 8"):
        hub_secrets.read_passwords(path)
    path.write_text("participants=" + "y" * 40 + "\ninstructor=" + "y" * 40 + "\n")
    with pytest.raises(hub_secrets.SecretsError, match="不能相同"):
        hub_secrets.read_passwords(path)
    with pytest.raises(hub_secrets.SecretsError, match="accounts passwords"):
        hub_secrets.read_passwords(tmp_path / "none")
    env = {"WORKSHOP_PASSWORD": "p", "HOME": "/root"}
    assert hub_secrets.pop_secrets(env, ("WORKSHOP_PASSWORD", "CONFIGPROXY_AUTH_TOKEN")) == {"WORKSHOP_PASSWORD": "p"}
    assert env == {"HOME": "/root"}


def test_the_proxy_is_found_in_node_modules_or_on_path_or_the_error_names_make_workshop_deps(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "node").write_text("#!/bin/sh\n")
    (bin_dir / "node").chmod(0o755)
    local = tmp_path / "workshop" / "node_modules" / ".bin" / proxy.PROXY
    with pytest.raises(proxy.ProxyMissing, match="make workshop-deps"):
        proxy.find_proxy(tmp_path / "workshop", {"PATH": str(bin_dir)})
    (bin_dir / proxy.PROXY).write_text("#!/bin/sh\n")
    (bin_dir / proxy.PROXY).chmod(0o755)
    assert proxy.find_proxy(tmp_path / "workshop", {"PATH": str(bin_dir)}) == [str(bin_dir / proxy.PROXY)]
    local.parent.mkdir(parents=True)
    local.write_text("#!/usr/bin/env node\n")
    assert proxy.find_proxy(tmp_path / "workshop", {"PATH": str(bin_dir)}) == [str(local)]  # the pinned one first
    with pytest.raises(proxy.ProxyMissing, match="node"):
        proxy.find_proxy(tmp_path / "workshop", {"PATH": str(tmp_path / "empty")})


def _sourced(script: Path, base: dict) -> dict:
    out = subprocess.run(["bash", "--noprofile", "--norc", "-c", f"source {script} && env -0"], env=base,
                         capture_output=True, check=True).stdout.decode()
    return dict(item.split("=", 1) for item in out.split("\0") if "=" in item)


def test_cann_is_read_in_a_clean_environment_even_from_a_shell_that_already_sourced_it(tmp_path):
    root = make_synthetic_install(tmp_path / "Ascend")
    script = root / "ascend-toolkit" / "set_env.sh"
    loaded = _sourced(script, {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    # what the old reading (a diff against the hub's own, already loaded environment) kept: only the PATH-like ones
    assert "ASCEND_OPP_PATH" not in {k for k, v in _sourced(script, loaded).items() if loaded.get(k) != v}
    scripts, variables, line = cann_env.load_cann(loaded, venv_bin="/opt/venv/bin", home=tmp_path / "nohome")
    assert scripts == [script]  # found again from the loaded ASCEND_HOME_PATH (…/ascend-toolkit/latest)
    home = variables["ASCEND_HOME_PATH"]
    assert variables["ASCEND_OPP_PATH"] == home + "/opp" and variables["ASCEND_AICPU_PATH"] == home
    assert variables["PATH"].endswith(":/opt/venv/bin:" + cann_env.CLEAN_PATH)  # not the hub's PATH
    assert variables["LD_LIBRARY_PATH"].count("/driver/lib64:") == 1  # read once, not stacked on the loaded one
    assert f"读取了 {script}" in line and f"{len(variables)} 个变量" in line
    # NNAL beside CANN is read after it, in the same shell
    atb = root / "nnal" / "atb" / "set_env.sh"
    atb.parent.mkdir(parents=True)
    atb.write_text('export ATB_HOME_PATH="${ASCEND_HOME_PATH}/../../nnal/atb"\n')
    scripts, variables, _ = cann_env.load_cann({"WORKSHOP_CANN_SET_ENV": str(script)}, home=tmp_path)
    assert scripts == [script, atb] and variables["ATB_HOME_PATH"].startswith(variables["ASCEND_HOME_PATH"])


def test_cann_in_the_home_ascend_folder_and_a_loud_warning_without_any(tmp_path):
    make_synthetic_install(tmp_path / "Ascend", layout="cann", version="8.5.0")
    found = cann_env.find_set_env({}, home=tmp_path)
    if Path("/usr/local/Ascend/cann/set_env.sh").is_file() or Path("/usr/local/Ascend/ascend-toolkit/set_env.sh").is_file():
        pytest.skip("this host has CANN in /usr/local/Ascend, which comes first")
    assert found == tmp_path / "Ascend" / "cann" / "set_env.sh"
    scripts, variables, line = cann_env.load_cann({}, home=tmp_path / "empty")
    assert scripts == [] and variables == {} and line.startswith("警告") and "WORKSHOP_CANN_SET_ENV" in line


def test_a_server_gets_the_venv_first_on_path_cann_and_its_seat():
    from npulab.workshop.spawner import server_environment

    env = server_environment({"PATH": "/cann/bin:/opt/venv/bin:/usr/bin", "ASCEND_HOME_PATH": "/cann"}, "/opt/venv",
                             {"NPULAB_WORKSHOP_SEAT": "tina"}, {"GLOG_v": "4"})
    assert env["PATH"] == "/opt/venv/bin:/cann/bin:/usr/bin" and env["VIRTUAL_ENV"] == "/opt/venv"
    assert env["ASCEND_HOME_PATH"] == "/cann" and env["NPULAB_WORKSHOP_SEAT"] == "tina" and env["GLOG_v"] == "4"
    assert env["PYTHONPYCACHEPREFIX"] == "/opt/venv/pycache"  # the Makefile's cache, which `make bytecode` fills
    assert server_environment({}, "/v", {})["PATH"] == "/v/bin:" + cann_env.CLEAN_PATH


@root_only
def test_accounts_command_creates_the_roster_accounts_and_needs_root(tmp_path, monkeypatch, capsys):
    from npulab.__main__ import main

    (tmp_path / "roster.txt").write_text("Tcli\n")
    for key in [k for k in os.environ if k.startswith("WORKSHOP_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("WORKSHOP_ROSTER", str(tmp_path / "roster.txt"))
    monkeypatch.setenv("WORKSHOP_DEVICE_ACCESS", "none")
    try:
        assert main(["workshop", "accounts", "create"]) == 0
        assert "tcli → jupyter-tcli" in capsys.readouterr().out
        assert main(["workshop", "accounts", "list"]) == 0 and "jupyter-tcli" in capsys.readouterr().out
    finally:
        for entry in accounts.workshop_accounts():
            if entry.pw_name == "jupyter-tcli":
                accounts.remove_account(entry)
        if not accounts.workshop_accounts():
            accounts.remove_group()
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert main(["workshop", "accounts", "remove"]) == 2 and "root" in capsys.readouterr().err
