"""The workshop's checks in English (issue 37): ``workshop preflight`` (seats and host), the hub's prerequisites, the
cluster preflight (``--k8s``), CANN's log line for the hub and workshop mode in the lessons. With NPULAB_LANG=en every
text they print comes from npulab/data/messages/workshop_checks.yaml and holds no Chinese, with the same numbers, seat
names and NPU ids as the Chinese and the same exit codes; with NPULAB_LANG=zh the output is the Chinese it was.

The seats are judged from the recorded npu-smi tables the preflight tests use (npulab/data/samples/) and the cluster
from the recorded-shape API responses of tests/data/k8s/."""

from __future__ import annotations

import copy
import json
import re

import nbformat
import pytest
from english_checks import CJK, no_cjk

from npulab.__main__ import main
from npulab.ascend_tools.smi import samples
from npulab.ascend_tools.smi.info import Process, parse_info
from npulab.core.i18n import catalogue
from npulab.core.paths import REPO_ROOT
from npulab.workshop import cann_env, mode
from npulab.workshop import hub_checks as hc
from npulab.workshop import k8s_preflight as kp
from npulab.workshop import preflight as pf
from npulab.workshop.seat_sizes import SEAT_SIZES
from npulab.workshop.settings import WorkshopSettings

HEALTHY_8 = "info_910b3_8card_24.1.rc1.txt"
A3 = "info_a3_8npu_16die_25.2.1.txt"
K8S = REPO_ROOT / "tests" / "data" / "k8s"


def numbers(text: str) -> list[str]:
    """The numbers of a text, in order of size: what the two languages must both say."""
    return sorted(re.findall(r"\d+(?:\.\d+)?", text))


def both(monkeypatch, make):
    """``make()`` in English (checked free of Chinese) and in Chinese; the same numbers in both."""
    monkeypatch.setenv("NPULAB_LANG", "en")
    english = make()
    monkeypatch.setenv("NPULAB_LANG", "zh")
    chinese = make()
    monkeypatch.setenv("NPULAB_LANG", "en")
    assert CJK.search(chinese), chinese
    assert numbers(no_cjk(english)) == numbers(chinese), (english, chinese)
    return english, chinese


def troubled_table():
    """The recorded idle 8 × 910B3 table, parsed, with one NPU busy in each way and two alarms (as test_preflight)."""
    info = copy.deepcopy(parse_info(samples.text(HEALTHY_8)))
    info.processes.append(Process(npu_id=3, chip_id=0, pid=4242, name="python3", memory_mb=20480))
    info.chips[4].aicore_pct = 87
    info.chips[5].hbm_used_mb = 40000
    info.chips[1].health = "Alarm"
    info.chips[2].health = "Warning"
    return info


# ----------------------------------------------------------------------------------------------- the seat table


def test_recorded_idle_host_in_english_says_the_same_seats_and_numbers(monkeypatch):
    seats = {f"s{i}": i % 8 for i in range(16)} | {"ghost": 9}
    info = parse_info(samples.text(HEALTHY_8))
    english, chinese = both(monkeypatch, lambda: pf.preflight(seats, info, source=HEALTHY_8).render())
    assert "Participant" in english and "Memory used / total" in english and "Notes" in english
    assert "3318 / 65536 MB" in english and "16/17 seats ready; not ready" in english
    assert "npu-smi does not list NPU 9 (it lists: 0, 1, 2, 3, 4, 5, 6, 7)" in english
    assert "shared with 1 other(s), about 31109 MB each" in english
    for user in seats:
        assert re.search(rf"^{user}\s", english, re.M) and re.search(rf"^{user}\s", chinese, re.M)
    # the Chinese is the text it was before the catalogue
    assert "npu-smi 没有列出 NPU 9（列出的是：0, 1, 2, 3, 4, 5, 6, 7）" in chinese
    assert "与另外 1 人共用，每人约 31109 MB" in chinese
    assert chinese.endswith("16/17 个座位就绪；未就绪：先处理上面标为占用、故障或 ✗ 的项。")


