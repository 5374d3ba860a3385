"""``workshop preflight``: seats judged from the recorded npu-smi samples (healthy), and from the same tables with
one NPU made busy or faulty in the parsed result (no npu-smi text is written by hand)."""

import argparse
import copy
import json
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from npulab.__main__ import main
from npulab.ascend_tools.smi import samples
from npulab.ascend_tools.smi.info import Process, parse_info
from npulab.workshop import preflight as pf

HEALTHY_8 = "info_910b3_8card_24.1.rc1.txt"
A3 = "info_a3_8npu_16die_25.2.1.txt"
INFERENCE = "info_310_1chip_procs_23.0.0.txt"


def table(name):
    return parse_info(samples.text(name))


def seats(n, devices):
    return {f"s{i}": devices[i % len(devices)] for i in range(n)}


def test_recorded_idle_910b3_host_has_every_seat_ready():
    result = pf.preflight(seats(8, list(range(8))), table(HEALTHY_8), source="sample")
    assert result.ready and result.exit_code() == 0
    first = result.seats[0]
    assert (first.health, first.memory_used_mb, first.memory_total_mb, first.aicore_pct) == ("OK", 3318, 65536, 0)
    assert "没有进程表" in "".join(first.notes)  # this copy of the table has no process section: said, not assumed
    row = next(r for r in result.seat_table().rows if r[0] == "s0")
    assert row[:7] == ["s0", 0, "OK", "3318 / 65536 MB", "0 %", 0, "就绪"]
    assert "s0" in result.render() and "个座位就绪" in result.render() and "<table" in result._repr_html_()


def test_a3_seat_covers_both_dies_and_the_idle_process_table():
    result = pf.preflight({"a": 6, "b": 7}, table(A3))
    assert result.ready
    a = result.seats[0]
    assert a.memory_total_mb == 2 * 65536 and a.memory_used_mb == 3108 + 2885
    assert not any("没有进程表" in n for n in a.notes)


def test_inference_card_uses_the_memory_column():
    info = table(INFERENCE)
    npu = info.npu_ids()[0]
    report = pf.assess_seat("x", npu, info)
    assert report.ready and report.memory_total_mb is not None


def test_busy_seats_processes_aicore_or_memory():
    info = copy.deepcopy(table(HEALTHY_8))
    info.processes.append(Process(npu_id=3, chip_id=0, pid=4242, name="python3", memory_mb=20480))
    info.chips[4].aicore_pct = 87
    info.chips[5].hbm_used_mb = 40000
    result = pf.preflight(seats(8, list(range(8))), info)
    status = {s.npu: s.status for s in result.seats}
    assert status == {0: "ready", 1: "ready", 2: "ready", 3: "busy", 4: "busy", 5: "busy", 6: "ready", 7: "ready"}
    assert "4242 python3 (20480 MB)" in result.seats[3].notes[0]
    assert "87 %" in " ".join(result.seats[4].notes) and "61%" in " ".join(result.seats[5].notes)
    assert not result.ready and result.exit_code() == 1


def test_faulty_seats_alarm_and_missing_npu_and_warning_is_only_noted():
    info = copy.deepcopy(table(HEALTHY_8))
    info.chips[1].health = "Alarm"
    info.chips[2].health = "Warning"
    result = pf.preflight({"a": 0, "b": 1, "c": 2, "d": 9}, info)
    status = {s.user: s.status for s in result.seats}
    assert status == {"a": "ready", "b": "fault", "c": "ready", "d": "fault"}
    assert "Alarm" in result.seats[1].notes[0]
    assert "没有列出 NPU 9" in result.seats[3].notes[0] and "0, 1, 2" in result.seats[3].notes[0]
    assert "Warning" in result.seats[2].notes[0]


def test_no_table_makes_every_seat_a_fault_and_a_failing_runner_says_why():
    def runner(argv):
        return SimpleNamespace(returncode=127, stdout="", stderr="找不到命令 npu-smi")

    info, why = pf.read_smi(runner=runner)
    assert info is None and "127" in why and "npu-smi" in why
    result = pf.preflight({"a": 0}, info, source=why)
    assert result.seats[0].status == "fault" and not result.ready
    info, why = pf.read_smi(runner=lambda argv: SimpleNamespace(returncode=0, stdout="hello", stderr=""))
    assert info is None and "无法解析" in why


def test_host_checks_fail_the_preflight():
    def diagnose():
        return [SimpleNamespace(id="version_alignment", status="fail", message="torch_npu 与 CANN 不配套"),
                SimpleNamespace(id="python", status="ok", message="3.11")]

    check = pf.doctor_check(diagnose)
    assert check.status == "fail" and "version_alignment" in check.message
    result = pf.preflight({"a": 0}, table(HEALTHY_8), host=[check])
    assert result.seats[0].ready and not result.ready
    assert pf.disk_check("/", seats=1, per_seat_gb=1e-6).status == "ok"
    assert pf.disk_check("/", seats=1, per_seat_gb=1e9).status == "fail"
    assert pf.notebooks_check().status == "ok"


