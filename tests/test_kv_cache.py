"""npulab.llm.kv_cache: KV-cache bytes per attention variant and the HBM planner, against hand-computed cases."""

import json

import pytest

from npulab.core.paths import DATA_DIR
from npulab.llm import kv_cache as kc

GiB = 2**30
CONFIGS = DATA_DIR / "llm_configs"


def load(name):
    return json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))


# --- kv_cache_bytes: one hand-computed case per attention variant -------------------------------------------------

def test_mha_llama2_7b():
    cfg = load("Llama-2-7b-hf")
    assert kc.attention_kind(cfg) == "MHA"
    # 2 (K, V) × 32 layers × 32 KV heads × 128 dims × 2 B = 524288 B per token; 4096 tokens = 2 GiB
    assert kc.kv_cache_bytes(cfg, 1) == 524_288
    assert kc.kv_cache_bytes(cfg, 4096) == 2 * GiB


def test_gqa_llama31_8b():
    cfg = load("Llama-3.1-8B")
    assert kc.attention_kind(cfg) == "GQA"
    assert kc.kv_cache_bytes(cfg, 1) == 2 * 32 * 8 * 128 * 2 == 131_072
    assert kc.kv_cache_bytes(cfg, 8192) == GiB


def test_mqa_by_multi_query_flag_and_by_one_kv_head():
    falcon_like = {"n_layer": 32, "n_head": 71, "hidden_size": 4544, "multi_query": True}
    assert kc.attention_kind(falcon_like) == "MQA"
    assert kc.head_dim(falcon_like) == 64
    assert kc.kv_cache_bytes(falcon_like, 1) == 2 * 32 * 1 * 64 * 2 == 8192
    one_head = {"num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 1, "hidden_size": 512}
    assert kc.attention_kind(one_head) == "MQA"
    assert kc.kv_cache_bytes(one_head, 10, "float32") == 2 * 2 * 1 * 64 * 4 * 10


def test_explicit_head_dim_wins_over_hidden_over_heads():
    cfg = load("Qwen3-32B")
    assert cfg["hidden_size"] // cfg["num_attention_heads"] == 80
    assert kc.head_dim(cfg) == 128
    assert kc.kv_cache_bytes(cfg, 1) == 2 * 64 * 8 * 128 * 2 == 262_144


def test_mla_latent_and_expanded_deepseek_v3():
    cfg = load("DeepSeek-V3")
    assert kc.attention_kind(cfg) == "MLA"
    assert kc.kv_cache_bytes(cfg, 1) == 61 * (512 + 64) * 2 == 70_272
    assert kc.kv_cache_bytes(cfg, 1, mla="expanded") == 61 * 128 * (128 + 64 + 128) * 2 == 4_997_120
    assert "61 层 × (512 + 64) × 2 B = 70,272 B/token" in kc.kv_formula(cfg)
    with pytest.raises(kc.ConfigError):
        kc.kv_cache_bytes(cfg, 1, mla="compressed")


def test_missing_kv_heads_means_mha_and_none_too():
    base = {"num_hidden_layers": 4, "num_attention_heads": 8, "hidden_size": 512}
    assert kc.kv_cache_bytes(base, 3) == kc.kv_cache_bytes(dict(base, num_key_value_heads=None), 3) == 2 * 4 * 8 * 64 * 2 * 3


@pytest.mark.parametrize("dtype, factor", [("bfloat16", 1), ("float16", 1), ("float32", 2), ("fp8", 0.5), ("int8", 0.5),
                                           ("torch.float32", 2), (2, 1)])
def test_dtypes(dtype, factor):
    cfg = load("Llama-3.1-8B")
    assert kc.kv_cache_bytes(cfg, 100, dtype) == int(131_072 * 100 * factor)


def test_torch_dtype_and_transformers_config_objects():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(**{k: v for k, v in load("Llama-3.1-8B").items() if k != "architectures"})
    assert kc.kv_cache_bytes(cfg, 1, torch.bfloat16) == 131_072


def test_text_config_of_a_multimodal_config():
    cfg = {"model_type": "some_vl", "text_config": load("Llama-3.1-8B")}
    assert kc.kv_cache_bytes(cfg, 1) == 131_072


@pytest.mark.parametrize("bad, message", [
    ({"num_attention_heads": 8, "hidden_size": 512}, "层数"),
    ({"num_hidden_layers": 2, "num_attention_heads": 6, "hidden_size": 512}, "整除"),
])
def test_config_errors_are_clear(bad, message):
    with pytest.raises(kc.ConfigError, match=message):
        kc.kv_cache_bytes(bad, 1)


@pytest.mark.parametrize("tokens", [-1, 1.5, True, "8"])
def test_bad_tokens(tokens):
    with pytest.raises(kc.ConfigError, match="tokens"):
        kc.kv_cache_bytes(load("Llama-3.1-8B"), tokens)


def test_unknown_dtype():
    with pytest.raises(kc.ConfigError, match="数据类型"):
        kc.kv_cache_bytes(load("Llama-3.1-8B"), 1, "float12")


def test_not_a_mapping():
    with pytest.raises(kc.ConfigError, match="字典"):
        kc.kv_cache_bytes([1, 2], 1)


# --- parameter counts: against the numbers everyone quotes and against transformers itself --------------------------

def test_param_counts_of_shipped_configs():
    assert kc.param_count(load("Llama-2-7b-hf")) == 6_738_415_616
    assert kc.param_count(load("Llama-3.1-8B")) == 8_030_261_248
    assert round(kc.param_count(load("Qwen3-32B")) / 1e9, 1) == 32.8  # model card: 32.8B
    assert round(kc.param_count(load("DeepSeek-V3")) / 1e9) == 671  # model card: 671B (without the MTP module)


@pytest.mark.parametrize("name, shrink", [
    ("Llama-2-7b-hf", {"num_hidden_layers": 2, "vocab_size": 1000}),
    ("Llama-3.1-8B", {"num_hidden_layers": 2, "vocab_size": 1000}),
    ("Qwen3-32B", {"num_hidden_layers": 2, "vocab_size": 1000}),
    ("DeepSeek-V3", {"num_hidden_layers": 5, "n_routed_experts": 8, "vocab_size": 1000}),
])
def test_param_count_matches_transformers(name, shrink):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    cfg = {k: v for k, v in load(name).items() if k not in ("quantization_config", "auto_map")}
    cfg.update(shrink)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(transformers.AutoConfig.for_model(**cfg))
    n = sum(p.numel() for p in model.parameters())
    # DeepSeek-V3's router bias is a buffer in transformers but a stored weight in the checkpoint
    n += sum(b.numel() for k, b in model.named_buffers() if k.endswith("e_score_correction_bias"))
    assert kc.param_count(cfg) == n


def test_param_count_refuses_unknown_architectures():
    with pytest.raises(kc.ConfigError, match="weights_bytes"):
        kc.param_count({"model_type": "falcon", "n_layer": 2})


# --- the cache transformers really keeps ---------------------------------------------------------------------------

def test_formula_equals_the_cache_transformers_keeps_gqa():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from npulab.llm import decoder

    cfg = transformers.LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=3, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=100)
    model = decoder.build_model(cfg, "cpu")
    cache = transformers.DynamicCache(config=cfg)
    with torch.inference_mode():
        model(input_ids=torch.zeros(2, 7, dtype=torch.long), cache=cache, use_cache=True)
    assert decoder.cache_bytes(cache) == kc.kv_cache_bytes(cfg, 2 * 7, "float32") == 2 * 3 * 2 * 16 * 4 * 14


