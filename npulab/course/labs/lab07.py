"""Checks of lab 07 (LLM deployment and fine-tuning: KV cache, MLA, HBM planning, tensor parallelism, LoRA)."""

from __future__ import annotations

import json
import math

from npulab.core.i18n import t
from npulab.core.paths import DATA_DIR
from npulab.course.labs import Lab

GiB = 2**30

# question 1: a grouped-query model (Mistral-7B-v0.1's attention shape) serving 16 sequences of 8192 tokens in BF16
GQA_MODEL = {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096}
GQA_TOKENS = 16 * 8192
# question 2: an MLA model (DeepSeek-V2-Lite's attention shape), BF16
MLA_MODEL = {"num_hidden_layers": 27, "num_attention_heads": 16, "hidden_size": 2048, "kv_lora_rank": 512,
             "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128}
# questions 3 and 4: Qwen3-32B on 910B3 (BF16, utilization 0.9, 2 GiB reserve per card)
CONTEXT = 8192
TARGET_SEQUENCES = 64
# question 5: LoRA of rank 16 on q_proj and v_proj of Llama-3.1-8B
LORA_RANK = 16


def qwen3_32b() -> dict:
    return json.loads((DATA_DIR / "llm_configs" / "Qwen3-32B.json").read_text(encoding="utf-8"))


def llama31_8b() -> dict:
    return json.loads((DATA_DIR / "llm_configs" / "Llama-3.1-8B.json").read_text(encoding="utf-8"))


def _number(answer) -> float | None:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6)


def _check_kv_bytes(answer) -> tuple[bool, str]:
    from npulab.llm.kv_cache import kv_cache_bytes

    value = _number(answer)
    if value is None:
        return False, t("lab07.kv_bytes.type")
    expected = kv_cache_bytes(GQA_MODEL, GQA_TOKENS, "bfloat16")
    if _close(value, expected):
        return True, t("lab07.kv_bytes.right")
    if _close(value, expected / GiB) or _close(value, expected / 1e9):
        return False, t("lab07.kv_bytes.unit")
    if _close(value, expected / 2):
        return False, t("lab07.kv_bytes.half")
    if _close(value, expected * 4):
        return False, t("lab07.kv_bytes.query_heads")
    if _close(value, expected * 2):
        return False, t("lab07.kv_bytes.element")
    if _close(value, expected / 16):
        return False, t("lab07.kv_bytes.batch")
    return False, t("lab07.kv_bytes.other")


def _check_mla(answer) -> tuple[bool, str]:
    from npulab.llm.kv_cache import kv_cache_bytes

    value = _number(answer)
    if value is None:
        return False, t("lab07.mla.type")
    expected = kv_cache_bytes(MLA_MODEL, 1, "bfloat16")
    if _close(value, expected):
        return True, t("lab07.mla.right")
    if _close(value, kv_cache_bytes(MLA_MODEL, 1, "bfloat16", mla="expanded")):
        return False, t("lab07.mla.expanded")
    if _close(value, 27 * 512 * 2):
        return False, t("lab07.mla.no_rope")
    if _close(value, 2 * expected):
        return False, t("lab07.mla.times_two")
    if _close(value, 576 * 2):
        return False, t("lab07.mla.one_layer")
    return False, t("lab07.mla.other")


def max_sequences(tp: int) -> int:
    """Question 3's answer, for the check: sequences of CONTEXT tokens Qwen3-32B can hold on ``tp`` 910B3 cards."""
    from npulab.llm.kv_cache import plan

    return plan(qwen3_32b(), "910B3", tp=tp).max_batch(CONTEXT)


def _check_max_batch(answer) -> tuple[bool, str]:
    value = _number(answer)
    if value is None or value != int(value):
        return False, t("lab07.max_batch.type")
    expected = max_sequences(2)
    if int(value) == expected:
        return True, t("lab07.max_batch.right")
    if int(value) in (expected // 2, expected // 2 + 1):
        return False, t("lab07.max_batch.heads")
    if abs(int(value) - expected) <= 3:
        return False, t("lab07.max_batch.close")
    return False, t("lab07.max_batch.other")


def smallest_tp_answer() -> int:
    from npulab.llm.kv_cache import smallest_tp

    return smallest_tp(qwen3_32b(), "910B3", tokens=TARGET_SEQUENCES * CONTEXT).tp


def _check_tp(answer) -> tuple[bool, str]:
    value = _number(answer)
    if value is None or value != int(value) or value < 1:
        return False, t("lab07.tp.type")
    expected = smallest_tp_answer()
    if int(value) == expected:
        return True, t("lab07.tp.right")
    if int(value) < expected:
        return False, t("lab07.tp.too_small", tp=int(value), TARGET_SEQUENCES=TARGET_SEQUENCES, CONTEXT=CONTEXT)
    return False, t("lab07.tp.not_smallest")


def lora_params_answer() -> int:
    cfg = llama31_8b()
    h, layers = cfg["hidden_size"], cfg["num_hidden_layers"]
    kv_dim = cfg["num_key_value_heads"] * (h // cfg["num_attention_heads"])
    return layers * LORA_RANK * ((h + h) + (h + kv_dim))


def _check_lora(answer) -> tuple[bool, str]:
    value = _number(answer)
    if value is None:
        return False, t("lab07.lora.type")
    expected = lora_params_answer()
    cfg = llama31_8b()
    h, layers = cfg["hidden_size"], cfg["num_hidden_layers"]
    if _close(value, expected):
        return True, t("lab07.lora.right")
    if _close(value, layers * LORA_RANK * 4 * h):
        return False, t("lab07.lora.v_proj")
    if _close(value, expected / layers):
        return False, t("lab07.lora.one_layer")
    if _close(value, layers * LORA_RANK * (h + h // 4)) or _close(value, layers * LORA_RANK * 2 * h):
        return False, t("lab07.lora.one_matrix")
    return False, t("lab07.lora.other")


def make_lab() -> Lab:
    """The checker a lab notebook uses: ``lab.check("kv_bytes", answer)``."""
    return Lab(
        t("lab07.title"),
        {"kv_bytes": _check_kv_bytes, "mla": _check_mla, "max_batch": _check_max_batch, "tp": _check_tp,
         "lora": _check_lora},
    )
