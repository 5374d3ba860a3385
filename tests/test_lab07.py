"""Lab 07 checks: right answers pass, typical mistakes get a hint that does not give the answer away."""

import pytest

from npulab.course.labs import lab07
from npulab.llm import kv_cache


@pytest.fixture(autouse=True)
def lenient(monkeypatch):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)


def check(question, answer, capsys):
    ok = lab07.make_lab().check(question, answer)
    return ok, capsys.readouterr().out


GIB16 = 16 * 2**30  # 2 × 32 × 8 × 128 × 2 B × 131072 tokens


@pytest.mark.parametrize("answer, ok, hint", [
    (GIB16, True, "2 × 层数"),
    (16.0, False, "单位"),
    (GIB16 / 2, False, "V"),
    (GIB16 * 4, False, "num_key_value_heads"),
    (GIB16 * 2, False, "2 字节"),
    (GIB16 / 16, False, "批大小"),
    ("many", False, "数字"),
])
def test_kv_bytes(answer, ok, hint, capsys):
    result, out = check("kv_bytes", answer, capsys)
    assert result is ok and hint in out and (ok or str(GIB16) not in out)


@pytest.mark.parametrize("answer, ok, hint", [
    (27 * 576 * 2, True, "潜向量"),
    (27 * 16 * 320 * 2, False, "展开"),
    (27 * 512 * 2, False, "qk_rope_head_dim"),
    (2 * 27 * 576 * 2, False, "不要乘 2"),
    (576 * 2, False, "层数"),
])
def test_mla(answer, ok, hint, capsys):
    result, out = check("mla", answer, capsys)
    assert result is ok and hint in out


def test_max_batch_answer_is_the_planner_and_hand_calculation():
    GiB = 2**30
    by_hand = (int(65_452_113_920 * 0.9) - 32_762_123_264 - 2 * GiB) // (2 * 64 * 4 * 128 * 2) // 8192
    assert lab07.max_sequences(2) == by_hand == 22  # on the runtime-reported total (review M8), not 64 GiB (25)


@pytest.mark.parametrize("answer, ok, hint", [
    (22, True, "60.96 GiB"),
    (11, False, "KV 头"),
    (25, False, "很接近"),  # what 64 GiB instead of the runtime total would give
    (3.5, False, "整数"),
    (100, False, "kv_cache.plan"),
])
def test_max_batch(answer, ok, hint, capsys):
    result, out = check("max_batch", answer, capsys)
    assert result is ok and hint in out


def test_smallest_tp_is_four():
    cfg = lab07.qwen3_32b()
    assert kv_cache.plan(cfg, "910B3", tp=2).max_tokens < 64 * 8192 <= kv_cache.plan(cfg, "910B3", tp=4).max_tokens
    assert lab07.smallest_tp_answer() == 4


@pytest.mark.parametrize("answer, ok, hint", [(4, True, "TP 翻倍"), (2, False, "放不下"), (8, False, "更小"), (0, False, "正整数")])
def test_tp(answer, ok, hint, capsys):
    result, out = check("tp", answer, capsys)
    assert result is ok and hint in out


def test_lora_answer_matches_peft_on_the_meta_device():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("peft")
    from npulab.llm import decoder

    cfg = {k: v for k, v in lab07.llama31_8b().items() if k != "architectures"}
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(transformers.LlamaConfig(**cfg))
    lora = decoder.lora_model(model, rank=16, target_modules=["q_proj", "v_proj"])
    assert decoder.count_params(lora, trainable_only=True) == lab07.lora_params_answer() == 6_815_744


@pytest.mark.parametrize("answer, ok, hint", [
    (6_815_744, True, "r × (输入维度 + 输出维度)"),
    (32 * 16 * 4 * 4096, False, "1024"),
    (6_815_744 / 32, False, "层数"),
    (32 * 16 * 5120, False, "两个矩阵"),
    (32 * 16 * 8192, False, "两个矩阵"),
])
def test_lora(answer, ok, hint, capsys):
    result, out = check("lora", answer, capsys)
    assert result is ok and hint in out
