"""A small Llama-style decoder built locally with ``transformers`` (random weights, no download), timed live.

- ``lesson_config`` picks the model size for the device (small on CPU, larger on an NPU or GPU);
- ``build_model`` makes ``LlamaForCausalLM`` from the config with random weights on the device;
- ``prefill_decode`` runs one prefill and then token-by-token greedy decoding with the KV cache, timing each
  step with device synchronisation; ``cache_bytes`` measures the cache the model actually kept;
- ``decode_step_costs`` / ``prefill_costs`` count FLOP and the minimum bytes moved, to place both phases on the
  roofline of chapter 02: decoding reads every weight once per step for only ``batch`` tokens;
- ``lora_model`` / ``train_steps`` wrap the model with a ``peft`` LoRA adapter and run a few training steps on
  a synthetic next-token task, so trainable parameters and optimizer state can be measured.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from npulab.core.device import Device, by_device, synchronize
from npulab.core.i18n import t

# the lesson model: Llama architecture (RMSNorm, RoPE, SwiGLU, GQA), sizes chosen for about a minute on 2 CPU cores
CPU_SIZE = {"hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 4, "num_attention_heads": 4,
            "num_key_value_heads": 2, "vocab_size": 4096}
ACCELERATOR_SIZE = {"hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 16, "num_attention_heads": 16,
                    "num_key_value_heads": 4, "vocab_size": 32000}


def lesson_config(device: Device | None = None, **overrides: Any):
    """A ``transformers.LlamaConfig`` sized for ``device`` (CPU: about 5 M parameters; NPU/GPU: about 0.85 B)."""
    from transformers import LlamaConfig

    size = dict(CPU_SIZE if device is None else by_device(device, cpu=CPU_SIZE, accelerator=ACCELERATOR_SIZE))
    size.update(overrides)
    return LlamaConfig(max_position_embeddings=4096, tie_word_embeddings=False, **size)


def build_model(config, device: Device | str = "cpu", dtype: str = "float32", seed: int = 0):
    """``LlamaForCausalLM(config)`` with random weights (seeded), in eval mode, on ``device``."""
    import torch
    from transformers import AutoModelForCausalLM

    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=getattr(torch, dtype))
    target = device.torch if isinstance(device, Device) else device
    return model.to(target).eval()


def count_params(model, trainable_only: bool = False) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad or not trainable_only)


def cache_bytes(cache) -> int:
    """Bytes of all key/value tensors a ``transformers`` cache (or a legacy tuple of tuples) holds."""
    import torch

    tensors = []
    layers = getattr(cache, "layers", None)
    if layers is not None:
        for layer in layers:
            tensors += [getattr(layer, "keys", None), getattr(layer, "values", None)]
    else:
        for item in cache:
            tensors += list(item)
    return sum(t.numel() * t.element_size() for t in tensors if isinstance(t, torch.Tensor))


@dataclass
class GenerationRun:
    """One prefill plus ``len(step_seconds)`` decode steps of a batch, timed on ``device``."""

    batch: int
    prompt_len: int
    prefill_seconds: float  # median of the timed prefills
    step_seconds: list[float]
    cache_bytes: int  # measured after the last step
    device: str
    tokens: Any = field(default=None, repr=False)

    @property
    def decode_step_median(self) -> float:
        return statistics.median(self.step_seconds)

    @property
    def prefill_tokens_per_s(self) -> float:
        return self.batch * self.prompt_len / self.prefill_seconds

    @property
    def decode_tokens_per_s(self) -> float:
        """Tokens generated per second across the batch, at the median step time."""
        return self.batch / self.decode_step_median


def prefill_decode(model, batch: int, prompt_len: int, new_tokens: int, device: Device | str = "cpu",
                   seed: int = 0, warmup: bool = True, prefill_repeats: int = 3) -> GenerationRun:
    """Prefill ``batch`` random prompts of ``prompt_len`` tokens, then decode ``new_tokens`` greedily with the cache.

    The prefill is timed ``prefill_repeats`` times (median), each decode step once (median over the steps).
    """
    import torch
    from transformers import DynamicCache

    target = device.torch if isinstance(device, Device) else device
    vocab = model.config.vocab_size
    prompt = torch.randint(0, vocab, (batch, prompt_len), generator=torch.Generator().manual_seed(seed)).to(target)

    def run(steps: int, prefills: int = 1):
        prefill_times = []
        for _ in range(prefills):  # each on a fresh cache; decoding continues from the last one
            cache = DynamicCache(config=model.config)
            synchronize(device)
            start = time.perf_counter()
            out = model(input_ids=prompt, cache=cache, use_cache=True)
            nxt = out.logits[:, -1:].argmax(-1)
            synchronize(device)
            prefill_times.append(time.perf_counter() - start)
        prefill = statistics.median(prefill_times)
        times, generated = [], [nxt]
        for _ in range(steps):
            start = time.perf_counter()
            out = model(input_ids=nxt, cache=cache, use_cache=True)
            nxt = out.logits[:, -1:].argmax(-1)
            synchronize(device)
            times.append(time.perf_counter() - start)
            generated.append(nxt)
        return prefill, times, cache, torch.cat(generated, dim=1)

    with torch.inference_mode():
        if warmup:
            run(2)  # one-off costs: allocator, kernel selection, lazy initialisation
        prefill, times, cache, tokens = run(new_tokens, prefill_repeats)
    name = device.torch if isinstance(device, Device) else str(device)
    return GenerationRun(batch, prompt_len, prefill, times, cache_bytes(cache), name, tokens.cpu())


# ----------------------------------------------------------------------------------------------------------------
# FLOP and bytes of the two phases (for the roofline)
# ----------------------------------------------------------------------------------------------------------------


def _dims(config) -> dict:
    from npulab.llm.kv_cache import as_dict, head_dim, num_kv_heads

    cfg = as_dict(config)
    return {"L": cfg["num_hidden_layers"], "h": cfg["hidden_size"], "H": cfg["num_attention_heads"],
            "d": head_dim(cfg), "kv": num_kv_heads(cfg), "V": cfg["vocab_size"]}


def matmul_params(config) -> int:
    """Weights that take part in matrix products for every token: all but the input embedding table (a lookup).

    With ``tie_word_embeddings`` the one table is also the LM head, a matrix product every token, so nothing is
    subtracted.
    """
    from npulab.llm.kv_cache import as_dict, param_count

    dims = _dims(config)
    tied = bool(as_dict(config).get("tie_word_embeddings", False))
    return param_count(config) - (0 if tied else dims["V"] * dims["h"])


@dataclass(frozen=True)
class PhaseCost:
    """FLOP and minimum bytes moved of one forward pass (prefill or one decode step)."""

    name: str
    flop: float
    bytes: float

    @property
    def intensity(self) -> float:
        return self.flop / self.bytes


def decode_step_costs(config, batch: int, context: int, dtype_bytes: float = 4) -> PhaseCost:
    """One decode step of ``batch`` sequences that already hold ``context`` tokens.

    FLOP ≈ 2 × matmul weights × batch (a multiply-add per weight per token) + 4 × L × H × d × context × batch
    (scores Q·Kᵀ and the weighted sum of V). Bytes ≥ every weight read once + the whole KV cache read once.
    """
    from npulab.llm.kv_cache import kv_cache_bytes

    dims = _dims(config)
    weights = matmul_params(config) * dtype_bytes
    flop = 2 * matmul_params(config) * batch + 4 * dims["L"] * dims["H"] * dims["d"] * context * batch
    kv = kv_cache_bytes(config, batch * context, dtype_bytes)
    return PhaseCost(t("kv.decode_phase", batch=batch, context=context), flop, weights + kv)


def prefill_costs(config, batch: int, prompt_len: int, dtype_bytes: float = 4) -> PhaseCost:
    """Prefill of ``batch`` prompts of ``prompt_len`` tokens: weights read once for batch × prompt_len tokens.

    Attention FLOP use the causal average (each token attends to about half the prompt): 2 × L × H × d × n² × batch.
    Bytes ≥ weights + the KV cache written once.
    """
    from npulab.llm.kv_cache import kv_cache_bytes

    dims = _dims(config)
    tokens = batch * prompt_len
    flop = 2 * matmul_params(config) * tokens + 2 * dims["L"] * dims["H"] * dims["d"] * prompt_len**2 * batch
    return PhaseCost(t("kv.prefill_phase", batch=batch, prompt=prompt_len), flop,
                     matmul_params(config) * dtype_bytes + kv_cache_bytes(config, tokens, dtype_bytes))


# ----------------------------------------------------------------------------------------------------------------
# LoRA fine-tuning (peft)
# ----------------------------------------------------------------------------------------------------------------


def lora_model(model, rank: int = 8, alpha: int = 16, target_modules: Any = "all-linear"):
    """Wrap ``model`` with a peft LoRA adapter: base weights frozen, low-rank A·B added to the targeted Linear layers."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=0.0, target_modules=target_modules, task_type="CAUSAL_LM")
    return get_peft_model(model, config)


