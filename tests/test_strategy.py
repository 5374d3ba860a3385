"""The GPU → NPU decision tree: its data, every branch of ``assess``, answers from a scan, diagram, widget, CLI."""

import json
import subprocess
import sys

import matplotlib
import pytest

from npulab.core.paths import REPO_ROOT
from npulab.migrate import effort, scan, scan_source, strategy

matplotlib.use("Agg")
GPU_PROJECT = REPO_ROOT / "chapters" / "06_advanced" / "examples" / "gpu_project"
PLAIN = {"framework": "pytorch", "kernels": "none", "compile": "eager", "libraries": "none", "distributed": "single",
         "stage": "stable", "latency": "normal"}


def test_tree_data_is_sound():
    assert strategy.check_tree() == []
    assert [q for q, _, _ in strategy.questions()] == list(PLAIN)


def test_plain_pytorch_project_is_a_go():
    a = strategy.assess(PLAIN)
    assert a.verdict == "go" and a.scenario["id"] == "device_strings" and a.effort_days == (0, 1)
    assert a.path == tuple(PLAIN.items()) and a.risks == ()
    assert "transfer_to_npu" in a.sources and "结论：建议迁移" in a.describe()


def answers_reaching(node: str) -> dict:
    """PLAIN answers for the questions before ``node`` (PLAIN never leaves the main line)."""
    order = list(PLAIN)
    return {q: PLAIN[q] for q in order[:order.index(node)]} | {q: PLAIN[q] for q in order[order.index(node) + 1:]}


BRANCHES = [(q, o) for q, _, options in strategy.questions() for o, _ in options]


@pytest.mark.parametrize("question, option", BRANCHES, ids=[f"{q}={o}" for q, o in BRANCHES])
def test_every_branch(question, option):
    t = strategy.tree()
    spec = t["nodes"][question]["options"][option]
    a = strategy.assess(answers_reaching(question) | {question: option})
    assert (question, option) in a.path
    verdicts, rows = strategy.verdict_order(), strategy.scenario_order()
    if spec.get("leaf"):
        leaf = t["leaves"][spec["leaf"]]
        assert a.path[-1] == (question, option) and a.verdict == leaf["verdict"]
        assert leaf["step"] in a.steps and leaf["risk"] in a.risks
        before = strategy.assess(PLAIN).scenario if question != "framework" else None  # a leaf adds no row
        assert a.scenario == before
        return
    if spec.get("scenario"):
        assert rows.index(a.scenario["id"]) >= rows.index(spec["scenario"])
        floor = t["scenario_verdicts"][spec["scenario"]]
        assert verdicts.index(a.verdict) >= verdicts.index(floor)
    if spec.get("verdict"):
        assert verdicts.index(a.verdict) >= verdicts.index(spec["verdict"])
    if spec.get("step"):
        assert spec["step"] in a.steps
    if spec.get("risk"):
        assert spec["risk"] in a.risks
    assert set(spec.get("sources", [])) <= set(a.sources)
    assert a.path[-1][0] == "latency"  # main-line options walk to the last question


def test_outcomes_that_matter():
    a = strategy.assess(PLAIN | {"kernels": "complex"})
    assert (a.verdict, a.scenario["id"], a.effort_days) == ("evaluate_first", "complex_kernel", (28, 60))
    a = strategy.assess(PLAIN | {"kernels": "triton", "libraries": "deploy"})
    assert (a.verdict, a.scenario["id"]) == ("go_with_work", "full_pipeline")  # the more expensive row wins
    assert any("triton-ascend" in s for s in a.steps) and any("vllm-ascend" in s for s in a.steps)
    assert strategy.assess(PLAIN | {"compile": "graph"}).scenario["id"] == "env_debugging"
    assert any("TorchAir" in s for s in strategy.assess(PLAIN | {"compile": "graph"}).steps)
    assert strategy.assess(PLAIN | {"latency": "microsecond"}).verdict == "evaluate_first"
    a = strategy.assess({"framework": "pytorch", "kernels": "simple", "compile": "eager", "libraries": "none",
                         "distributed": "ddp", "stage": "research", "latency": "microsecond"})
    assert a.verdict == "not_now" and a.path[-1] == ("stage", "research")  # the latency answer is never reached


def test_effort_comes_from_the_shared_cost_table():
    rows = {row["id"]: row for row in effort.costs()["scenarios"]}
    for kernels in ("none", "simple", "complex"):
        a = strategy.assess(PLAIN | {"kernels": kernels})
        assert list(a.effort_days) == rows[a.scenario["id"]]["days"]
        assert a.scenario["seed_estimate"] == rows[a.scenario["id"]]["seed_estimate"]
    assert "报告值，不是测量" in strategy.assess(PLAIN).describe()


