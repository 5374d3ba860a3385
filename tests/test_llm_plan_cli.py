"""``python -m npulab llm-plan``: exit codes, Chinese messages, JSON that agrees with the planner."""

import json
import subprocess
import sys

from npulab.core.paths import DATA_DIR
from npulab.llm import kv_cache


def run(*args):
    return subprocess.run([sys.executable, "-m", "npulab", "llm-plan", *args], capture_output=True, text=True)


def test_fits_exit_0_and_prints_the_formula():
    r = run("Llama-3.1-8B", "--batch", "8", "--context", "4096")
    assert r.returncode == 0, r.stderr
    assert "放得下" in r.stdout and "2 * layers * max(1, kv_heads // tp) * head_dim * bytes（layers = 32，kv_heads = 8" in r.stdout and "Traceback" not in r.stderr


def test_does_not_fit_exit_1_and_suggests_tp():
    r = run("Qwen3-32B", "--json")
    assert r.returncode == 1
    data = json.loads(r.stdout)
    assert data["fits"] is False and data["smallest_tp"] == 2 and data["max_tokens"] == 0


def test_json_agrees_with_the_planner_for_a_config_path():
    path = DATA_DIR / "llm_configs" / "DeepSeek-V3.json"
    r = run(str(path), "--tp", "8", "--batch", "8", "--context", "4096", "--json")
    data = json.loads(r.stdout)
    cfg = json.loads(path.read_text(encoding="utf-8"))
    assert data["attention"] == "MLA" and data["kv_bytes_per_token_per_card"] == 70_272
    assert data["cards_at_tp"] == kv_cache.cards_needed(cfg, tp=8, tokens=8 * 4096)[0] == 24
    assert r.returncode == 1  # 8 cards cannot hold the BF16 weights


def test_usage_errors_in_chinese(tmp_path):
    r = run("no-such-model")
    assert r.returncode == 2 and "找不到配置" in r.stderr and "Qwen3-32B" in r.stderr and "Traceback" not in r.stderr
    bad = tmp_path / "config.json"
    bad.write_text("{not json", encoding="utf-8")
    r = run(str(bad))
    assert r.returncode == 2 and "无法读取" in r.stderr
    r = run("Llama-3.1-8B", "--tp", "3")
    assert r.returncode == 2 and "整除" in r.stderr
    r = run("Llama-3.1-8B", "--card", "H100")
    assert r.returncode == 2 and "910B3" in r.stderr
    r = run("Llama-3.1-8B", "--batch", "0")
    assert r.returncode == 2 and "正整数" in r.stderr
    r = run("Llama-3.1-8B", "--kv-dtype", "float12")
    assert r.returncode == 2 and "数据类型" in r.stderr
