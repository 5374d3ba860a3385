"""Issue 37: `python -m npulab migrate`, `strategy` and `llm-plan` (and the lessons that print through them) speak
English when npulab does, from messages/migrate.yaml, messages/llm.yaml and the <field>_en twins of the data files
(migration_rules.yaml, migration_costs.yaml, migration_tree.yaml, cuda_npu_api.yaml); Chinese stays as it was."""

import json
import re

import pytest
from english_checks import no_cjk

from npulab import migrate
from npulab.__main__ import main
from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR, REPO_ROOT, load_yaml
from npulab.llm import decoder, kv_cache
from npulab.migrate import api_map, display, strategy
from npulab.migrate.effort import costs

EXAMPLE = REPO_ROOT / "chapters" / "03_pytorch_npu" / "examples" / "train_cuda.py"
SNIPPET = """\
import os, subprocess, torch
import apex
import transformer_engine
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
os.environ["NCCL_DEBUG"] = "INFO"
model = torch.nn.Linear(8, 2).cuda()
torch.backends.cudnn.benchmark = True
m = torch.compile(model)
torch.distributed.init_process_group("nccl")
g = torch.cuda.CUDAGraph()
print(subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode)
"""
ANSWERS = ["framework=pytorch", "stage=stable", "latency=normal"]


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train_cuda.py").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "snip.py").write_text(SNIPPET, encoding="utf-8")
    (tmp_path / "k.cu").write_text("__global__ void add(float* a) { a[0] += 1; }\n", encoding="utf-8")
    (tmp_path / "run.sh").write_text("#!/bin/bash\nnvidia-smi\n", encoding="utf-8")
    (tmp_path / "bad.py").write_text("def broken(:\n", encoding="utf-8")
    return tmp_path


def test_migrate_report_in_english(en, project, capsys):
    assert main(["migrate", str(project)]) == 0
    out = no_cjk(capsys.readouterr().out)
    for phrase in ("auto-fixable", "needs review", "no NPU path yet", "device string 'cuda' points to CUDA",
                   "change to torch.npu.synchronize", "imports the CUDA-only package apex",
                   "ASCEND_RT_VISIBLE_DEVICES accepts only logical IDs", "use npu-smi instead",
                   "CUDA source file (1 lines, 1 __global__ kernel(s))", "syntax error (line 1",
                   "Scanned 4 file(s).", "The one-line alternative", "the seed article's cost-table row"):
        assert phrase in out, phrase
    assert "Effort: Many or complex custom kernels must be rewritten and tuned" in out and "1–2 months" in out
    assert re.search(r"At run time transfer_to_npu handles \d+ of these, \d+ in part, and \d+ not at all", out)


def test_migrate_json_diff_write_in_english(en, project, capsys):
    assert main(["migrate", str(project), "--json"]) == 0
    doc = json.loads(no_cjk(capsys.readouterr().out))
    assert doc["effort"]["scenario"]["seed_estimate"] == "1–2 months" and doc["effort"]["counts"]["blocker"] == 2
    assert main(["migrate", str(project / "bad.py"), "--diff"]) == 0
    assert no_cjk(capsys.readouterr().err).strip() == "Nothing to rewrite automatically."
    assert main(["migrate", str(project / "train_cuda.py"), "--write"]) == 0
    out = no_cjk(capsys.readouterr().out)
    assert "Rewrote 1 file(s)" in out and "These files scanned again after the rewrite: auto-fixable 0" in out
    assert main(["migrate", "/no/such/path"]) == 2
    assert "no such path: /no/such/path" in capsys.readouterr().err


def test_notebook_table_and_effort_in_english(en, project):
    result = migrate.scan([project])
    table = display.findings_table(result)
    text = no_cjk(table.text() + table._repr_html_())
    assert table.headers == ["Where", "Severity", "Rule", "Finding", "Suggestion"] and "Could not scan:" in text
    assert table.title.startswith("Scanned 4 file(s) (in ") and "auto-fixable" in table.title
    effort = result.effort()
    assert no_cjk(json.dumps(effort, ensure_ascii=False))
    assert effort["scenario"]["label"] == "Many or complex custom kernels must be rewritten and tuned"
    assert "depends on transformer_engine" in effort["scenario"]["reasons"]


def test_cost_table_and_corrections_in_english(en):
    table = costs()
    no_cjk(json.dumps({k: table[k] for k in ("note", "scenarios", "corrections")}, ensure_ascii=False))
    rows = {r["id"]: r for r in table["scenarios"]}
    assert rows["device_strings"]["seed_estimate"] == "< 1 day" and rows["device_strings"]["days"] == [0, 1]
    assert rows["simple_kernel"]["seed_row"] == "Simple custom CUDA kernels: rewrite in Ascend C"
    assert rows["complex_kernel"]["days"] == [28, 60] and "Transformer Engine" in rows["complex_kernel"]["triggers"]
    assert any("Triton-Ascend" in c["course"] for c in table["corrections"])
    assert not any(k.endswith("_en") for r in table["scenarios"] for k in r)


