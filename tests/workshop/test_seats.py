"""Seats: names normalised as JupyterHub does, spread evenly, persisted for everyone, and the seat commands."""

import collections
import json
import subprocess
import sys

import pytest

from npulab.__main__ import main
from npulab.workshop import SeatError, SeatPool, normalize_username, read_roster
from npulab.workshop.mode import current_seat


def test_names_are_normalised_as_jupyterhub_6_1_does(tmp_path):
    assert normalize_username("  Alice ") == "alice"
    assert normalize_username("ÉMILE") == "émile"
    assert normalize_username("Bob", {"bob": "robert"}) == "robert"  # Authenticator.username_map after lower()
    roster = tmp_path / "roster.txt"
    roster.write_text("Alice\n\n  Bob  # 第二排\n# 注释\ncarol\n", encoding="utf-8")
    assert read_roster(roster) == ["alice", "bob", "carol"]
    pool = SeatPool([0, 1], roster=["Alice", "Bob"])
    assert pool.seats() == {"alice": 0, "bob": 1}
    assert pool.seat("alice") == 0 and pool.seat("ALICE") == 0  # the hub's "alice" finds the roster's "Alice"
    with pytest.raises(Exception, match="重复"):
        SeatPool([0, 1], roster=["Alice", "alice"])


def test_twenty_seats_on_eight_cards_spread_evenly():
    pool = SeatPool(range(8), per_device=3, roster=[f"u{i:02d}" for i in range(20)])
    assert [n for _, n in sorted(collections.Counter(pool.seats().values()).items())] == [3, 3, 3, 3, 2, 2, 2, 2]
    first_come = SeatPool(range(8), per_device=3)
    for i in range(20):
        first_come.seat(f"w{i}")
    assert sorted(first_come.load().values(), reverse=True) == [3, 3, 3, 3, 2, 2, 2, 2]
    # a freed seat is refilled where the load is lowest
    pool.release("u00")
    assert pool.seat("late") == 0 and max(pool.load().values()) == 3


def test_every_seat_is_persisted_and_a_roster_edit_moves_nobody(tmp_path):
    state = tmp_path / "seats.json"
    SeatPool([0, 1, 2], roster=["ann", "ben"], state_file=state)
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert saved["seats"] == {"ann": {"device": 0, "index": 0}, "ben": {"device": 1, "index": 1}}  # roster ones too
    # a name inserted at the top of the roster: the seated keep their cards, the newcomer takes the free one
    edited = SeatPool([0, 1, 2], roster=["zoe", "ann", "ben"], state_file=state)
    assert edited.seats() == {"ann": 0, "ben": 1, "zoe": 2}
    # a name taken off the roster keeps its seat until freed, and is listed as stale
    fewer = SeatPool([0, 1, 2], roster=["ann", "zoe"], state_file=state)
    assert fewer.seats()["ben"] == 1 and fewer.stale() == ["ben"]
    # the pool object re-reads the file: a change made by another process is seen at the next seat()
    other = SeatPool([0, 1, 2], roster=["ann", "zoe"], state_file=state)
    other.release("ben")
    assert fewer.seat("cat") == 1
    assert fewer.entry("cat").index == 1  # the freed seat's index (and ports) are reused


def test_seat_variables_follow_the_workshop_mode_interface():
    pool = SeatPool([6, 7])
    pool.seat("ann")
    seat = current_seat(pool.variables("bob"))
    assert seat.user == "bob" and seat.devices == (7,) and seat.port() == 20010


def test_old_state_files_are_read(tmp_path):
    state = tmp_path / "seats.json"
    state.write_text(json.dumps({"ann": 4, "ben": 5}), encoding="utf-8")
    pool = SeatPool([4, 5], state_file=state)
    assert pool.seats() == {"ann": 4, "ben": 5}
    with pytest.raises(SeatError):
        pool.seat("cat")


