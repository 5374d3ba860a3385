"""``workshop preflight --k8s`` against RECORDED-shape API responses (tests/data/k8s/, see README.md there): how many
seats of each size fit per node, for both device plugins, with a node that offers fewer vNPUs than its chips (one
chip unhealthy), HAMi without its template ConfigMap, and a chip without vNPU templates (fallback to whole cards)."""

from __future__ import annotations

import json

import pytest

from npulab.__main__ import main
from npulab.core.paths import REPO_ROOT
from npulab.workshop.k8s_preflight import cluster_report, hami_templates, node_seats, quantity
from npulab.workshop.seat_sizes import SIZES

DATA = REPO_ROOT / "tests" / "data" / "k8s"


def _nodes(name):
    return {n["metadata"]["name"]: n for n in json.loads((DATA / name).read_text(encoding="utf-8"))["items"]}


def _hami_config():
    return json.loads((DATA / "hami_configmap.json").read_text(encoding="utf-8"))


def test_quantities():
    assert quantity("63500m") == 63.5 and quantity("16Gi") == 16 * 2**30 and quantity("8") == 8
    with pytest.raises(ValueError):
        quantity("8 cards")


def test_hami_node_with_an_unhealthy_chip_offers_fewer_vnpus():
    nodes, config = _nodes("nodes_hami.json"), _hami_config()
    full = node_seats(nodes["atlas-a2-01"], "hami", "910B3", config)
    short = node_seats(nodes["atlas-a2-02"], "hami", "910B3", config)
    assert full.seats == {"cpu": 192, "vnpu": 32, "npu": 8, "node8": 1}  # 8 chips × min(4, 65536//16384, 20//5)
    assert short.seats["vnpu"] == 28 and short.seats["npu"] == 7 and short.seats["node8"] == 0
    assert any("不健康" in n for n in short.notes)
    assert hami_templates(config, "910B3")["vir05_1c_16g"]["memory"] == 16384


def test_hami_without_its_configmap_falls_back_to_whole_cards():
    seats = node_seats(_nodes("nodes_hami.json")["atlas-a2-01"], "hami", "910B3", None)
    assert seats.seats["vnpu"] == seats.seats["npu"] == 8
    assert any("按整卡算" in n for n in seats.notes)


def test_mindcluster_static_vnpus_and_a_chip_without_templates():
    nodes = _nodes("nodes_mindcluster.json")
    cut = node_seats(nodes["atlas-800-9000-01"], "mindcluster", "910")
    assert cut.seats["vnpu"] == 14 and cut.seats["npu"] == 6  # huawei.com/Ascend910-8c: 8 next to 6 whole cards
    uncut = node_seats(nodes["atlas-800t-a2-01"], "mindcluster", "910")
    assert uncut.seats["vnpu"] == 8 and any("没有切好的 vir08" in n for n in uncut.notes)
    a2 = node_seats(nodes["atlas-800t-a2-01"], "mindcluster", "910B")
    assert a2.seats["vnpu"] == a2.seats["npu"] == 8 and any("没有 vNPU 模板" in n for n in a2.notes)


def test_cpu_node_seats_come_from_cpu_and_memory():
    cpu = node_seats(_nodes("nodes_hami.json")["cpu-01"], "hami", "910B3", _hami_config())
    assert cpu.seats == {"cpu": 31, "vnpu": 0, "npu": 0, "node8": 0}  # 125 GiB allocatable ÷ 4 GiB; 32 cores ÷ 1


def test_report_verdict_and_warnings():
    nodes = list(_nodes("nodes_hami.json").values())
    report = cluster_report(nodes, "hami", "910B3", SIZES["vnpu"], 40, "test", _hami_config())
    assert report.capacity == 60 and report.fits
    assert not cluster_report(nodes, "hami", "910B3", SIZES["node8"], 2, "test", _hami_config()).fits
    mind = cluster_report(list(_nodes("nodes_mindcluster.json").values()), "mindcluster", "310P", SIZES["npu"], 1, "t")
    assert not mind.fits and any("Pending" in w for w in mind.warnings)


@pytest.mark.parametrize(("args", "code", "words"), [
    (["--plugin", "hami", "--seats", "40", "--hami-config-file", str(DATA / "hami_configmap.json")], 0, "够用"),
    (["--plugin", "hami", "--seats", "40"], 1, "还差 25 个"),
    (["--plugin", "mindcluster", "--seats", "20"], 0, "集群可容纳 22 人"),
    (["--plugin", "mindcluster", "--seats", "23"], 1, "还差 1 个"),
])
def test_cli_exit_codes(capsys, args, code, words):
    nodes = DATA / ("nodes_hami.json" if "hami" in args else "nodes_mindcluster.json")
    assert main(["workshop", "preflight", "--k8s", "--nodes-file", str(nodes), *args]) == code
    assert words in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--nodes-file", "/nonexistent.json"], ["--chip", "H100"],
                                  ["--size", "huge"], ["--roster", "/nonexistent.txt"]])
def test_cli_bad_input_is_usage(capsys, args):
    try:  # argparse exits 2 itself; the tool returns 2 for a UsageError
        code = main(["workshop", "preflight", "--k8s", "--nodes-file", str(DATA / "nodes_hami.json"), *args])
    except SystemExit as exit_info:
        code = exit_info.code
    assert code == 2
    assert "错误" in capsys.readouterr().err


def test_the_api_path_reads_the_same_responses(monkeypatch):
    """Without files, preflight asks the official client for the nodes and HAMi's ConfigMap (raw JSON, as kubectl)."""
    from kubernetes import client, config

    from npulab.workshop.k8s_preflight import read_cluster

    asked = []

    class FakeCoreV1:
        def list_node(self, _preload_content=True):
            asked.append("nodes")
            return type("R", (), {"data": (DATA / "nodes_hami.json").read_bytes()})()

        def read_namespaced_config_map(self, name, namespace, _preload_content=True):
            asked.append(f"{namespace}/{name}")
            return type("R", (), {"data": (DATA / "hami_configmap.json").read_bytes()})()

    monkeypatch.setattr(config, "load_kube_config", lambda: None)
    monkeypatch.setattr(client, "CoreV1Api", FakeCoreV1)
    nodes, hami, source = read_cluster(None, None, "hami")
    assert asked == ["nodes", "kube-system/hami-scheduler-device"] and "kubeconfig" in source
    assert cluster_report(nodes, "hami", "910B3", SIZES["vnpu"], 40, source, hami).capacity == 60


def test_no_cluster_is_said_in_chinese(monkeypatch, capsys):
    from kubernetes import config

    def refuse(*args, **kwargs):
        raise config.ConfigException("Service host/port is not set.")

    monkeypatch.setattr(config, "load_kube_config", refuse)
    monkeypatch.setattr(config, "load_incluster_config", refuse)
    assert main(["workshop", "preflight", "--k8s", "--seats", "3"]) == 1
    assert "连不上 Kubernetes API" in capsys.readouterr().out