def test_every_printed_field_of_the_data_has_an_english_twin():
    rules = load_yaml(DATA_DIR / "migration_rules.yaml")
    for rid, spec in rules["rules"].items():
        assert spec.get("message_en") and (spec["suggestion"] == "{note}" or spec.get("suggestion_en")), rid
        for field in ("message", "suggestion"):
            if f"{field}_en" in spec:
                assert sorted(re.findall(r"{(\w+)", spec[field])) == sorted(re.findall(r"{(\w+)", spec[f"{field}_en"])), rid
    for section in ("backends", "env_prefixes", "tools"):
        assert set(rules[section]) == set(rules[f"{section}_en"]), section
    twins = [(k, v) for section in ("torch_cuda_overrides", "nccl_api", "env_vars", "packages")
             for k, v in rules[section].items() if isinstance(v, dict)]
    assert all(("note" not in v or "note_en" in v) and ("what" not in v or "what_en" in v) for _, v in twins)
    for data in (rules, load_yaml(DATA_DIR / "migration_costs.yaml"), load_yaml(DATA_DIR / "migration_tree.yaml"),
                 load_yaml(DATA_DIR / "cuda_npu_api.yaml")):
        no_cjk(json.dumps(english_twins(data), ensure_ascii=False))


def english_twins(node):
    if isinstance(node, dict):
        return [v if k.endswith("_en") else english_twins(v) for k, v in node.items()]
    if isinstance(node, list):
        return [english_twins(v) for v in node]
    return None


def test_strategy_in_english(en, project, capsys):
    assert main(["strategy", "--list"]) == 0
    out = no_cjk(capsys.readouterr().out)
    assert "framework: Which framework is the training or inference code built on?" in out
    args = ["strategy", "--scan", str(project)] + [a for answer in ANSWERS for a in ("--answer", answer)]
    assert main(args) == 0
    out = no_cjk(capsys.readouterr().out)
    for phrase in ("Answers from the scan:", "kernels = simple (1 CUDA kernel(s), 0 CUDA extension build(s))",
                   "libraries = no_equivalent (depends on transformer_engine)", "Verdict: Evaluate first, then decide",
                   "Effort: Many or complex custom kernels must be rewritten and tuned", "about 28–60 days",
                   "Steps:", "Risks:", "Path: Framework: PyTorch (your own training loop)", "Sources: "):
        assert phrase in out, phrase
    assert main(["strategy", "--answer", "framework=tf"]) == 2
    assert "question framework has no option 'tf'; options: pytorch (PyTorch (your own training loop))" in capsys.readouterr().err
    with pytest.raises(strategy.StrategyError, match="is not answered yet"):
        strategy.assess({"framework": "pytorch"})


def test_api_map_in_english(en):
    table = api_map.table()
    no_cjk(table.text())
    assert table.headers == ["Purpose", "CUDA", "Ascend NPU", "Source"]
    assert ["Is the device available", "torch.cuda.is_available()", "torch.npu.is_available()",
            "the seed article's 10 pairs"] in table.rows


def test_llm_plan_in_english(en, capsys):
    assert main(["llm-plan", "Llama-3.1-8B", "--batch", "8", "--context", "4096"]) == 0
    out = no_cjk(capsys.readouterr().out)
    for phrase in ("Llama-3.1-8B (GQA) on 1 × 910B3:", "usable per card (HBM × utilisation): 54.86 GiB (derived;",
                   "KV cache (bfloat16) per token per card: 131,072 B (derived; 2 * layers * max(1, kv_heads // tp)",
                   "largest batch at context 4096:", "Requested 8 × 4096 = 32,768 tokens: fits at TP 1.",
                   "Smallest tensor-parallel degree that fits: 1; at TP 1, with pipeline parallelism, 1 cards in all"):
        assert phrase in out, phrase
    assert main(["llm-plan", "Qwen3-32B"]) == 1
    assert "does not fit at TP 1" in no_cjk(capsys.readouterr().out)
    assert main(["llm-plan", "no-such-model"]) == 2
    assert "no config 'no-such-model': give the path of a config.json" in capsys.readouterr().err


def test_planner_figures_and_errors_in_english(en):
    cfg = json.loads((DATA_DIR / "llm_configs" / "DeepSeek-V3.json").read_text(encoding="utf-8"))
    assert kv_cache.kv_formula(cfg) == "61 layers × (512 + 64) × 2 B = 70,272 B/token"
    cards, fig = kv_cache.cards_needed(cfg, tp=8, tokens=8 * 4096)
    assert cards == 24 and fig.label == "cards needed at TP 8 (32,768 tokens)" and fig.unit == "cards"
    no_cjk(" ".join(f"{f.label} {f.note}" for f in kv_cache.plan(cfg, tp=8).figures()))
    with pytest.raises(kv_cache.ConfigError, match="must divide the 32 attention heads"):
        kv_cache.plan(json.loads((DATA_DIR / "llm_configs" / "Llama-3.1-8B.json").read_text()), tp=3)
    assert decoder.decode_step_costs(cfg, 1, 128).name == "decode (batch 1, context 128)"


def test_chinese_unchanged(monkeypatch, project, capsys):
    monkeypatch.setenv("NPULAB_LANG", "zh")
    assert main(["migrate", str(project)]) == 0
    out = capsys.readouterr().out
    assert "可自动改写" in out and "工作量：大量或复杂的自定义内核需要重写与调优——对应原文成本表「复杂自定义 CUDA 内核：重写 + 调优」，原文估计 1–2 个月" in out
    assert costs()["scenarios"][0]["seed_estimate"] == "< 1 天" and "seed_estimate_en" not in costs()["scenarios"][0]
    assert main(["llm-plan", "Llama-3.1-8B"]) == 0
    assert "Llama-3.1-8B（GQA）在 1 张 910B3 上：" in capsys.readouterr().out
    assert strategy.tree()["verdicts"]["go"]["label"] == "建议迁移" and t("migrate.auto") == "可自动改写"