def counting_batch(batch: int, seq_len: int, period: int = 64, seed: int = 0):
    """Synthetic training data: each row counts upward modulo ``period`` from a random start (next = current + 1)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    start = torch.randint(0, period, (batch, 1), generator=gen)
    return (start + torch.arange(seq_len)) % period


def optimizer_state_bytes(optimizer) -> int:
    """Bytes of every tensor the optimizer keeps (AdamW: two moments per trainable parameter, plus a step count)."""
    import torch

    return sum(t.numel() * t.element_size() for state in optimizer.state.values() for t in state.values()
               if isinstance(t, torch.Tensor))


@dataclass
class TrainRun:
    losses: list[float]
    seconds: float
    optimizer_bytes: int
    trainable: int
    total: int


def train_steps(model, steps: int, batch: int, seq_len: int, device: Device | str = "cpu", lr: float = 2e-3,
                period: int = 64, seed: int = 0) -> TrainRun:
    """``steps`` AdamW steps of next-token training on ``counting_batch`` data; losses, time and optimizer state."""
    import torch

    target = device.torch if isinstance(device, Device) else device
    model.train()
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=lr)
    losses = []
    synchronize(device)
    start = time.perf_counter()
    for step in range(steps):
        ids = counting_batch(batch, seq_len, period, seed + step).to(target)
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss.detach()))
    synchronize(device)
    seconds = time.perf_counter() - start
    model.eval()
    return TrainRun(losses, seconds, optimizer_state_bytes(optimizer), sum(p.numel() for p in params),
                    sum(p.numel() for p in model.parameters()))
