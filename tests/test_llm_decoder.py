"""npulab.llm.decoder: the lesson's small decoder, its timing, FLOP/byte counts and the LoRA helpers."""

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from npulab.core.device import Device  # noqa: E402
from npulab.llm import decoder, kv_cache  # noqa: E402

TINY = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=100)


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models: one thread avoids OpenMP spin-waiting on a busy 2-core machine (100× slower there)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny():
    config = decoder.lesson_config(None, **TINY)
    return config, decoder.build_model(config, "cpu")


def test_lesson_sizes_by_device():
    cpu = decoder.lesson_config(Device("cpu", "test"))
    acc = decoder.lesson_config(Device("cuda", "test"))
    assert kv_cache.param_count(cpu) == 4_999_424  # printed by the lesson on CPU
    assert 0.8e9 < kv_cache.param_count(acc) < 0.9e9
    assert kv_cache.attention_kind(cpu) == kv_cache.attention_kind(acc) == "GQA"


def test_build_is_seeded_and_counts_match(tiny):
    config, model = tiny
    again = decoder.build_model(config, "cpu")
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), again.parameters(), strict=True))
    assert decoder.count_params(model) == kv_cache.param_count(config) == 86_848


def test_prefill_decode_keeps_the_cache_the_formula_predicts(tiny):
    config, model = tiny
    run = decoder.prefill_decode(model, batch=3, prompt_len=5, new_tokens=4, device="cpu", warmup=False)
    assert run.tokens.shape == (3, 5) and len(run.step_seconds) == 4  # first token from prefill + 4 decoded
    assert run.cache_bytes == kv_cache.kv_cache_bytes(config, 3 * (5 + 4), "float32")
    assert run.prefill_seconds > 0 and run.decode_tokens_per_s == pytest.approx(3 / run.decode_step_median)
    assert run.prefill_tokens_per_s == pytest.approx(15 / run.prefill_seconds)


def test_decode_is_greedy_and_deterministic(tiny):
    _, model = tiny
    a = decoder.prefill_decode(model, 2, 6, 3, "cpu", seed=7, warmup=False).tokens
    b = decoder.prefill_decode(model, 2, 6, 3, "cpu", seed=7, warmup=False).tokens
    assert torch.equal(a, b)


def test_costs_by_hand(tiny):
    config, _ = tiny
    matmul = 86_848 - 100 * 64  # all but the embedding table
    assert decoder.matmul_params(config) == matmul
    step = decoder.decode_step_costs(config, batch=1, context=10)
    assert step.flop == 2 * matmul + 4 * 2 * 4 * 16 * 10
    assert step.bytes == matmul * 4 + 2 * 2 * 2 * 16 * 4 * 10
    big = decoder.decode_step_costs(config, batch=8, context=10)
    assert big.intensity > 6 * step.intensity  # batching raises the arithmetic intensity
    pre = decoder.prefill_costs(config, batch=1, prompt_len=10)
    assert pre.flop == 2 * matmul * 10 + 2 * 2 * 4 * 16 * 100 and pre.intensity > step.intensity


def test_counting_batch():
    ids = decoder.counting_batch(4, 10, period=8, seed=1)
    assert ids.shape == (4, 10) and int(ids.max()) < 8
    assert torch.equal((ids[:, 1:] - ids[:, :-1]) % 8, torch.ones(4, 9, dtype=ids.dtype))


def test_lora_trains_only_the_adapter_and_the_loss_falls():
    config = decoder.lesson_config(None, **TINY)
    model = decoder.build_model(config, "cpu")
    frozen = {k: v.clone() for k, v in model.state_dict().items()}
    lora = decoder.lora_model(model, rank=4, alpha=8)
    trainable = decoder.count_params(lora, trainable_only=True)
    # 2 layers × rank 4 × Σ(in + out) over q, k, v, o, gate, up, down
    assert trainable == 2 * 4 * ((64 + 64) + 2 * (64 + 32) + (64 + 64) + 2 * (64 + 128) + (128 + 64))
    run = decoder.train_steps(lora, steps=25, batch=4, seq_len=16, device="cpu", lr=2e-2, period=8)
    assert run.trainable == trainable and run.total == decoder.count_params(lora)
    assert sum(run.losses[-5:]) / 5 < sum(run.losses[:5]) / 5
    # AdamW: two FP32 moments per trainable parameter (plus a scalar step count per tensor)
    assert 8 * trainable <= run.optimizer_bytes < 8 * trainable + 4096
    base = {k.replace("base_model.model.", "").replace(".base_layer", ""): v for k, v in lora.state_dict().items()
            if "lora_" not in k}
    assert all(torch.equal(frozen[k], base[k]) for k in frozen)


def test_cache_bytes_of_legacy_tuples():
    t = torch.zeros(2, 3, dtype=torch.float16)
    assert decoder.cache_bytes([(t, t), (t, t)]) == 4 * 6 * 2


def test_matmul_params_keeps_a_tied_lm_head():
    # with tie_word_embeddings the one table is both the lookup and the LM head (a matmul every token): nothing is
    # subtracted, so the matmul weights equal the untied model's (whose separate head is counted instead)
    import json

    from npulab.core.paths import DATA_DIR
    from npulab.llm.kv_cache import param_count

    untied = json.loads((DATA_DIR / "llm_configs" / "Llama-3.1-8B.json").read_text())
    tied = {**untied, "tie_word_embeddings": True}
    table = untied["vocab_size"] * untied["hidden_size"]
    assert param_count(untied) - param_count(tied) == table
    assert decoder.matmul_params(tied) == param_count(tied) == decoder.matmul_params(untied)
    assert decoder.matmul_params(untied) == param_count(untied) - table