def test_transformers_deepseek_v3_keeps_the_latent_cache():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from npulab.llm import decoder

    cfg = transformers.DeepseekV3Config(hidden_size=64, intermediate_size=128, moe_intermediate_size=32,
                                        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                                        n_routed_experts=4, num_experts_per_tok=2, n_group=1, topk_group=1,
                                        first_k_dense_replace=1, kv_lora_rank=16, q_lora_rank=24,
                                        qk_nope_head_dim=8, qk_rope_head_dim=4, v_head_dim=8, vocab_size=100)
    model = decoder.build_model(cfg, "cpu")
    cache = transformers.DynamicCache(config=cfg)
    with torch.inference_mode():
        model(input_ids=torch.zeros(1, 5, dtype=torch.long), cache=cache, use_cache=True)
    # transformers keeps the compressed latent (16) and the rotary key (4) per layer, not per-head K and V
    assert decoder.cache_bytes(cache) == kc.kv_cache_bytes(cfg, 5, "float32") == 2 * (16 + 4) * 4 * 5
    assert kc.kv_cache_bytes(cfg, 5, "float32", mla="expanded") == 2 * 4 * (8 + 4 + 8) * 4 * 5


# --- the planner ----------------------------------------------------------------------------------------------------

RUNTIME_TOTAL = 65_452_113_920  # torch.npu.mem_get_info total on a 64 GB A2 card, as vLLM-Ascend logs it


