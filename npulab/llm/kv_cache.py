"""KV-cache size and HBM planning for large language models, from a Hugging Face ``config.json``.

During decoding every layer keeps the keys and values of all earlier tokens (the KV cache), so that a new
token attends to them without recomputing them. Its size per token, summed over the ``L`` layers:

- multi-head (MHA), grouped-query (GQA) and multi-query attention (MQA):
  ``2 (K and V) × L × num_key_value_heads × head_dim × bytes``. MHA has as many KV heads as query heads,
  GQA fewer (a group of query heads shares one), MQA one. ``head_dim`` is the config's own value when it has
  one (Qwen3-32B: 128, although hidden_size / heads = 80), else ``hidden_size // num_attention_heads``;
- DeepSeek's multi-head latent attention (MLA): one compressed latent vector of ``kv_lora_rank`` plus the
  shared rotary key of ``qk_rope_head_dim`` per layer, ``L × (kv_lora_rank + qk_rope_head_dim) × bytes``.
  This latent cache is what ``transformers`` (5.x, checked by the tests) and serving engines with MLA kernels
  keep. An implementation that expands the latent back into per-head keys and values before caching (the
  ``attn_impl = "naive"`` path of DeepSeek's reference ``inference/model.py``) keeps
  ``L × heads × (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) × bytes`` instead: ``mla="expanded"``.

Every layer is assumed to cache every token: sliding-window layers (Mistral, Gemma) would cache less.

The planner puts weights, the KV cache and a reserve on one card's HBM, the way vLLM sizes its cache: the
engine may use ``utilization`` × the device memory the runtime reports (vLLM-Ascend multiplies
``gpu_memory_utilization``, default 0.9, by the total of ``torch.npu.mem_get_info``: 65,452,113,920 B ≈ 60.96 GiB
on a 64 GB Atlas A2 card, not 64 GiB). Where no such reading is published (910B4, A3, 310P3), the platform file's
capacity is used and the plan says so: it overstates the room by what the driver keeps. From that it takes the
weights and the activations of a profiling run (here a stated reserve, ``activation_bytes``), and the rest
holds the KV cache. Under tensor parallelism (TP) each card keeps 1/TP of the weights and 1/TP of the KV
heads (at least one head: with fewer KV heads than cards, heads are replicated); an MLA latent cache is not
split by heads, so every card keeps all of it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from npulab.core.i18n import t
from npulab.core.provenance import Figure, derive
from npulab.hw.chips import UnknownChip, chips, get_chip

GiB = 2**30

# bytes per element of the dtypes a weight or a KV cache is stored in
DTYPE_BYTES: dict[str, float] = {
    "float32": 4, "fp32": 4, "float": 4,
    "bfloat16": 2, "bf16": 2, "float16": 2, "fp16": 2, "half": 2,
    "float8": 1, "fp8": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "int8": 1,
    "int4": 0.5,
}

# the cards the planner knows: every chip of the course's table (npulab/data/chips.yaml; A3: one die = one device)
CARDS: tuple[str, ...] = tuple(chips())

_LAYER_KEYS = ("num_hidden_layers", "n_layer", "num_layers")
_HEAD_KEYS = ("num_attention_heads", "n_head")
_HIDDEN_KEYS = ("hidden_size", "n_embd", "d_model")


class ConfigError(ValueError):
    """The config lacks a value the formula needs, or a setting cannot be applied to it."""


def as_dict(config: Any) -> dict:
    """A config as a plain dict: a dict as it is, a ``transformers`` config via ``to_dict()``.

    Multimodal configs keep the language model under ``text_config``; that part is returned.
    """
    if hasattr(config, "to_dict"):
        config = config.to_dict()
    if not isinstance(config, Mapping):
        raise ConfigError(t("kv.not_a_dict", type=type(config).__name__))
    config = dict(config)
    if isinstance(config.get("text_config"), Mapping) and not any(k in config for k in _LAYER_KEYS):
        config = dict(config["text_config"])
    return config


def _get(config: dict, keys: tuple[str, ...], what: str) -> int:
    for key in keys:
        if config.get(key) is not None:
            return int(config[key])
    raise ConfigError(t("kv.missing", what=what, keys=" / ".join(keys)))


def model_name(config: Any) -> str:
    """The model's name as the config states it (``_name_or_path``, else the architecture)."""
    cfg = as_dict(config)
    name = cfg.get("_name_or_path") or (cfg.get("architectures") or [None])[0] or cfg.get("model_type")
    return str(name or t("kv.unnamed"))