def test_busy_and_faulty_seats_in_english(monkeypatch):
    info = troubled_table()
    seats = {f"s{i}": i for i in range(8)}
    english, chinese = both(monkeypatch, lambda: pf.preflight(seats, info, source="sample").render())
    rows = {line.split()[0]: line for line in english.splitlines() if line.startswith("s")}
    assert " fault " in rows["s1"] and "health is Alarm: look up the alarm code with npu-smi info -t health -i 1" in rows["s1"]
    assert " ready " in rows["s2"] and "minor alarm (Warning)" in rows["s2"]
    assert " busy " in rows["s3"] and "1 process(es) already use this card: 4242 python3 (20480 MB)" in rows["s3"]
    assert "AI Core at 87 % (an idle card shows at most 5 %)" in rows["s4"]
    assert "61% of the memory in use (an idle card uses at most 10%)" in rows["s5"]
    assert "Host: not checked" in english and "4/8 seats ready" in english
    assert "健康状态为 Alarm：先用 npu-smi info -t health -i 1 查告警码" in chinese
    assert "已有 1 个进程在用这张卡：4242 python3 (20480 MB)" in chinese and "显存已用 61%（空闲卡应不超过 10%）" in chinese
    html = pf.preflight(seats, info)._repr_html_()
    assert "<table" in no_cjk(html) and "4/8 seats ready" in html


def test_no_table_cpu_mode_and_npu_smi_failures(monkeypatch, en):
    assert "0/1 seats ready" in no_cjk(pf.preflight({"a": 0}, None).render())
    assert "CPU mode: no NPU used" in no_cjk(pf.preflight({"a": 0}, None, cpu_only=True).render())
    info, why = pf.read_smi(runner=lambda argv: type("R", (), {"returncode": 127, "stdout": "", "stderr": "npu-smi: not found"})())
    assert info is None and no_cjk(why) == "npu-smi info did not succeed (exit code 127): npu-smi: not found"
    info, why = pf.read_smi(runner=lambda argv: type("R", (), {"returncode": 0, "stdout": "hello", "stderr": ""})())
    assert info is None and no_cjk(why).startswith("npu-smi info on this host cannot be parsed: ")
    info, source = pf.read_smi(samples.path(A3))
    assert no_cjk(source) == f"file {samples.path(A3)}" and info is not None


# ----------------------------------------------------------------------------------------------- the host


def test_host_checks_in_english(monkeypatch, tmp_path):
    from types import SimpleNamespace

    def diagnose():
        return [SimpleNamespace(id="version_alignment", status="fail", message="torch_npu 2.1.0 needs CANN 8.0"),
                SimpleNamespace(id="python", status="ok", message="3.11"), SimpleNamespace(id="x", status="skip", message="")]

    failed, _ = both(monkeypatch, lambda: pf.doctor_check(diagnose).message)
    assert failed == "version_alignment: torch_npu 2.1.0 needs CANN 8.0 (details: python -m npulab doctor)"
    assert both(monkeypatch, lambda: pf.doctor_check(lambda: diagnose()[1:]).message)[0] == "1 passed, 1 skipped"
    disk, _ = both(monkeypatch, lambda: pf.disk_check(tmp_path, seats=3, per_seat_gb=1e9).message)
    assert disk.startswith(f"{tmp_path} has ") and "3 seats at 1e+09 GB each need 3000000000.0 GB" in disk
    short, zh = both(monkeypatch, lambda: pf.capacity_check(12, cpu_only=True, cores=2, memory_gb=24).message)
    assert "12 seats at 1 core(s) and 4 GiB each need 12 cores and 48 GiB: not enough memory" in short
    assert zh.endswith("：内存不够，学员的内核会被系统杀掉。减少座位，或换更大的机器")
    slow, _ = both(monkeypatch, lambda: pf.capacity_check(5, cpu_only=True, cores=2, memory_gb=64).message)
    assert "about 2.5 times slower (the whole workshop runs on CPU" in slow
    npu_room, _ = both(monkeypatch, lambda: pf.capacity_check(8, cpu_only=False, cores=4, memory_gb=512).message)
    assert "the host's cores matter less" in npu_room
    (tmp_path / "templates.txt").write_text("npu-smi info -t template-info\nThis device does not support querying "
                                            "template-info.\n")
    vnpu, _ = both(monkeypatch, lambda: pf.vnpu_check(3, tmp_path / "templates.txt").message)
    assert vnpu.startswith("3 people time-share each NPU; AI Cores and memory are not isolated; the driver offers no ")
    notebooks, zh = both(monkeypatch, lambda: pf.notebooks_check().message)
    assert re.fullmatch(r"\d+ notebook\(s\) are valid; python3 kernel: .+", notebooks) and "个笔记本格式有效" in zh


