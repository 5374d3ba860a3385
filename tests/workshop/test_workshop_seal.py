"""What only the instructor may read in the hub's checkout (solutions, guide, built site, git history) is closed,
and the hub's TLS certificate when the instructor has none."""

import os
import ssl
import stat
import subprocess
import threading

import pytest

from npulab.workshop import sealed, tls

GID = 4242  # a group the test files do not belong to: "a workshop account", neither owner nor owning group


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.fixture
def checkout(tmp_path):
    """A small course checkout, committed, as world-readable as a fresh clone under umask 022."""
    repo = tmp_path / "course"
    (repo / "notebooks" / "solutions").mkdir(parents=True)
    (repo / "npulab").mkdir()
    (repo / "npulab" / "__init__.py").write_text("")
    (repo / "notebooks" / "solutions" / "01_lab_solution.ipynb").write_text("{}")
    (repo / "notebooks" / "instructor_guide.ipynb").write_text("{}")
    (repo / "notebooks" / "01_lab.ipynb").write_text("{}")
    _git("init", "-q", cwd=repo)
    _git("add", ".", cwd=repo)
    _git("commit", "-qm", "course", cwd=repo)
    for folder, dirs, files in os.walk(repo):
        for name in dirs:
            os.chmod(os.path.join(folder, name), 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return repo


def test_a_fresh_clone_lets_any_account_read_the_solutions_and_the_git_history(checkout):
    open_ = sealed.unsealed(checkout, GID)
    assert {p.name for p in open_} == {"solutions", "instructor_guide.ipynb", ".git"}


def test_seal_closes_them_and_everything_below_while_npulab_stays_readable(checkout):
    changed = sealed.seal(checkout)
    assert {p.name for p in changed} == {"solutions", "instructor_guide.ipynb", ".git"}
    assert sealed.unsealed(checkout, GID) == []
    below = checkout / ".git" / "HEAD"
    assert stat.S_IMODE(below.stat().st_mode) & 0o077 == 0
    assert stat.S_IMODE((checkout / "npulab" / "__init__.py").stat().st_mode) == 0o644
    assert stat.S_IMODE((checkout / "notebooks" / "01_lab.ipynb").stat().st_mode) == 0o644
    assert sealed.seal(checkout) == [], "a second run changes nothing"


def test_a_worktree_seals_its_own_git_folder_and_the_common_one(checkout, tmp_path):
    _git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=checkout)
    paths = {str(p) for p in sealed.private_paths(tmp_path / "wt")}
    assert str((checkout / ".git").resolve()) in paths and str(tmp_path / "wt" / ".git") in paths
    sealed.seal(tmp_path / "wt")
    assert sealed.unsealed(tmp_path / "wt", GID) == []


def test_a_built_site_is_closed_too(checkout):
    (checkout / "_build" / "html").mkdir(parents=True)
    (checkout / "_build").chmod(0o755)
    assert checkout / "_build" in sealed.unsealed(checkout, GID)
    sealed.seal(checkout)
    assert sealed.unsealed(checkout, GID) == []


def test_the_self_signed_certificate_serves_tls_for_the_names_given(tmp_path):
    cert, key = tmp_path / "tls" / "hub.crt", tmp_path / "tls" / "hub.key"
    digest = tls.make_self_signed(cert, key, ["127.0.0.1", "classroom.example"], days=2)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert len(digest.split(":")) == 32 and digest == tls.fingerprint(cert)
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)
    import socket

    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def serve():
            conn, _ = listener.accept()
            with server_ctx.wrap_socket(conn, server_side=True) as s:
                s.sendall(b"ok")

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        client_ctx = ssl.create_default_context(cafile=str(cert))  # trusts exactly this certificate, checks the name
        with socket.create_connection(("127.0.0.1", port)) as raw, \
                client_ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
            assert s.recv(2) == b"ok"
        thread.join(5)


@pytest.mark.skipif(os.geteuid() != 0, reason="the accounts commands need root")
def test_the_certificate_command_needs_its_two_paths_and_keeps_an_existing_certificate(tmp_path, monkeypatch, capsys):
    from npulab.__main__ import main

    for key in [k for k in os.environ if k.startswith("WORKSHOP_")]:
        monkeypatch.delenv(key)
    assert main(["workshop", "accounts", "certificate"]) == 2
    assert "WORKSHOP_SSL_CERT" in capsys.readouterr().err
    monkeypatch.setenv("WORKSHOP_SSL_CERT", str(tmp_path / "hub.crt"))
    monkeypatch.setenv("WORKSHOP_SSL_KEY", str(tmp_path / "hub.key"))
    assert main(["workshop", "accounts", "certificate", "--host", "npu-server.lab"]) == 0
    made = capsys.readouterr().out
    assert "npu-server.lab" in made and "SHA-256" in made
    before = (tmp_path / "hub.crt").read_bytes()
    assert main(["workshop", "accounts", "certificate"]) == 0 and "不改动" in capsys.readouterr().out
    assert (tmp_path / "hub.crt").read_bytes() == before
