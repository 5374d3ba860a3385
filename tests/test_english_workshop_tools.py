"""The workshop instructor's tools in the reader's language (issue 37): agenda, seats, accounts and k8s-values speak
English with NPULAB_LANG=en and keep every fact (times, minutes, names, NPUs, ports, exit codes); Chinese unchanged."""

from __future__ import annotations

import json
import re

from english_checks import no_cjk

from npulab.__main__ import main
from npulab.workshop.seats import SeatPool

AGENDA = ["workshop", "agenda", "--minutes", "210", "--chapters", "01,03", "--start", "09:00"]
ROW = re.compile(r"^(\d\d:\d\d)\s+(\d+) \S+\s+.*?(?:[（(]((?:chapters|notebooks)/\S+?)[；;]|$)", re.M)


def _run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _rows(text):
    """(clock, minutes, path) of every agenda row: the facts both languages must share."""
    return ROW.findall(text)


def test_agenda_in_english_keeps_times_minutes_and_exit_code(en, capsys):
    en.setenv("NPULAB_LANG", "zh")
    zh_code, zh_out, _ = _run(capsys, AGENDA)
    en.setenv("NPULAB_LANG", "en")
    en_code, en_out, _ = _run(capsys, AGENDA)
    no_cjk(en_out)
    assert zh_code == en_code == 1  # something did not fit, in both languages
    assert _rows(en_out) == _rows(zh_out) and len(_rows(en_out)) >= 6
    assert "Break" in en_out and "Does not fit:" in en_out and "not enough time" in en_out
    assert "Hello NPU: a first program" in en_out  # the English edition's title of chapters/01_environment/02_hello_npu
    assert "Chapter 01 quiz:" in en_out and 'its prerequisite "' in en_out
    total = re.search(r"^Total (\d+) min \((\d+) of course \+ (\d+) of breaks\), budget 210 min, (\d+) min left$", en_out, re.M)
    zh_total = re.search(r"^合计 (\d+) 分钟（课程 (\d+) \+ 休息 (\d+)），预算 210 分钟，剩余 (\d+) 分钟$", zh_out, re.M)
    assert total and zh_total and total.groups() == zh_total.groups()


def test_agenda_unlimited_json_and_usage_errors_in_english(en, capsys):
    code, out, _ = _run(capsys, ["workshop", "agenda", "--chapters", "01"])
    assert code == 0 and "no time limit" in no_cjk(out) and "Does not fit" not in out
    code, out, _ = _run(capsys, ["workshop", "agenda", "--chapters", "01", "--json"])
    data = json.loads(no_cjk(out))
    assert code == 0 and set(data) == {"rows", "skipped", "assumed", "used_min"}
    assert [r["item"] for r in data["rows"] if r["path"] is None] == ["Break", "Break"]
    assert data["used_min"] == sum(r["minutes"] for r in data["rows"])
    for argv, words in ((["--chapters", "09"], "--chapters takes chapter numbers from 01,02,03,04,05,06, got '09'"),
                        (["--start", "9h"], "got '9h'"), (["--minutes", "0"], "--minutes must be a positive number, got 0")):
        code, _, err = _run(capsys, ["workshop", "agenda", *argv])
        assert code == 2 and words in no_cjk(err)


