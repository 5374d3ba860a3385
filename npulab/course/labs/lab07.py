"""Checks of lab 07 (LLM deployment and fine-tuning: KV cache, MLA, HBM planning, tensor parallelism, LoRA)."""

from __future__ import annotations

import json
import math

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
        return False, "请给出一个数字：KV cache 的字节数。"
    expected = kv_cache_bytes(GQA_MODEL, GQA_TOKENS, "bfloat16")
    if _close(value, expected):
        return True, "2 × 层数 × KV 头数 × head_dim × 2 B × token 数。"
    if _close(value, expected / GiB) or _close(value, expected / 1e9):
        return False, "单位不对：题目要的是字节数，不是 GiB 或 GB。"
    if _close(value, expected / 2):
        return False, "少了一个因子 2：每层既要缓存 K，也要缓存 V。"
    if _close(value, expected * 4):
        return False, "这是按 32 个查询头算的；GQA 只缓存 num_key_value_heads 个 KV 头。"
    if _close(value, expected * 2):
        return False, "每个元素的字节数不对：BF16 是 2 字节。"
    if _close(value, expected / 16):
        return False, "token 数要乘上批大小：16 条序列各 8192 个 token。"
    return False, "与预期不符：先算每 token 的字节数（head_dim = hidden_size / num_attention_heads），再乘 token 总数。"


def _check_mla(answer) -> tuple[bool, str]:
    from npulab.llm.kv_cache import kv_cache_bytes

    value = _number(answer)
    if value is None:
        return False, "请给出一个数字：每个 token 的 KV cache 字节数。"
    expected = kv_cache_bytes(MLA_MODEL, 1, "bfloat16")
    if _close(value, expected):
        return True, "MLA 每层只缓存 kv_lora_rank 维的潜向量和 qk_rope_head_dim 维的旋转位置键。"
    if _close(value, kv_cache_bytes(MLA_MODEL, 1, "bfloat16", mla="expanded")):
        return False, "这是把潜向量展开成每个头的 K、V 之后的大小；MLA 缓存的是压缩的潜向量。"
    if _close(value, 27 * 512 * 2):
        return False, "还少了旋转位置编码那一部分（qk_rope_head_dim）。"
    if _close(value, 2 * expected):
        return False, "MLA 没有单独的 K 和 V 两份缓存：不要乘 2。"
    if _close(value, 576 * 2):
        return False, "这是一层的大小；要乘上层数。"
    return False, "与预期不符：每层 (kv_lora_rank + qk_rope_head_dim) 个元素，乘层数，再乘每个元素的字节数。"


def max_sequences(tp: int) -> int:
    """Question 3's answer, for the check: sequences of CONTEXT tokens Qwen3-32B can hold on ``tp`` 910B3 cards."""
    from npulab.llm.kv_cache import plan

    return plan(qwen3_32b(), "910B3", tp=tp).max_batch(CONTEXT)


def _check_max_batch(answer) -> tuple[bool, str]:
    value = _number(answer)
    if value is None or value != int(value):
        return False, "请给出一个整数：最多能同时缓存几条 8192 token 的序列。"
    expected = max_sequences(2)
    if int(value) == expected:
        return True, "每张卡：运行时报告的 60.96 GiB × 0.9 ≈ 54.86 GiB 可用 − 一半的权重 − 2 GiB 预留，再除以每 token 每张卡的 KV（4 个 KV 头），最后除以上下文长度。"
    if int(value) in (expected // 2, expected // 2 + 1):
        return False, "TP = 2 时每张卡只存一半的 KV 头（8 / 2 = 4 个），每 token 每张卡的 KV 也减半。"
    if abs(int(value) - expected) <= 3:
        return False, "很接近：检查 GiB（2^30 字节）与 GB 的换算、2 GiB 预留是否扣了，以及是否向下取整。"
    return False, "与预期不符：可以用 kv_cache.plan(config, \"910B3\", tp=2) 验证你的手算。"


def smallest_tp_answer() -> int:
    from npulab.llm.kv_cache import smallest_tp

    return smallest_tp(qwen3_32b(), "910B3", tokens=TARGET_SEQUENCES * CONTEXT).tp


def _check_tp(answer) -> tuple[bool, str]:
    value = _number(answer)
    if value is None or value != int(value) or value < 1:
        return False, "请给出一个正整数：张量并行度。"
    expected = smallest_tp_answer()
    if int(value) == expected:
        return True, "TP 翻倍时每张卡的权重和 KV 头都减半，空出的空间让缓存的 token 数超过了线性增长。"
    if int(value) < expected:
        return False, f"TP = {int(value)} 时放不下 {TARGET_SEQUENCES} × {CONTEXT} 个 token：用 plan(...).max_tokens 检查。"
    return False, "放得下，但不是最小的：试试更小的 2 的幂。"


def lora_params_answer() -> int:
    cfg = llama31_8b()
    h, layers = cfg["hidden_size"], cfg["num_hidden_layers"]
    kv_dim = cfg["num_key_value_heads"] * (h // cfg["num_attention_heads"])
    return layers * LORA_RANK * ((h + h) + (h + kv_dim))


def _check_lora(answer) -> tuple[bool, str]:
    value = _number(answer)
    if value is None:
        return False, "请给出一个数字：LoRA 适配器的可训练参数个数。"
    expected = lora_params_answer()
    cfg = llama31_8b()
    h, layers = cfg["hidden_size"], cfg["num_hidden_layers"]
    if _close(value, expected):
        return True, "每个被适配的线性层加 r × (输入维度 + 输出维度) 个参数（A 与 B 两个矩阵）。"
    if _close(value, layers * LORA_RANK * 4 * h):
        return False, "v_proj 的输出只有 num_key_value_heads × head_dim = 1024 维（GQA），不是 4096。"
    if _close(value, expected / layers):
        return False, "这是一层的数量：要乘层数。"
    if _close(value, layers * LORA_RANK * (h + h // 4)) or _close(value, layers * LORA_RANK * 2 * h):
        return False, "LoRA 有两个矩阵：A（r × 输入）和 B（输出 × r），两者都要算。"
    return False, "与预期不符：对 q_proj（4096 → 4096）和 v_proj（4096 → 1024）各算 r × (输入 + 输出)，再乘层数。"


def make_lab() -> Lab:
    """The checker a lab notebook uses: ``lab.check("kv_bytes", answer)``."""
    return Lab(
        "实验 07",
        {"kv_bytes": _check_kv_bytes, "mla": _check_mla, "max_batch": _check_max_batch, "tp": _check_tp,
         "lora": _check_lora},
    )
