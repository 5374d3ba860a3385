"""``workshop preflight``: seats judged from the recorded npu-smi samples (healthy), and from the same tables with
one NPU made busy or faulty in the parsed result (no npu-smi text is written by hand)."""

import copy
import json
from types import SimpleNamespace

import nbformat
import pytest

from npulab.__main__ import main
from npulab.ascend_tools.smi import samples
from npulab.ascend_tools.smi.info import Process, parse_info
from npulab.course.workshop import preflight as pf

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
    assert pf.execute_check(path, [2, 3], timeout=60).status == "ok"
    assert pf.execute_check(path, [7], timeout=60).status == "fail"


@pytest.mark.parametrize(("argv", "code"), [
    (["--npus", "0,1,2,3", "--per-npu", "2"], 0),
    (["--npus", "0,9", "--seats", "2"], 1),
    (["--npus", "0,1", "--seats", "5"], 2),   # more seats than the pool holds
    (["--npus", "a,b"], 2),
])
def test_cli_exit_codes(argv, code, capsys, tmp_path):
    sample = str(samples.path(HEALTHY_8))
    rc = main(["workshop", "preflight", "--smi-file", sample, "--skip-doctor", "--home-dir", str(tmp_path), *argv])
    assert rc == code
    if code == 2:
        assert "错误" in capsys.readouterr().err


def test_cli_json_and_missing_file(capsys, tmp_path):
    sample = str(samples.path(A3))
    assert main(["workshop", "preflight", "--smi-file", sample, "--skip-doctor", "--npus", "0,1", "--json",
                 "--home-dir", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ready"] and [s["npu"] for s in data["seats"]] == [0, 1]
    assert main(["workshop", "preflight", "--smi-file", str(tmp_path / "none.txt"), "--skip-doctor"]) == 2
    with pytest.raises(SystemExit) as bad:
        main(["workshop", "preflight", "--per-npu", "x"])
    assert bad.value.code == 2