def test_execute_runs_a_notebook_with_each_seats_device(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os\nassert os.environ['ASCEND_RT_VISIBLE_DEVICES'] in ('2', '3'), os.environ['ASCEND_RT_VISIBLE_DEVICES']")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    ok = pf.execute_check(path, [2], timeout=60, cpu_only=True)
    assert ok.status == "ok" and "CPU 模式" in ok.message and "没有证明" in ok.message
    assert pf.execute_check(path, [7], timeout=60, cpu_only=True).status == "fail"
    # without --cpu-only, a run that cannot show the seat's NPU in the kernel is a failure, and says why
    no_npu = pf.execute_check(path, [3], timeout=60)
    assert no_npu.status == "fail" and "没有可用的 NPU" in no_npu.message


@pytest.mark.parametrize(("argv", "code"), [
    (["--npus", "0,1,2,3", "--per-npu", "2"], 0),
    (["--npus", "0,9", "--seats", "2"], 1),
    (["--npus", "0,1", "--seats", "5"], 2),   # more seats than the pool holds
    (["--npus", "a,b"], 2),
])
def test_cli_exit_codes(argv, code, capsys, tmp_path):
    sample = str(samples.path(HEALTHY_8))
    rc = main(["workshop", "preflight", "--smi-file", sample, "--skip-doctor", "--skip-hub", "--home-dir", str(tmp_path), *argv])
    assert rc == code
    if code == 2:
        assert "错误" in capsys.readouterr().err


def test_cli_json_and_missing_file(capsys, tmp_path):
    sample = str(samples.path(A3))
    assert main(["workshop", "preflight", "--smi-file", sample, "--skip-doctor", "--skip-hub", "--npus", "0,1", "--json",
                 "--home-dir", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ready"] and [s["npu"] for s in data["seats"]] == [0, 1]
    assert main(["workshop", "preflight", "--smi-file", str(tmp_path / "none.txt"), "--skip-doctor"]) == 2
    with pytest.raises(SystemExit) as bad:
        main(["workshop", "preflight", "--per-npu", "x"])
    assert bad.value.code == 2


# --- the hub's prerequisites --------------------------------------------------------------------------------------

from npulab.workshop import hub_checks as hc  # noqa: E402
from npulab.workshop.settings import WorkshopSettings  # noqa: E402


def _settings(**env):
    return WorkshopSettings.from_env(env)


def test_no_npu_and_no_cann_fail_unless_cpu_only(tmp_path):
    missing = tmp_path / "davinci_manager"
    npu = hc.npu_check(smi_file="saved.txt", cpu_only=False, device=missing)
    assert npu.status == "fail" and "--cpu-only" in npu.message and "saved.txt" in npu.message
    assert hc.npu_check(smi_file=None, cpu_only=True, device=missing).status == "skip"
    missing.write_text("")
    assert hc.npu_check(smi_file=None, cpu_only=False, device=missing).status == "ok"
    cann, env = hc.cann_check({"WORKSHOP_CANN_SET_ENV": str(tmp_path / "none.sh")})
    assert cann.status == "fail" and env == {}
    assert hc.cann_check({"WORKSHOP_CANN_SET_ENV": str(tmp_path / "none.sh")}, cpu_only=True)[0].status == "warn"


def test_cann_found_is_read_in_a_clean_environment(tmp_path, monkeypatch):
    from npulab.testing.synthetic_cann import make_synthetic_install

    root = make_synthetic_install(tmp_path / "Ascend")
    monkeypatch.setenv("ASCEND_HOME_PATH", "/already/sourced")  # the shell that runs preflight sourced it before
    cann, env = hc.cann_check({"WORKSHOP_CANN_SET_ENV": str(root / "ascend-toolkit" / "set_env.sh")})
    assert cann.status == "ok" and env["ASCEND_HOME_PATH"].startswith(str(root)) and "ASCEND_OPP_PATH" in env


def test_proxy_port_and_bind(tmp_path):
    import socket

    nowhere = {"PATH": str(tmp_path / "empty")}
    missing = hc.proxy_check(tmp_path / "workshop", nowhere)
    assert missing.status == "fail" and "make workshop-deps" in missing.message
    local = tmp_path / "workshop" / "node_modules" / ".bin" / "configurable-http-proxy"
    local.parent.mkdir(parents=True)
    local.write_text("#!/bin/sh\n")
    local.chmod(0o755)
    assert hc.proxy_check(tmp_path / "workshop").status == "ok"  # the copy make workshop-deps installs
    assert "node" in hc.proxy_check(tmp_path / "workshop", nowhere).message  # found, but no Node.js to run it
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        taken = hc.port_check("127.0.0.1", port)
        assert taken.status == "fail" and str(port) in taken.message
    assert hc.port_check("127.0.0.1", port).status == "ok"
    assert hc.bind_check(_settings()).status == "ok"  # loopback by default
    open_bind = hc.bind_check(_settings(WORKSHOP_IP="0.0.0.0"))
    assert open_bind.status == "fail" and "TLS" in open_bind.message
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    cert.write_text("c")
    assert hc.bind_check(_settings(WORKSHOP_IP="0.0.0.0", WORKSHOP_SSL_CERT=str(cert), WORKSHOP_SSL_KEY=str(key))).status == "fail"
    key.write_text("k")
    assert hc.bind_check(_settings(WORKSHOP_IP="0.0.0.0", WORKSHOP_SSL_CERT=str(cert), WORKSHOP_SSL_KEY=str(key))).status == "ok"


def test_accounts_need_root_and_say_which_names_get_a_hashed_account():
    assert hc.accounts_check(["alice", "bob-2"], euid=0, useradd="/usr/sbin/useradd").status == "ok"
    not_root = hc.accounts_check(["alice"], euid=1000, useradd="/usr/sbin/useradd")
    assert not_root.status == "fail" and "root" in not_root.message
    names = hc.accounts_check(["张三", "a" * 30, "ok"], euid=0, useradd="/usr/sbin/useradd")
    assert names.status == "warn" and "张三 → jupyter-" in names.message and "a" * 30 in names.message
    assert "ok →" not in names.message
    assert "useradd" in hc.accounts_check(["a"], euid=0, useradd=None).message


def test_preflight_reads_the_hubs_variables_normalises_names_and_suggests_per_npu(tmp_path, monkeypatch, capsys):
    roster = tmp_path / "roster.txt"
    roster.write_text("".join(f"User{i}\n" for i in range(20)), encoding="utf-8")
    monkeypatch.setenv("WORKSHOP_ROSTER", str(roster))
    monkeypatch.setenv("WORKSHOP_NPUS", "0,1,2,3,4,5,6,7")
    monkeypatch.setenv("WORKSHOP_STATE_DIR", str(tmp_path / "state"))
    sample = str(samples.path(HEALTHY_8))
    argv = ["workshop", "preflight", "--smi-file", sample, "--skip-doctor", "--skip-hub", "--json"]
    assert main(argv) == 2  # 20 names, 8 seats
    assert "--per-npu 3" in capsys.readouterr().err
    monkeypatch.setenv("WORKSHOP_PER_NPU", "3")
    main(argv)
    data = json.loads(capsys.readouterr().out)
    users = [s["user"] for s in data["seats"]]
    assert users[:2] == ["user0", "user1"]  # as JupyterHub will name them
    from collections import Counter

    assert sorted(Counter(s["npu"] for s in data["seats"]).values(), reverse=True) == [3, 3, 3, 3, 2, 2, 2, 2]


def test_preflight_fails_on_this_kind_of_host_unless_cpu_only(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("WORKSHOP_CANN_SET_ENV", str(tmp_path / "none.sh"))
    monkeypatch.setattr(hc, "NPU_DEVICE", tmp_path / "davinci_manager")
    sample = str(samples.path(HEALTHY_8))
    base = ["workshop", "preflight", "--skip-doctor", "--home-dir", str(tmp_path), "--npus", "0,1"]
    assert main([*base, "--smi-file", sample, "--json"]) == 1  # a saved npu-smi table does not make an NPU host
    failed = {h["id"] for h in json.loads(capsys.readouterr().out)["host"] if h["status"] == "fail"}
    assert {"npu", "cann"} <= failed
    main([*base, "--cpu-only", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert all(s["ready"] for s in data["seats"])
    assert not {h["id"] for h in data["host"] if h["status"] == "fail"} & {"npu", "cann"}


def test_capacity_per_seat_cpu_and_memory():
    # the case: 12 CPU-only seats on a 2-core machine with 24 GiB
    short = pf.capacity_check(12, cpu_only=True, cores=2, memory_gb=24)
    assert short.status == "fail" and "内存不够" in short.message and "48 GiB" in short.message
    slow = pf.capacity_check(5, cpu_only=True, cores=2, memory_gb=64)
    assert slow.status == "warn" and "2.5 倍" in slow.message
    npu_room = pf.capacity_check(8, cpu_only=False, cores=4, memory_gb=512)
    assert npu_room.status == "ok" and "影响较小" in npu_room.message
    assert pf.capacity_check(8, cpu_only=False, cores=192, memory_gb=1024).status == "ok"


def test_the_disk_is_checked_where_useradd_makes_the_homes(tmp_path):
    from npulab.workshop import accounts

    defaults = tmp_path / "useradd"
    defaults.write_text("# useradd defaults\nSHELL=/bin/sh\nHOME=/srv/homes\n")
    assert accounts.home_base(defaults) == Path("/srv/homes")
    assert accounts.home_base(tmp_path / "missing") == Path("/home")
    parser = argparse.ArgumentParser()
    pf.build_parser(parser)
    assert parser.parse_args([]).home_dir == str(accounts.home_base())