def test_card_hbm_is_the_runtime_total_where_published_else_the_platform_capacity():
    fig = kc.card_hbm("910B3")  # what vLLM-Ascend multiplies by gpu_memory_utilization (review M8)
    assert fig.value == RUNTIME_TOTAL / GiB == 60.95703125 and fig.unit == "GiB" and fig.kind.value == "推导"
    assert "65,452,113,920" in fig.origin and "mem_get_info" in fig.note
    cap = kc.card_hbm("910B3", runtime=False)
    assert cap.value == 64 and cap.kind.value == "报告" and "Ascend910B3.ini" in cap.origin
    assert kc.card_hbm("910B1").value == kc.card_hbm("910B2").value == 60.95703125
    b4 = kc.card_hbm("910B4")  # no published runtime reading: the platform file's 32 GiB, and it says so
    assert b4.value == 32 and "没有公开的运行时读数" in b4.note
    assert kc.card_hbm("A3").value == kc.card_hbm("A3 (每个 die)").value == 64  # the old key still works
    with pytest.raises(kc.ConfigError, match="910B3"):
        kc.card_hbm("H100")
    with pytest.raises(kc.ConfigError, match="随板卡"):
        kc.card_hbm("310B")  # an Orange Pi's memory is the board's, not the chip's


def test_plan_llama31_8b_on_one_910b3_by_hand():
    p = kc.plan(load("Llama-3.1-8B"), "910B3")
    usable = int(RUNTIME_TOTAL * 0.9)            # 58906902528 B
    weights = 8_030_261_248 * 2                  # bf16
    budget = usable - weights - 2 * GiB
    assert (p.usable_bytes, p.weights_per_card, p.kv_budget_per_card) == (usable, weights, budget)
    assert p.max_tokens == budget // 131_072 == 310_507
    assert p.max_batch(4096) == 75 and p.fits
    assert [f.value for f in p.figures()[1:]] == [54.86, 14.96, 2.0, 37.9, 131_072, 310_507]  # each by its formula


def test_plan_qwen3_32b_needs_two_cards():
    cfg = load("Qwen3-32B")
    assert not kc.plan(cfg, "910B3").fits           # 65.5 GB of bf16 weights > 54.9 GiB usable
    p = kc.plan(cfg, "910B3", tp=2)
    assert p.kv_bytes_per_token == 2 * 64 * 4 * 128 * 2  # 8 KV heads / TP 2
    # per card: 32762123264 parameters × 2 B / TP 2 of weights
    assert p.max_tokens == (int(RUNTIME_TOTAL * 0.9) - 32_762_123_264 - 2 * GiB) // 131_072 == 183_084
    assert p.max_batch(8192) == 22  # review M8: 22 sequences of 8192 tokens, not the 25 that 64 GiB would give
    assert kc.smallest_tp(cfg, "910B3", tokens=8 * 4096).tp == 2


def test_kv_heads_replicate_when_tp_exceeds_them_and_tp_must_divide():
    cfg = load("Llama-3.1-8B")
    assert kc.kv_heads_per_card(cfg, 8) == 1
    assert kc.kv_heads_per_card(cfg, 16) == 1     # 8 KV heads on 16 cards: each head on two cards
    with pytest.raises(kc.ConfigError, match="整除"):
        kc.plan(cfg, tp=3)


def test_mla_cache_is_not_split_by_tp():
    cfg = load("DeepSeek-V3")
    assert kc.plan(cfg, tp=32).kv_bytes_per_token == 70_272
    assert kc.smallest_tp(cfg, "910B3", tokens=32_768).tp == 32
    # int8 weights (W8A8): half the bytes
    assert kc.smallest_tp(cfg, "910B3", tokens=32_768, weight_dtype="int8").tp == 16


def test_cards_needed_with_pipeline_stages_by_hand():
    cfg = load("DeepSeek-V3")
    cards, fig = kc.cards_needed(cfg, "910B3", tp=8, tokens=32_768)
    room = int(RUNTIME_TOTAL * 0.9) - 2 * GiB
    need = kc.param_count(cfg) * 2 / 8 + 32_768 * 70_272
    assert cards == 8 * -(-need // room) == 24
    assert fig.kind.value == "推导" and fig.value == 24 and "ceil(" in fig.origin and "kv_per_token = 70,272 B" in fig.origin


def test_weights_bytes_override_and_bad_settings():
    cfg = {"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256, "model_type": "falcon"}
    p = kc.plan(cfg, weights_bytes=10 * GiB)
    assert p.weights_per_card == 10 * GiB and p.params == 0
    for bad in ({"tp": 0}, {"utilization": 1.5}, {"activation_bytes": -1}):
        with pytest.raises(kc.ConfigError):
            kc.plan(cfg, weights_bytes=GiB, **bad)
    with pytest.raises(kc.ConfigError, match="上下文"):
        p.max_batch(0)