def dtype_bytes(dtype: Any) -> float:
    """Bytes per element of ``dtype``: a name such as ``"bfloat16"``, a ``torch.dtype``, or a number of bytes."""
    if isinstance(dtype, (int, float)) and not isinstance(dtype, bool):
        if dtype <= 0:
            raise ConfigError(t("kv.bytes_positive", dtype=repr(dtype)))
        return float(dtype)
    name = str(dtype).removeprefix("torch.").lower()
    if name not in DTYPE_BYTES:
        raise ConfigError(t("kv.unknown_dtype", dtype=repr(dtype), known=t("kv.list_sep").join(DTYPE_BYTES)))
    return DTYPE_BYTES[name]


def is_mla(config: Any) -> bool:
    """True for DeepSeek-style multi-head latent attention (the config has ``kv_lora_rank``)."""
    return as_dict(config).get("kv_lora_rank") is not None


def num_layers(config: Any) -> int:
    return _get(as_dict(config), _LAYER_KEYS, t("kv.what_layers"))


def num_kv_heads(config: Any) -> int:
    """KV heads per layer: ``num_key_value_heads`` (or ``num_kv_heads``); 1 with ``multi_query``; else all heads."""
    cfg = as_dict(config)
    for key in ("num_key_value_heads", "num_kv_heads"):
        if cfg.get(key) is not None:
            return int(cfg[key])
    if cfg.get("multi_query"):
        return 1
    return _get(cfg, _HEAD_KEYS, t("kv.what_heads"))


def head_dim(config: Any) -> int:
    """Per-head dimension: the config's ``head_dim`` if given, else ``hidden_size // num_attention_heads``."""
    cfg = as_dict(config)
    if cfg.get("head_dim") is not None:
        return int(cfg["head_dim"])
    heads = _get(cfg, _HEAD_KEYS, t("kv.what_heads"))
    hidden = _get(cfg, _HIDDEN_KEYS, t("kv.what_hidden"))
    if hidden % heads:
        raise ConfigError(t("kv.hidden_not_divisible", hidden=hidden, heads=heads))
    return hidden // heads


def attention_kind(config: Any) -> str:
    """``"MLA"``, ``"MQA"`` (one KV head), ``"GQA"`` (fewer KV heads than query heads) or ``"MHA"``."""
    cfg = as_dict(config)
    if is_mla(cfg):
        return "MLA"
    kv, heads = num_kv_heads(cfg), _get(cfg, _HEAD_KEYS, t("kv.what_heads"))
    if kv == 1 and heads > 1:
        return "MQA"
    return "GQA" if kv < heads else "MHA"