def test_execute_in_cpu_mode_and_without_an_npu_in_english(en, tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    ok = pf.execute_check(path, [2], timeout=60, cpu_only=True)
    assert ok.status == "ok" and no_cjk(ok.message).startswith("probe.ipynb ran 1 time(s) in CPU mode (this host has no")
    assert re.search(r"; longest run \d+\.\d s \(measured\)$", ok.message)
    failed = pf.execute_check(path, [3], timeout=60)
    # the probe's reason is written into the kernel's code in the reader's language, so it comes back in English too
    assert failed.status == "fail" and no_cjk(failed.message).startswith(
        "probe.ipynb failed: NPU 3: the notebook ran to the end, but the kernel has no usable NPU (")


def test_hub_prerequisites_in_english(monkeypatch, tmp_path):
    missing = tmp_path / "davinci_manager"
    npu, zh = both(monkeypatch, lambda: hc.npu_check(smi_file="saved.txt", cpu_only=False, device=missing).message)
    assert npu == (f"this host has no Ascend NPU (no {missing}: the driver is not loaded); the seat table's npu-smi data "
                   "comes from the file saved.txt, not from this host. If the whole workshop runs on CPU only, add --cpu-only")
    assert zh == (f"本机没有昇腾 NPU（没有 {missing}，驱动未加载）；座位表里的 npu-smi 数据来自文件 saved.txt，不是本机。"
                  "若整场工作坊只用 CPU，加 --cpu-only")
    assert "--cpu-only" in both(monkeypatch, lambda: hc.npu_check(smi_file=None, cpu_only=True, device=missing).message)[0]
    cann = both(monkeypatch, lambda: hc.cann_check({"WORKSHOP_CANN_SET_ENV": str(tmp_path / "none.sh")}, cpu_only=True)[0].message)[0]
    assert cann.endswith("participants' kernels will have no CANN; acceptable in CPU mode")
    nowhere = {"PATH": str(tmp_path / "empty")}
    proxy = both(monkeypatch, lambda: hc.proxy_check(tmp_path / "workshop", nowhere).message)[0]
    assert proxy.startswith("JupyterHub's proxy configurable-http-proxy not found") and "make workshop-deps" in proxy
    assert both(monkeypatch, lambda: hc.port_check("127.0.0.1", 0).message)[0] == "127.0.0.1:0 is free"
    settings = WorkshopSettings.from_env({"WORKSHOP_IP": "0.0.0.0", "WORKSHOP_PORT": "8443",
                                          "WORKSHOP_SSL_CERT": str(tmp_path / "c.pem"), "WORKSHOP_SSL_KEY": str(tmp_path / "k.pem")})
    tls = both(monkeypatch, lambda: hc.bind_check(settings).message)[0]
    assert tls.startswith("listens publicly on 0.0.0.0:8443 without TLS") and f"(not found: {tmp_path}/c.pem, {tmp_path}/k.pem)" in tls
    local = both(monkeypatch, lambda: hc.bind_check(WorkshopSettings.from_env({})).message)[0]
    assert local.startswith("listens on the loopback address 127.0.0.1:")
    accounts = both(monkeypatch, lambda: hc.accounts_check(["a" * 30, "ok"], euid=0, useradd="/usr/sbin/useradd").message)[0]
    assert accounts.startswith("these names cannot become Unix accounts as they are") and "a" * 30 + " → jupyter-" in accounts
    root = both(monkeypatch, lambda: hc.accounts_check(["a"], euid=1000, useradd=None).message)[0]
    assert "must run as root" in root and "; useradd not found" in root


def test_hub_checks_of_a_host_without_npu_and_cann_in_english(en, tmp_path):
    checks, variables = hc.hub_checks(WorkshopSettings.from_env({"WORKSHOP_PORT": "0"}), ["alice"], smi_file=None,
                                      cpu_only=False, environ={"WORKSHOP_CANN_SET_ENV": str(tmp_path / "none.sh")})
    assert variables == {} and [c.id for c in checks] == ["npu", "cann", "proxy", "port", "tls", "accounts"]
    for check in checks:
        no_cjk(check.message)


# ----------------------------------------------------------------------------------------------- preflight on the command line


@pytest.mark.parametrize(("argv", "code"), [
    (["--npus", "0,1,2,3", "--per-npu", "2"], 0),
    (["--npus", "0,9", "--seats", "2"], 1),
    (["--npus", "0,1", "--seats", "5"], 2),   # more seats than the pool holds
    (["--npus", "a,b"], 2),
])
def test_preflight_cli_in_english_with_the_same_exit_codes(en, argv, code, capsys, tmp_path):
    sample = str(samples.path(HEALTHY_8))
    rc = main(["workshop", "preflight", "--smi-file", sample, "--skip-doctor", "--skip-hub", "--home-dir", str(tmp_path),
               *argv])
    assert rc == code
    captured = capsys.readouterr()
    no_cjk(captured.out + captured.err)
    if code == 2:
        assert captured.err.startswith("error: ")
        assert ("5 participants exceed the capacity: 2 NPUs × 1 per NPU = 2; use --per-npu 3" in captured.err
                or "--npus takes comma-separated NPU ids, e.g. 0,1,2,3; got 'a,b'" in captured.err)
    else:
        assert f"Workshop preflight (npu-smi data: file {sample})" in captured.out
        assert "seat01 " in captured.out and "2 GB each need" in captured.out
    if code == 1:
        assert "npu-smi does not list NPU 9 (it lists: 0, 1, 2, 3, 4, 5, 6, 7)" in captured.out
        assert "1/2 seats ready; not ready" in captured.out


def test_preflight_cli_chinese_unchanged(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    sample = str(samples.path(HEALTHY_8))
    rc = main(["workshop", "preflight", "--smi-file", sample, "--skip-doctor", "--skip-hub", "--home-dir", str(tmp_path),
               "--npus", "0,9", "--seats", "2"])
    out = capsys.readouterr().out
    assert rc == 1 and f"工作坊课前检查（npu-smi 数据：文件 {sample}）" in out and "座位01 " in out
    assert "npu-smi 没有列出 NPU 9（列出的是：0, 1, 2, 3, 4, 5, 6, 7）" in out
    assert "主机：\n" in out and "1/2 个座位就绪；未就绪：先处理上面标为占用、故障或 ✗ 的项。" in out


def test_preflight_cli_with_every_host_check_in_english(en, monkeypatch, capsys, tmp_path):
    """The whole report as the instructor runs it the evening before, on this host: no NPU, no CANN, a saved table."""
    monkeypatch.setenv("WORKSHOP_CANN_SET_ENV", str(tmp_path / "none.sh"))
    monkeypatch.setenv("WORKSHOP_PORT", "0")
    monkeypatch.setattr(hc, "NPU_DEVICE", tmp_path / "davinci_manager")
    sample = str(samples.path(A3))
    base = ["workshop", "preflight", "--skip-doctor", "--home-dir", str(tmp_path), "--npus", "0,1", "--per-npu", "2",
            "--template-file", str(tmp_path / "missing.txt")]
    assert main([*base, "--smi-file", sample]) == 2  # the template file is missing: a usage error
    assert no_cjk(capsys.readouterr().err).strip() == f"error: template-info file not found: {tmp_path / 'missing.txt'}"
    (tmp_path / "templates.txt").write_text("This device does not support querying template-info.\n")
    base[-1] = str(tmp_path / "templates.txt")
    assert main([*base, "--smi-file", sample]) == 1  # a saved npu-smi table does not make an NPU host
    out = no_cjk(capsys.readouterr().out)
    assert "  ✗ npu: this host has no Ascend NPU" in out and "  ✗ cann: CANN's set_env.sh not found" in out
    assert "  ! vnpu: 2 people time-share each NPU" in out and "4/4 seats ready; not ready" in out
    monkeypatch.setenv("NPULAB_LANG", "zh")
    code = main([*base, "--cpu-only", "--json"])  # proxy and accounts depend on this host: the same code in English
    chinese = json.loads(capsys.readouterr().out)
    monkeypatch.setenv("NPULAB_LANG", "en")
    assert main([*base, "--cpu-only", "--json"]) == code
    data = json.loads(capsys.readouterr().out)
    assert [(h["id"], h["status"]) for h in data["host"]] == [(h["id"], h["status"]) for h in chinese["host"]]
    assert [s["status"] for s in data["seats"]] == ["ready"] * 4  # the JSON keys and status ids stay
    for seat in data["seats"]:
        assert seat["notes"] == ["CPU mode: no NPU used"]
    for check in data["host"]:
        no_cjk(check["message"])


# ----------------------------------------------------------------------------------------------- the cluster


def _nodes(name):
    return json.loads((K8S / name).read_text(encoding="utf-8"))["items"]


@pytest.mark.parametrize(("nodes", "plugin", "chip", "hami"), [
    ("nodes_hami.json", "hami", "910B3", True), ("nodes_hami.json", "hami", "910B3", False),
    ("nodes_mindcluster.json", "mindcluster", "910", False), ("nodes_mindcluster.json", "mindcluster", "910B", False),
    ("nodes_mindcluster.json", "mindcluster", "310P", False),
])
def test_cluster_report_in_english_for_every_size(monkeypatch, nodes, plugin, chip, hami):
    config = json.loads((K8S / "hami_configmap.json").read_text(encoding="utf-8")) if hami else None
    for size in SEAT_SIZES:
        def report(size=size):
            return kp.cluster_report(_nodes(nodes), plugin, chip, size, 30, "saved", config)

        english, _ = both(monkeypatch, lambda: report().render())
        assert f"Roster of 30, seat size {size.key} (" in english and "Total" in english
        data, zh_data = both(monkeypatch, lambda: json.dumps(report().to_dict(), ensure_ascii=False))
        assert json.loads(data).keys() == json.loads(zh_data).keys()


def test_cluster_notes_in_english(en):
    hami = {n["metadata"]["name"]: n for n in _nodes("nodes_hami.json")}
    short = kp.node_seats(hami["atlas-a2-02"], "hami", "910B3", json.loads((K8S / "hami_configmap.json").read_text()))
    assert no_cjk("; ".join(short.notes)) == "1 chip(s) unhealthy (health=false in HAMi's registration)"
    assert short.offer == "7/8 Ascend910B3, huawei.com/Ascend910B3: 28, template vir05_1c_16g: 28"
    mind = {n["metadata"]["name"]: n for n in _nodes("nodes_mindcluster.json")}
    cut = kp.node_seats(mind["atlas-800-9000-01"], "mindcluster", "910")
    assert cut.notes == ["vNPU seats = 8 × vir08 + 6 uncut whole cards (participants beyond that take whole-card seats)"]
    uncut = kp.node_seats(mind["atlas-800t-a2-01"], "mindcluster", "910")
    assert no_cjk(uncut.notes[0]).startswith("no vir08 has been cut (cut them with npu-smi first and restart the plugin)")
    with pytest.raises(ValueError, match="^unparsable quantity '8 cards'$"):
        kp.quantity("8 cards")


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--plugin", "hami", "--seats", "40", "--hami-config-file", str(K8S / "hami_configmap.json")], 0,
     "the cluster holds 60; enough."),
    (["--plugin", "hami", "--seats", "40"], 1, "not enough: 25 short."),
    (["--plugin", "mindcluster", "--seats", "20"], 0, "the cluster holds 22; enough."),
    (["--plugin", "mindcluster", "--seats", "23"], 1, "not enough: 1 short."),
])
def test_k8s_preflight_cli_in_english(en, capsys, args, code, words):
    nodes = K8S / ("nodes_hami.json" if "hami" in args else "nodes_mindcluster.json")
    assert main(["workshop", "preflight", "--k8s", "--nodes-file", str(nodes), *args]) == code
    out = no_cjk(capsys.readouterr().out)
    assert words in out and f"Cluster preflight (data: file {nodes}" in out