def _seats(tmp_path, monkeypatch, *argv, roster="Ann\nBen\nCat\n", npus="0,1"):
    monkeypatch.setenv("WORKSHOP_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("WORKSHOP_NPUS", npus)
    monkeypatch.setenv("WORKSHOP_PER_NPU", "2")
    (tmp_path / "roster.txt").write_text(roster, encoding="utf-8")
    monkeypatch.setenv("WORKSHOP_ROSTER", str(tmp_path / "roster.txt"))
    return main(["workshop", "seats", *argv])


def test_seat_commands_list_free_move_reset(tmp_path, monkeypatch, capsys):
    assert _seats(tmp_path, monkeypatch, "list") == 2  # the hub never ran: no state file
    assert "找不到座位文件" in capsys.readouterr().err
    pool = SeatPool([0, 1], 2, roster=["Ann", "Ben", "Cat"], state_file=tmp_path / "state" / "seats.json")
    pool.seat("tester")
    assert _seats(tmp_path, monkeypatch, "list") == 0
    out = capsys.readouterr().out
    assert "ann" in out and "20000–20009" in out and "4/4" in out and "不在名单中" in out
    assert _seats(tmp_path, monkeypatch, "free", "Tester") == 0 and "已释放 tester" in capsys.readouterr().out
    assert _seats(tmp_path, monkeypatch, "free", "tester") == 2 and "没有座位" in capsys.readouterr().err
    assert _seats(tmp_path, monkeypatch, "move", "ann", "1") == 0 and "已把 ann 移到 NPU 1" in capsys.readouterr().out
    assert pool.seats() == {"ann": 1, "ben": 1, "cat": 0}
    assert _seats(tmp_path, monkeypatch, "move", "cat", "1") == 1 and "已坐满" in capsys.readouterr().out
    assert _seats(tmp_path, monkeypatch, "move", "ann", "9") == 2 and "不在设备池" in capsys.readouterr().err
    assert _seats(tmp_path, monkeypatch, "reset") == 2 and "--yes" in capsys.readouterr().err
    assert _seats(tmp_path, monkeypatch, "reset", "--yes") == 0 and "已释放 3 个座位" in capsys.readouterr().out
    assert pool.seats() == {"ann": 0, "ben": 1, "cat": 0}
    assert _seats(tmp_path, monkeypatch, "list", "--json") == 0
    assert [s["user"] for s in json.loads(capsys.readouterr().out)] == ["ann", "ben", "cat"]


def test_seat_commands_bad_input_exit_2_without_traceback(tmp_path):
    env_run = [sys.executable, "-m", "npulab", "workshop", "seats", "--state-dir", str(tmp_path), "move", "ann", "x"]
    done = subprocess.run(env_run, capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "参数错误" in done.stderr


def test_npu_processes_are_mapped_to_participants_and_wrong_cards_found():
    import copy

    from npulab.ascend_tools.smi import samples
    from npulab.ascend_tools.smi.info import Process, parse_info
    from npulab.workshop.npu_owners import owners_table, process_owner

    info = copy.deepcopy(parse_info(samples.text("info_910b3_8card_24.1.rc1.txt")))
    info.processes += [Process(npu_id=3, chip_id=0, pid=101, name="python", memory_mb=2048),
                       Process(npu_id=3, chip_id=0, pid=102, name="python", memory_mb=1024),
                       Process(npu_id=0, chip_id=0, pid=103, name="npu-smi", memory_mb=0)]
    owners = {101: "jupyter-ann", 102: "jupyter-ben", 103: "root"}
    table, wrong = owners_table(info, {"ann": 3, "ben": 5}, owner=owners.get)
    assert wrong == ["ben"]
    verdicts = {r[1]: r[6] for r in table.rows}
    assert verdicts == {101: "在自己的卡上", 102: "错卡：座位在 NPU 5", 103: "不是学员账号（讲师、系统或 hub 自己的进程）"}
    import os
    import pwd

    assert process_owner(os.getpid()) == pwd.getpwuid(os.getuid()).pw_name
    assert process_owner(2**22 + 12345) is None


def test_seats_who_reads_npu_smi(tmp_path, monkeypatch, capsys):
    from npulab.ascend_tools.smi import samples

    SeatPool([0, 1], 2, roster=["Ann"], state_file=tmp_path / "state" / "seats.json")
    sample = str(samples.path("info_a3_8npu_16die_25.2.1.txt"))
    assert _seats(tmp_path, monkeypatch, "who", "--smi-file", sample) == 0
    assert "NPU 上没有进程" in capsys.readouterr().out
    assert _seats(tmp_path, monkeypatch, "who", "--smi-file", str(tmp_path / "none.txt")) == 2


def test_seat_commands_say_when_the_variables_are_not_the_hubs(tmp_path, monkeypatch, capsys):
    pool = SeatPool([0, 1], 2, roster=["Ann", "Ben", "Cat"], state_file=tmp_path / "state" / "seats.json")
    pool.seat("dan")
    monkeypatch.delenv("WORKSHOP_PER_NPU", raising=False)
    monkeypatch.delenv("WORKSHOP_NPUS", raising=False)
    monkeypatch.delenv("WORKSHOP_ROSTER", raising=False)
    monkeypatch.setenv("WORKSHOP_STATE_DIR", str(tmp_path / "state"))
    # the hub ran with two seats per card; read with the default of one, the table cannot be right
    assert main(["workshop", "seats", "list"]) == 2
    err = capsys.readouterr().err
    assert "不一致" in err and "多于 WORKSHOP_PER_NPU=1" in err
    monkeypatch.setenv("WORKSHOP_PER_NPU", "2")
    assert main(["workshop", "seats", "list"]) == 0
    captured = capsys.readouterr()
    assert "没有设置 WORKSHOP_NPUS" in captured.err and "4/16" in captured.out  # default pool: 8 cards × 2