def kv_elements_per_token(config: Any, *, mla: str = "latent") -> int:
    """Elements the KV cache keeps per token, summed over all layers."""
    cfg = as_dict(config)
    layers = num_layers(cfg)
    if is_mla(cfg):
        if mla == "latent":
            return layers * (int(cfg["kv_lora_rank"]) + _get(cfg, ("qk_rope_head_dim",), " qk_rope_head_dim"))
        if mla == "expanded":
            heads = _get(cfg, _HEAD_KEYS, t("kv.what_heads"))
            per_head = sum(_get(cfg, (k,), f" {k}") for k in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"))
            return layers * heads * per_head
        raise ConfigError(t("kv.bad_mla", mla=repr(mla)))
    return 2 * layers * num_kv_heads(cfg) * head_dim(cfg)


def kv_cache_bytes(config: Any, tokens: int, dtype: Any = "bfloat16", *, mla: str = "latent") -> int:
    """Bytes the KV cache of ``tokens`` tokens occupies across all layers (``tokens`` = batch × context).

    >>> llama2_7b = {"num_hidden_layers": 32, "num_attention_heads": 32, "hidden_size": 4096}
    >>> kv_cache_bytes(llama2_7b, 1)          # 2 × 32 layers × 32 heads × 128 × 2 B
    524288
    """
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        raise ConfigError(t("kv.bad_tokens", tokens=repr(tokens)))
    return math.ceil(kv_elements_per_token(config, mla=mla) * tokens * dtype_bytes(dtype))


def kv_formula(config: Any, dtype: Any = "bfloat16", *, mla: str = "latent") -> str:
    """The per-token formula with this config's numbers, e.g. ``2 × 32 层 × 8 个 KV 头 × 128 维 × 2 B``."""
    cfg = as_dict(config)
    size = dtype_bytes(dtype)
    layers = num_layers(cfg)
    per_token = kv_elements_per_token(cfg, mla=mla) * size
    if is_mla(cfg) and mla == "latent":
        terms = t("kv.formula_latent", layers=layers, rank=cfg["kv_lora_rank"], rope=cfg["qk_rope_head_dim"], size=f"{size:g}")
    elif is_mla(cfg):
        terms = t("kv.formula_expanded", layers=layers, heads=_get(cfg, _HEAD_KEYS, ""), nope=cfg["qk_nope_head_dim"],
                  rope=cfg["qk_rope_head_dim"], v=cfg["v_head_dim"], size=f"{size:g}")
    else:
        terms = t("kv.formula", layers=layers, kv_heads=num_kv_heads(cfg), head_dim=head_dim(cfg), size=f"{size:g}")
    return f"{terms} = {per_token:,.0f} B/token"


def kv_per_token_figure(config: Any, dtype: Any = "bfloat16", *, tp: int = 1, mla: str = "latent") -> Figure:
    """The KV cache per token on each of ``tp`` cards as a derived figure: its value is the formula shown.

    Under TP each card keeps ``max(1, kv_heads // tp)`` KV heads (heads are replicated when there are fewer of
    them than cards); an MLA cache is not split by heads, so every card keeps all of it.
    """
    cfg = as_dict(config)
    size = dtype_bytes(dtype)
    label = t("kv.per_token", dtype=dtype)
    layers = num_layers(cfg)
    if is_mla(cfg):
        note = t("kv.latent_not_split") if tp > 1 else ""
        rope = _get(cfg, ("qk_rope_head_dim",), " qk_rope_head_dim")
        if mla == "latent":
            return derive(label, "layers * (kv_lora_rank + qk_rope_head_dim) * bytes", "B", digits=None, note=note,
                          layers=layers, kv_lora_rank=int(cfg["kv_lora_rank"]), qk_rope_head_dim=rope, bytes=size)
        if mla == "expanded":
            return derive(label, "layers * heads * (qk_nope_head_dim + qk_rope_head_dim + v_head_dim) * bytes", "B",
                          digits=None, note=note, layers=layers, heads=_get(cfg, _HEAD_KEYS, t("kv.what_heads")),
                          qk_nope_head_dim=_get(cfg, ("qk_nope_head_dim",), " qk_nope_head_dim"), qk_rope_head_dim=rope,
                          v_head_dim=_get(cfg, ("v_head_dim",), " v_head_dim"), bytes=size)
        kv_elements_per_token(cfg, mla=mla)  # raises the error for an unknown ``mla``
    kv_heads_per_card(cfg, tp)  # raises when tp cannot be applied to the heads
    return derive(label, "2 * layers * max(1, kv_heads // tp) * head_dim * bytes", "B", digits=None,
                  layers=layers, kv_heads=num_kv_heads(cfg), tp=tp, head_dim=head_dim(cfg), bytes=size)


# ----------------------------------------------------------------------------------------------------------------
# Parameter count (for the weights' bytes)
# ----------------------------------------------------------------------------------------------------------------


def _dense_mlp(hidden: int, inter: int, bias: bool = False) -> int:
    return 3 * hidden * inter + (2 * inter + hidden if bias else 0)  # gate, up (hidden→inter) and down


def param_count(config: Any) -> int:
    """Parameters of a decoder-only model from its config (Llama / Mistral / Qwen2 / Qwen3 / Qwen3-MoE / DeepSeek-V3).

    Counts embeddings, attention and MLP (or MoE) weights, norms and the output head as the ``transformers``
    model builds them; DeepSeek-V3's multi-token-prediction module (``num_nextn_predict_layers``) is not part
    of it. Other architectures raise ``ConfigError``: give the planner ``weights_bytes`` instead.
    """
    cfg = as_dict(config)
    mtype = str(cfg.get("model_type", ""))
    if mtype not in ("llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "deepseek_v3", "deepseek_v2"):
        raise ConfigError(t("kv.param_count_models", model_type=repr(mtype)))
    hidden = _get(cfg, _HIDDEN_KEYS, t("kv.what_hidden"))
    layers = num_layers(cfg)
    heads = _get(cfg, _HEAD_KEYS, t("kv.what_heads"))
    vocab = _get(cfg, ("vocab_size",), t("kv.what_vocab"))
    embed = vocab * hidden * (1 if cfg.get("tie_word_embeddings", False) else 2)
    total = embed + hidden  # + the final norm
    for layer in range(layers):
        total += 2 * hidden  # input and post-attention norms
        total += _attention_params(cfg, mtype, hidden, heads)
        total += _mlp_params(cfg, mtype, hidden, layer)
    return total


def _attention_params(cfg: dict, mtype: str, hidden: int, heads: int) -> int:
    if mtype.startswith("deepseek"):
        nope, rope, v = (int(cfg[k]) for k in ("qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"))
        kv_rank, q_rank = int(cfg["kv_lora_rank"]), cfg.get("q_lora_rank")
        q = hidden * heads * (nope + rope) if not q_rank else hidden * q_rank + q_rank + q_rank * heads * (nope + rope)
        kv = hidden * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v)  # kv_a_proj, its norm, kv_b_proj
        return q + kv + heads * v * hidden
    d, kv_heads = head_dim(cfg), num_kv_heads(cfg)
    qkv_bias = mtype == "qwen2" or bool(cfg.get("attention_bias", False))
    o_bias = mtype != "qwen2" and bool(cfg.get("attention_bias", False))
    params = hidden * heads * d + 2 * hidden * kv_heads * d + heads * d * hidden
    params += (heads * d + 2 * kv_heads * d if qkv_bias else 0) + (hidden if o_bias else 0)
    if mtype.startswith("qwen3"):
        params += 2 * d  # q_norm and k_norm over head_dim
    return params


def _mlp_params(cfg: dict, mtype: str, hidden: int, layer: int) -> int:
    inter = _get(cfg, ("intermediate_size",), " intermediate_size")
    bias = bool(cfg.get("mlp_bias", False))
    if mtype.startswith("deepseek"):
        dense_first = int(cfg.get("first_k_dense_replace", 0))
        freq = int(cfg.get("moe_layer_freq", 1))
        if cfg.get("n_routed_experts") is None or layer < dense_first or layer % freq:
            return _dense_mlp(hidden, inter)
        experts, shared = int(cfg["n_routed_experts"]), int(cfg.get("n_shared_experts") or 0)
        moe_inter = int(cfg["moe_intermediate_size"])
        router = experts * hidden + (experts if cfg.get("topk_method") == "noaux_tc" else 0)
        return (experts + shared) * _dense_mlp(hidden, moe_inter) + router
    if mtype == "qwen3_moe":
        sparse_step = int(cfg.get("decoder_sparse_step", 1))
        dense_layers = set(cfg.get("mlp_only_layers") or [])
        if layer not in dense_layers and cfg.get("num_experts") and (layer + 1) % sparse_step == 0:
            experts = int(cfg["num_experts"])
            return experts * _dense_mlp(hidden, int(cfg["moe_intermediate_size"])) + experts * hidden
    return _dense_mlp(hidden, inter, bias)


# ----------------------------------------------------------------------------------------------------------------
# Cards and the planner
# ----------------------------------------------------------------------------------------------------------------


def card_hbm(card: str, *, runtime: bool = True) -> Figure:
    """Device memory of one card (one die on A3) in GiB, with its provenance.

    ``runtime=True`` (the default, as vLLM-Ascend plans): the total the runtime reports where a reading is
    published (``torch.npu.mem_get_info``), else the platform file's capacity with a note; ``runtime=False``: the
    capacity. ConfigError (Chinese) for an unknown card or one whose memory is not published (310B boards).
    """
    try:
        chip = get_chip(card)
    except UnknownChip as err:
        raise ConfigError(t("kv.no_hbm", card=repr(card), error=err)) from None
    total = chip.runtime_total_gib() if runtime else None
    if total is not None:
        return Figure(t("kv.runtime_memory", chip=chip.key), total.value, total.unit, total.kind, total.origin,
                      t("kv.runtime_memory_note"))
    cap = chip.figure("memory_gib")
    if cap is None:
        raise ConfigError(t("kv.unpublished", chip=chip.key, soc=chip.soc_version, note=chip.unpublished_note("memory_gib")))
    note = t("kv.capacity_note_runtime") if runtime else t("kv.capacity_note")
    return Figure(t("kv.capacity_per_die", chip=chip.key) if chip.dies > 1 else t("kv.capacity", chip=chip.key),
                  cap.value, cap.unit, cap.kind, cap.origin, note)


def kv_heads_per_card(config: Any, tp: int) -> int:
    """KV heads each of ``tp`` cards keeps: heads / tp, or 1 (replicated) when there are fewer heads than cards."""
    cfg = as_dict(config)
    heads, kv = _get(cfg, _HEAD_KEYS, t("kv.what_heads")), num_kv_heads(cfg)
    if heads % tp:
        raise ConfigError(t("kv.tp_heads", tp=tp, heads=heads))
    if kv >= tp:
        if kv % tp:
            raise ConfigError(t("kv.tp_kv_heads", tp=tp, kv=kv))
        return kv // tp
    if tp % kv:
        raise ConfigError(t("kv.tp_replicate", tp=tp, kv=kv))
    return 1


@dataclass(frozen=True)
class Plan:
    """Weights, reserve and KV cache of one model on ``tp`` cards of one kind; every figure derived."""

    model: str
    card: str
    tp: int
    hbm: Figure  # per card, GiB (reported)
    weight_dtype: str
    kv_dtype: str
    params: int
    weights_bytes: int  # whole model
    kv_per_token: Figure  # KV cache bytes per token per card, derived
    utilization: float
    activation_bytes: int  # per card (stated assumption)

    @property
    def kv_bytes_per_token(self) -> float:
        """KV cache bytes per token on each card (the value of the derived figure ``kv_per_token``)."""
        return self.kv_per_token.value

    @property
    def hbm_bytes(self) -> int:
        return int(self.hbm.value * GiB)

    @property
    def usable_bytes(self) -> int:
        """What the engine may use on one card: HBM × utilization."""
        return int(self.hbm_bytes * self.utilization)

    @property
    def weights_per_card(self) -> int:
        return math.ceil(self.weights_bytes / self.tp)

    @property
    def kv_budget_per_card(self) -> int:
        """Bytes left for the KV cache on one card (negative: the weights do not fit)."""
        return self.usable_bytes - self.weights_per_card - self.activation_bytes

    @property
    def fits(self) -> bool:
        return self.max_tokens > 0

    @property
    def max_tokens(self) -> int:
        """The largest batch × context (tokens in the cache at once) that fits."""
        budget = self.kv_budget_per_card
        return int(budget // self.kv_bytes_per_token) if budget > 0 else 0

    def max_batch(self, context: int) -> int:
        """How many sequences of ``context`` tokens fit at once."""
        if context <= 0:
            raise ConfigError(t("kv.bad_context", context=repr(context)))
        return self.max_tokens // context

    def figures(self) -> list[Figure]:
        """The plan as figures, each computed by the formula it shows (GiB to 2 decimals, bytes and tokens whole)."""
        usable = derive(t("kv.usable"), "hbm * utilization", "GiB", digits=None, note=t("kv.usable_note"), hbm=self.hbm, utilization=self.utilization)
        weights_label = t("kv.weights", dtype=self.weight_dtype)
        if self.params:
            weights = derive(weights_label, "params * bytes / tp / 2**30", "GiB", digits=None,
                             params=self.params, bytes=dtype_bytes(self.weight_dtype), tp=self.tp)
        else:  # weights given in bytes, not counted from the config
            weights = derive(weights_label, "weights_bytes / tp / 2**30", "GiB", digits=None,
                             weights_bytes=self.weights_bytes, tp=self.tp)
        reserve = derive(t("kv.reserve"), "reserve_bytes / 2**30", "GiB", digits=None, note=t("kv.reserve_note"), reserve_bytes=self.activation_bytes)
        kv_space = derive(t("kv.kv_space"), "usable - weights - reserve", "GiB", digits=None,
                          note="" if self.kv_budget_per_card > 0 else t("kv.kv_space_negative"),
                          usable=usable, weights=weights, reserve=reserve)
        # the exact whole-byte budget, so that the floor agrees with max_tokens
        tokens = derive(t("kv.max_tokens"), "max(0, floor(kv_space_gib * 2**30 / kv_per_token))",
                        "token", digits=None, kv_space_gib=self.kv_budget_per_card / GiB, kv_per_token=self.kv_per_token)
        return [self.hbm, *(_to_decimals(f, 2) for f in (usable, weights, reserve, kv_space)),
                _to_decimals(self.kv_per_token, None), tokens]


def _to_decimals(figure: Figure, ndigits: int | None) -> Figure:
    """The figure with its value rounded to ``ndigits`` decimals (``None``: to a whole number) for display."""
    return replace(figure, value=round(figure.value, ndigits))


def plan(config: Any, card: str = "910B3", *, tp: int = 1, weight_dtype: Any = "bfloat16",
         kv_dtype: Any = "bfloat16", utilization: float = 0.9, activation_bytes: int = 2 * GiB,
         weights_bytes: int | None = None, mla: str = "latent") -> Plan:
    """Place a model on ``tp`` cards of kind ``card``: weights / tp + reserve + KV cache ≤ HBM × utilization."""
    cfg = as_dict(config)
    if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
        raise ConfigError(t("kv.bad_tp", tp=repr(tp)))
    if not 0 < utilization <= 1:
        raise ConfigError(t("kv.bad_utilization", utilization=repr(utilization)))
    if activation_bytes < 0:
        raise ConfigError(t("kv.bad_activation", activation=repr(activation_bytes)))
    hbm = card_hbm(card)
    params = param_count(cfg) if weights_bytes is None else 0
    weights = math.ceil(params * dtype_bytes(weight_dtype)) if weights_bytes is None else int(weights_bytes)
    per_token = kv_per_token_figure(cfg, kv_dtype, tp=tp, mla=mla)
    return Plan(model_name(cfg), card, tp, hbm, str(weight_dtype), str(kv_dtype), params, weights, per_token,
                utilization, int(activation_bytes))


def smallest_tp(config: Any, card: str = "910B3", *, tokens: int = 1, candidates: tuple[int, ...] = (1, 2, 4, 8, 16, 32),
                **kwargs) -> Plan | None:
    """The plan with the smallest TP degree (among ``candidates`` valid for the config) that caches ``tokens``."""
    for tp in candidates:
        try:
            p = plan(config, card, tp=tp, **kwargs)
        except ConfigError:
            continue  # tp does not divide the heads
        if p.max_tokens >= tokens:
            return p
    return None


def cards_needed(config: Any, card: str = "910B3", *, tp: int = 1, tokens: int = 1, **kwargs) -> tuple[int, Figure]:
    """Cards for ``tokens`` cached tokens at TP degree ``tp``, adding pipeline stages (PP) until they fit.

    With PP stages each card keeps 1/(TP·PP) of the weights and the KV cache of 1/PP of the layers:
    PP = ⌈(weights / TP + tokens × KV per token per card) / (usable − reserve)⌉, cards = TP × PP.
    """
    p = plan(config, card, tp=tp, **kwargs)
    room = p.usable_bytes - p.activation_bytes
    if room <= 0:
        raise ConfigError(t("kv.reserve_too_large"))
    # weights and room in GiB: scaling by 2**30 is exact, so the ceiling is the same as in bytes
    fig = derive(t("kv.cards", tp=tp, tokens=f"{tokens:,}"),
                 "tp * max(1, ceil((weights_gib / tp + tokens * kv_per_token / 2**30) / room_gib))", t("kv.cards_unit"),
                 digits=None, note=t("kv.cards_note"),
                 tp=tp, weights_gib=p.weights_bytes / GiB, tokens=tokens, kv_per_token=p.kv_per_token,
                 room_gib=room / GiB)
    return fig.value, fig