def test_k8s_cli_errors_in_english(en, monkeypatch, capsys):
    assert main(["workshop", "preflight", "--k8s", "--nodes-file", "/nonexistent.json"]) == 2
    assert no_cjk(capsys.readouterr().err).strip() == "error: file not found: /nonexistent.json"
    assert main(["workshop", "preflight", "--k8s", "--nodes-file", str(K8S / "nodes_hami.json"),
                 "--roster", "/nonexistent.txt"]) == 2
    assert no_cjk(capsys.readouterr().err).strip() == "error: roster file not found: /nonexistent.txt"
    from kubernetes import config

    def refuse(*args, **kwargs):
        raise config.ConfigException("Service host/port is not set.")

    monkeypatch.setattr(config, "load_kube_config", refuse)
    monkeypatch.setattr(config, "load_incluster_config", refuse)
    assert main(["workshop", "preflight", "--k8s", "--seats", "3"]) == 1
    assert no_cjk(capsys.readouterr().out).startswith(
        "cannot reach the Kubernetes API (ConfigException: Service host/port is not set.)")


def test_size_titles_are_the_seat_sizes_own(monkeypatch):
    """The cluster report names a seat size by its own title (``SeatSize.label``): Chinese as in SEAT_SIZES, English
    from its twin."""
    for size in SEAT_SIZES:
        monkeypatch.setenv("NPULAB_LANG", "zh")
        assert size.label() == size.title
        monkeypatch.setenv("NPULAB_LANG", "en")
        assert no_cjk(size.label()) == size.title_en