@pytest.mark.parametrize("answers, message", [
    ({}, "framework"),
    ({"framework": "pytorch"}, r"kernels）还没有回答；可选：none"),
    (PLAIN | {"kernels": "cuda"}, r"问题 kernels 没有选项 'cuda'"),
    (PLAIN | {"gpu": "a100"}, "没有这些问题：gpu"),
    (PLAIN | {"stage": ""}, "项目处在什么阶段"),
])
def test_bad_answers_are_explained(answers, message):
    with pytest.raises(strategy.StrategyError, match=message):
        strategy.assess(answers)


def test_answers_from_the_sample_gpu_project():
    result = scan([GPU_PROJECT])
    answers = strategy.answers_from_scan(result)
    assert answers == {"kernels": "simple", "compile": "graph", "libraries": "none", "distributed": "ddp"}
    assert "1 个 CUDA 内核" in strategy.scan_evidence(result)["kernels"]
    a = strategy.assess(answers | {"framework": "pytorch", "stage": "stable", "latency": "normal"})
    assert a.scenario["id"] == result.effort()["scenario"]["id"] == "simple_kernel"


@pytest.mark.parametrize("source, question, option", [
    ("import triton\n", "kernels", "triton"),
    ("import torch\nx = torch.ones(3)\n", "kernels", "none"),
    ("import torch\nx = torch.ones(3)\n", "compile", "eager"),
    ("import tensorrt\n", "libraries", "deploy"),
    ("import transformer_engine\n", "libraries", "no_equivalent"),
    ("import apex\n", "libraries", "replaceable"),
    ("import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n", "libraries", "replaceable"),
    ("import cupy\n", "kernels", "simple"),
    ("import torch\nf = torch.compile(lambda x: x)\n", "compile", "graph"),
])
def test_answers_from_snippets(source, question, option):
    assert strategy.answers_from_scan(scan_source(source))[question] == option


def test_many_kernels_count_as_complex(tmp_path):
    kernels = "\n".join(f"__global__ void k{i}(float *x) {{ x[{i}] = 0; }}" for i in range(8))
    (tmp_path / "kernels.cu").write_text(kernels, encoding="utf-8")
    assert strategy.answers_from_scan(scan([tmp_path]))["kernels"] == "complex"


def test_diagram_and_widget():
    a = strategy.assess(PLAIN | {"kernels": "simple"})
    fig = strategy.draw(path=a.path)
    texts = {t.get_text() for t in fig.axes[0].texts}
    assert any("少量简单" in t for t in texts) and any("暂不建议迁移" in t for t in texts)
    bold = [p for p in fig.axes[0].patches if p.get_linewidth() > 2]
    assert len(bold) == len(a.path)
    form = strategy.walkthrough(PLAIN)
    rows, output = form.children[:-1], form.children[-1]
    assert len(rows) == len(PLAIN)
    rows[0].children[1].value = "other"  # choosing "other framework" ends the walk: later questions hide
    assert [r.layout.display for r in rows[1:]] == ["none"] * (len(rows) - 1)
    rows[0].children[1].value = "pytorch"
    assert all(r.layout.display == "" for r in rows)
    assert output is not None


def cli(*args):
    return subprocess.run([sys.executable, "-m", "npulab", "strategy", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=120)


def test_cli():
    listing = cli("--list")
    assert listing.returncode == 0 and "framework：" in listing.stdout
    args = [a for q, o in PLAIN.items() for a in ("--answer", f"{q}={o}")]
    from npulab.__main__ import main

    assert main(["strategy", *args, "--json"]) == 0
    scanned = cli("--scan", str(GPU_PROJECT), "--answer", "framework=pytorch", "--answer", "stage=stable",
                  "--answer", "latency=normal", "--json")
    report = json.loads(scanned.stdout)
    assert scanned.returncode == 0 and report["answers"]["kernels"] == "simple" and report["effort_days"] == [7, 14]


def test_cli_bad_input_in_a_subprocess():
    done = cli("--answer", "framework=pytorch")
    assert done.returncode == 2 and "还没有回答" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--answer", "framework"], "问题=选项"),
    (["--answer", "framework=torch"], "没有选项 'torch'"),
    (["--scan", "/nonexistent/project"], "没有找到可扫描的文件"),
])
def test_cli_bad_input(args, message, capsys):
    from npulab.__main__ import main

    assert main(["strategy", *args]) == 2 and message in capsys.readouterr().err