def _seat_env(monkeypatch, tmp_path):
    monkeypatch.setenv("WORKSHOP_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("WORKSHOP_NPUS", "0,1")
    monkeypatch.setenv("WORKSHOP_PER_NPU", "2")
    (tmp_path / "roster.txt").write_text("Ann\nBen\nCat\n", encoding="utf-8")
    monkeypatch.setenv("WORKSHOP_ROSTER", str(tmp_path / "roster.txt"))
    pool = SeatPool([0, 1], 2, roster=["Ann", "Ben", "Cat"], state_file=tmp_path / "state" / "seats.json")
    pool.seat("tester")
    return pool


def test_seats_list_free_move_reset_in_english(en, tmp_path, capsys):
    assert main(["workshop", "seats", "--state-dir", str(tmp_path / "none"), "list"]) == 2
    assert "seat file" in no_cjk(capsys.readouterr().err)
    pool = _seat_env(en, tmp_path)
    code, out, _ = _run(capsys, ["workshop", "seats", "list"])
    assert code == 0 and no_cjk(out).startswith("Seat map (4/4 seats taken; NPU 0: 2/2, NPU 1: 2/2)")
    assert re.search(r"^ann\s+0\s+20000–20009\s+yes$", out, re.M)
    assert re.search(r"^tester\s+1\s+20030–20039\s+no \(not on the roster", out, re.M)
    code, out, _ = _run(capsys, ["workshop", "seats", "free", "Tester"])
    assert code == 0 and no_cjk(out).startswith("Freed the seat of tester on NPU 1.")
    code, _, err = _run(capsys, ["workshop", "seats", "free", "tester"])
    assert code == 2 and "tester has no seat" in no_cjk(err)
    code, out, _ = _run(capsys, ["workshop", "seats", "move", "ann", "1"])
    assert code == 0 and no_cjk(out).startswith("Moved ann to NPU 1.")
    assert pool.seats() == {"ann": 1, "ben": 1, "cat": 0}
    code, out, _ = _run(capsys, ["workshop", "seats", "move", "cat", "1"])
    assert code == 1 and no_cjk(out).strip() == ("Not moved: NPU 1 is full (2 per NPU): free a seat first with seats free "
                                                 "or seats move")
    code, _, err = _run(capsys, ["workshop", "seats", "move", "ann", "9"])
    assert code == 2 and "NPU 9 is not in the device pool [0, 1]" in no_cjk(err)
    code, _, err = _run(capsys, ["workshop", "seats", "reset"])
    assert code == 2 and "--yes" in no_cjk(err)
    code, out, _ = _run(capsys, ["workshop", "seats", "reset", "--yes"])
    assert code == 0 and no_cjk(out).startswith("Freed 3 seats and seated 3 from the roster again.")
    code, out, _ = _run(capsys, ["workshop", "seats", "list", "--json"])
    assert code == 0 and [(s["user"], s["device"], s["port"]) for s in json.loads(out)] == [
        ("ann", 0, 20000), ("ben", 1, 20010), ("cat", 0, 20020)]


def test_seats_that_contradict_the_settings_in_english(en, tmp_path, capsys):
    _seat_env(en, tmp_path)
    en.setenv("WORKSHOP_PER_NPU", "1")
    code, _, err = _run(capsys, ["workshop", "seats", "list"])
    assert code == 2 and "NPU 0 seats 2 participants, more than WORKSHOP_PER_NPU=1" in no_cjk(err)
    en.setenv("WORKSHOP_PER_NPU", "2")
    en.delenv("WORKSHOP_NPUS")
    code, out, err = _run(capsys, ["workshop", "seats", "list"])
    assert code == 0 and "note: WORKSHOP_NPUS not set" in no_cjk(err) and "(8 NPUs × 2 per NPU)" in err
    assert no_cjk(out).startswith("Seat map (4/16 seats taken; NPU 0: 2/2, NPU 1: 2/2, NPU 2: 0/2")


def test_seat_page_and_npu_owners_in_english(en):
    import copy

    from npulab.ascend_tools.smi import samples
    from npulab.ascend_tools.smi.info import Process, parse_info
    from npulab.workshop.npu_owners import owners_table
    from npulab.workshop.seat_service import page

    pool = SeatPool([0, 1], per_device=2, roster=["Ann", "Ben"])
    pool.seat("tester")
    html = no_cjk(page(pool, "/hub/"))
    assert '<html lang="en">' in html and "Workshop seat map" in html and 'href="/hub/admin"' in html
    assert "without being on the roster: tester" in html
    info = copy.deepcopy(parse_info(samples.text("info_910b3_8card_24.1.rc1.txt")))
    info.processes += [Process(npu_id=3, chip_id=0, pid=101, name="python", memory_mb=2048),
                       Process(npu_id=3, chip_id=0, pid=102, name="python", memory_mb=1024),
                       Process(npu_id=0, chip_id=0, pid=103, name="npu-smi", memory_mb=0)]
    table, wrong = owners_table(info, {"ann": 3, "ben": 5}, owner={101: "jupyter-ann", 102: "jupyter-ben", 103: "root"}.get)
    assert wrong == ["ben"] and no_cjk(table.text())
    assert {r[1]: r[6] for r in table.rows} == {101: "on their own card", 102: "wrong card: the seat is on NPU 5",
                                                103: "not a participant's account (the instructor, the system or the hub itself)"}


def test_accounts_list_in_english(en, capsys):
    from npulab.workshop import accounts

    names = [e.pw_name for e in accounts.workshop_accounts()]
    code, out, _ = _run(capsys, ["workshop", "accounts", "list"])
    assert code == 0 and no_cjk(out).splitlines()[-1] == f"{len(names)} workshop accounts"
    assert [line.split()[0] for line in out.splitlines()[:-1]] == names


def test_k8s_values_in_english_writes_the_same_file(en, tmp_path, capsys):
    en.setenv("NPULAB_LANG", "zh")
    assert main(["workshop", "k8s-values", "--output", str(tmp_path / "zh.yaml")]) == 0
    zh_out = capsys.readouterr().out
    en.setenv("NPULAB_LANG", "en")
    code, out, _ = _run(capsys, ["workshop", "k8s-values", "--output", str(tmp_path / "en.yaml")])
    assert code == 0 and no_cjk(out).strip() == f"Wrote {tmp_path / 'en.yaml'} (device plugin hami, chip 910B3, chart jupyterhub 4.4.0)"
    assert zh_out.strip() == f"已写出 {tmp_path / 'zh.yaml'}（设备插件 hami，芯片 910B3，chart jupyterhub 4.4.0）"
    # the values file is data the hub shows participants: the same (Chinese) file whatever the instructor reads
    assert (tmp_path / "en.yaml").read_text(encoding="utf-8") == (tmp_path / "zh.yaml").read_text(encoding="utf-8")
    code, _, err = _run(capsys, ["workshop", "k8s-values", "--roster", str(tmp_path / "none.txt")])
    assert code == 2 and "roster file" in no_cjk(err)
    (tmp_path / "dup.txt").write_text("Ann\nann\n", encoding="utf-8")
    code, _, err = _run(capsys, ["workshop", "k8s-values", "--roster", str(tmp_path / "dup.txt")])
    assert code == 2 and "the roster names a user twice" in no_cjk(err)
    code, _, err = _run(capsys, ["workshop", "k8s-values", "--plugin", "mindcluster", "--chip", "XX"])
    assert code == 2 and "the data of mindcluster has no chip 'XX' (known: 910, 310P, 910B)" in no_cjk(err)


def test_times_public_toc_and_check_public_in_english(en, tmp_path, capsys):
    code, _, err = _run(capsys, ["workshop", "times", "--cache", str(tmp_path / "none")])
    assert code == 2 and "run make test first" in no_cjk(err)
    code, out, _ = _run(capsys, ["workshop", "public-toc", "--output", str(tmp_path / "toc.yml")])
    assert code == 0 and no_cjk(out).strip() == f"Wrote {tmp_path / 'toc.yml'} (without notebooks/solutions/)"
    code, _, err = _run(capsys, ["workshop", "check-public", str(tmp_path)])
    assert code == 2 and "is not a built website (no index.html)" in no_cjk(err)
    (tmp_path / "index.html").write_text("<html></html>", encoding="utf-8")
    (tmp_path / "page.html").write_text('<a href="notebooks/solutions/lab_solution.html">x</a>', encoding="utf-8")
    code, out, err = _run(capsys, ["workshop", "check-public", str(tmp_path)])
    assert code == 1 and "page.html (links to a solution)" in no_cjk(out + err)


def test_chinese_unchanged(tmp_path, monkeypatch, capsys):
    """The conftest's default is Chinese: the same commands say what they always said."""
    code, out, _ = _run(capsys, AGENDA)
    assert code == 1 and out.startswith("09:00   70 分钟  CANN 与运行环境") and "\n10:10   15 分钟  休息\n" in out
    assert "排不下：\n" in out and "：时间不够（需要 10 分钟，只剩 0 分钟）" in out
    assert "先修「从 CUDA 到昇腾：迁移 PyTorch 代码」没有排进" in out
    code, out, _ = _run(capsys, ["workshop", "agenda", "--chapters", "01"])
    assert code == 0 and "\n合计 220 分钟（课程 190 + 休息 30），不限时\n" in out
    _seat_env(monkeypatch, tmp_path)
    code, out, _ = _run(capsys, ["workshop", "seats", "list"])
    assert code == 0 and out.startswith("座位表（4/4 个座位已分配；NPU 0: 2/2，NPU 1: 2/2）\n学员    NPU  端口         在名单中\n")
    assert "tester  1    20030–20039  否（不在名单中：测试登录或已从名单删除？）" in out
    code, out, _ = _run(capsys, ["workshop", "seats", "move", "cat", "1"])
    assert code == 1 and out == "未移动：NPU 1 已坐满（每张 2 人）：先用 seats free 或 seats move 腾出座位\n"
    code, out, _ = _run(capsys, ["workshop", "seats", "free", "tester"])
    assert code == 0 and out == "已释放 tester 在 NPU 1 上的座位。若其服务器仍在运行，请在 hub 管理页停止它。\n"
    code, out, _ = _run(capsys, ["workshop", "seats", "move", "cat", "1"])
    assert code == 0 and out == "已把 cat 移到 NPU 1。请在 hub 管理页停止并重新启动其服务器，新的卡才会生效。\n"
    code, out, _ = _run(capsys, ["workshop", "accounts", "list"])
    assert code == 0 and re.search(r"^共 \d+ 个工作坊账号$", out, re.M)