def test_cann_log_lines_in_english(monkeypatch, tmp_path):
    from npulab.testing.synthetic_cann import make_synthetic_install

    assert both(monkeypatch, lambda: cann_env.load_cann({}, home=tmp_path / "empty")[2])[0].startswith(
        "Warning: CANN's set_env.sh not found")
    script = make_synthetic_install(tmp_path / "Ascend") / "ascend-toolkit" / "set_env.sh"
    line, zh = both(monkeypatch, lambda: cann_env.load_cann({"WORKSHOP_CANN_SET_ENV": str(script)}, home=tmp_path)[2])
    assert line.startswith(f"CANN environment: read {script} in a clean environment (env -i) and hand ")
    assert f"读取了 {script}" in zh
    with pytest.raises(FileNotFoundError, match="^CANN's environment script not found: "):
        cann_env.read_set_env(tmp_path / "none.sh")


SEAT = {"NPULAB_WORKSHOP_SEAT": "alice", "NPULAB_SEAT_DEVICES": "3", "NPULAB_SEAT_PORT": "20030"}


def test_workshop_mode_speaks_english(monkeypatch, capsys):
    line, zh = both(monkeypatch, lambda: mode.seat_line(mode.current_seat(SEAT)))
    assert line == ("Workshop seat: alice; your NPU: 3 (ASCEND_RT_VISIBLE_DEVICES is set; use npu:0 in the code); "
                    "private ports 20030–20039")
    assert zh == "工作坊座位：alice；你的 NPU：3（已设好 ASCEND_RT_VISIBLE_DEVICES，代码里用 npu:0 即可）；私有端口 20030–20039"

    def printed():
        capsys.readouterr()
        assert mode.seat_job([4, 5], min_cards=2, environ=SEAT) is None
        assert mode.tool_device(0, SEAT) == 3
        assert mode.workshop_skip("it takes all 8 cards", SEAT)
        assert mode.seat_job([4, 5], environ=SEAT).devices == (3,)
        return capsys.readouterr().out

    english, _ = both(monkeypatch, printed)
    assert english.splitlines() == [
        "Workshop mode (alice): this cell needs at least 2 NPU(s) and your seat has only 1 (NPU 3), so it does not run: "
        "it would use other seats' cards. Watch the instructor's demo, or read the notes below this cell.",
        "Workshop mode (alice): using your seat's NPU 3 instead of the lesson's NPU 0",
        "Workshop mode (alice): this cell does not run on the shared server: it takes all 8 cards",
        "Workshop mode (alice): using your seat's NPU 3 (the lesson: 4, 5)"]
    with pytest.raises(ValueError, match="between 0 and 9; got 10"):
        mode.current_seat(SEAT).port(10)


def test_every_message_has_both_languages_and_the_same_fields():
    entries = {k: v for k, v in catalogue().items() if k.startswith("workshop.checks.")}
    assert len(entries) > 100
    for key, text in entries.items():
        assert set(text) == {"zh", "en"}, key
        no_cjk(text["en"])
        assert set(re.findall(r"\{(\w+)", text["zh"])) == set(re.findall(r"\{(\w+)", text["en"])), key
