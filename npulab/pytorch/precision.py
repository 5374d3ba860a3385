"""Precision debugging with forward hooks: where does a reduced-precision run first go wrong?

Two questions, both answered by running a *copy* of the model (the caller's model is never changed):

- ``first_nonfinite(model, *inputs, dtype=torch.float16)``: the qualified name (as in
  ``model.named_modules()``) of the first module, in the order the modules *finish*, whose output holds
  an inf or a NaN; None when every output is finite. Modules finish inside-out, so the answer is the
  innermost module where the problem appears, not the container around it.
- ``compare_layers(model, *inputs, dtype=torch.bfloat16)``: every module's output in ``dtype`` against the
  same module in float32, as a relative error per module, and the first module past a threshold. This
  is the idea behind MindStudio Probe's accuracy compare (two dumps, matched by name, compared by
  statistics), done in one process on one device.

>>> import torch
>>> from torch import nn
>>> net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
>>> first_nonfinite(net, torch.ones(1, 2)) is None
True
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from npulab.core.i18n import localized, t

# largest finite values and machine epsilon (torch.finfo), shown by the lesson next to each other
FLOAT_TYPES = (torch.float16, torch.bfloat16, torch.float32)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def finfo_rows(dtypes: tuple[torch.dtype, ...] = FLOAT_TYPES) -> list[tuple[str, int, str, str, str]]:
    """(dtype, bits, largest finite value, smallest normal value, epsilon) from ``torch.finfo``."""
    rows = []
    for dt in dtypes:
        fi = torch.finfo(dt)
        rows.append((dtype_name(dt), fi.bits, f"{fi.max:.6g}", f"{fi.tiny:.4g}", f"{fi.eps:.3g}"))
    return rows


def _tensors(obj: Any) -> Iterator[torch.Tensor]:
    """Every tensor inside ``obj`` (tensors, tuples, lists, dicts, dataclass-like outputs)."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _tensors(item)


def has_nonfinite(obj: Any) -> bool:
    """True when a floating-point tensor inside ``obj`` holds an inf or a NaN."""
    return any(t.is_floating_point() and not bool(torch.isfinite(t).all()) for t in _tensors(obj))


def _cast(obj: Any, dtype: torch.dtype, device: torch.device | str | None) -> Any:
    """Floating-point tensors of ``obj`` cast to ``dtype`` (and moved to ``device``); others moved only."""
    if isinstance(obj, torch.Tensor):
        obj = obj.to(device) if device is not None else obj
        return obj.to(dtype) if obj.is_floating_point() else obj
    if isinstance(obj, tuple):
        return tuple(_cast(o, dtype, device) for o in obj)
    if isinstance(obj, list):
        return [_cast(o, dtype, device) for o in obj]
    if isinstance(obj, dict):
        return {k: _cast(v, dtype, device) for k, v in obj.items()}
    return obj


def _model_device(model: nn.Module) -> torch.device:
    for p in model.parameters():
        return p.device
    for b in model.buffers():
        return b.device
    return torch.device("cpu")


def cast_copy(model: nn.Module, dtype: torch.dtype, device: torch.device | str | None = None) -> nn.Module:
    """A deep copy of ``model`` with floating-point parameters and buffers in ``dtype``."""
    twin = copy.deepcopy(model)
    if device is not None:
        twin = twin.to(device)
    return twin.to(dtype)


class _Recorder:
    """Forward hooks on every module of a model; records (name, output) in the order modules finish."""

    def __init__(self, model: nn.Module, keep: bool):
        self.calls: list[tuple[str, str, Any]] = []  # (qualified name, type name, output or None)
        self.keep = keep
        self.handles = [m.register_forward_hook(self._hook(name)) for name, m in model.named_modules()]

    def _hook(self, name: str):
        def hook(module, _inputs, output):
            stored = _detach(output) if self.keep else has_nonfinite(output)
            self.calls.append((name, type(module).__name__, stored))

        return hook

    def remove(self) -> None:
        for h in self.handles:
            h.remove()


def _detach(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.detach()
    if isinstance(obj, (list, tuple)):
        return type(obj)(_detach(o) for o in obj) if isinstance(obj, list) else tuple(_detach(o) for o in obj)
    if isinstance(obj, dict):
        return {k: _detach(v) for k, v in obj.items()}
    return obj


def _run(model: nn.Module, inputs: tuple, dtype: torch.dtype, device, keep: bool) -> list[tuple[str, str, Any]]:
    twin = cast_copy(model, dtype, device)
    target = device if device is not None else _model_device(twin)
    recorder = _Recorder(twin, keep)
    try:
        with torch.no_grad():
            twin(*_cast(inputs, dtype, target))
    finally:
        recorder.remove()
    return recorder.calls


def first_nonfinite(model: nn.Module, *inputs: Any, dtype: torch.dtype = torch.float16,
                    device: torch.device | str | None = None) -> str | None:
    """Name of the first module (in the order modules finish) whose output has inf/NaN in ``dtype``.

    The model runs as a copy cast to ``dtype`` (floating-point inputs too), under ``torch.no_grad()``, on
    ``device`` (default: where the model's parameters are). The root module's name is ``""``; None means
    every module's output was finite.
    """
    for name, _kind, bad in _run(model, inputs, dtype, device, keep=False):
        if bad:
            return name
    return None


@dataclass(frozen=True)
class LayerError:
    """One module call: its relative error against the float32 reference."""

    name: str
    kind: str
    rel_error: float  # ‖y − y_ref‖₂ / ‖y_ref‖₂ over the module's first output tensor (inf if not finite)
    max_abs_ref: float


@dataclass
class LayerComparison:
    """Per-module relative errors of a reduced-precision run against float32, in execution order."""

    dtype: str
    rows: list[LayerError] = field(default_factory=list)

    def first_over(self, threshold: float) -> LayerError | None:
        """The first module whose relative error exceeds ``threshold`` (None if none does)."""
        return next((r for r in self.rows if not r.rel_error <= threshold), None)

    def worst(self, n: int = 5) -> list[LayerError]:
        return sorted(self.rows, key=lambda r: -r.rel_error if math.isfinite(r.rel_error) else -math.inf)[:n]


def _first_tensor(obj: Any) -> torch.Tensor | None:
    return next((t for t in _tensors(obj) if t.is_floating_point()), None)


def relative_error(candidate: torch.Tensor, reference: torch.Tensor) -> float:
    """‖candidate − reference‖₂ / ‖reference‖₂, computed in float64 (inf when candidate is not finite)."""
    c, r = candidate.double().cpu(), reference.double().cpu()
    if not bool(torch.isfinite(c).all()):
        return math.inf
    norm = float(torch.linalg.vector_norm(r))
    diff = float(torch.linalg.vector_norm(c - r))
    if norm == 0.0:
        return 0.0 if diff == 0.0 else math.inf
    return diff / norm


def compare_layers(model: nn.Module, *inputs: Any, dtype: torch.dtype = torch.bfloat16,
                   device: torch.device | str | None = None) -> LayerComparison:
    """Relative error of every module's output in ``dtype`` against a float32 run of the same copy.

    Both runs use copies of ``model`` (so weights are identical up to rounding to ``dtype``) and the same
    inputs; module calls are matched by name and call order.
    """
    reference = _run(model, inputs, torch.float32, device, keep=True)
    candidate = _run(model, inputs, dtype, device, keep=True)
    if len(reference) != len(candidate):
        raise RuntimeError(t("pt.module_count_differs", reference=len(reference), candidate=len(candidate)))
    result = LayerComparison(dtype_name(dtype))
    for (name, kind, ref_out), (name2, _k, out) in zip(reference, candidate, strict=True):
        if name != name2:  # data-dependent control flow took another path in reduced precision
            raise RuntimeError(t("pt.module_order_differs", first=repr(name), second=repr(name2)))
        ref_t, out_t = _first_tensor(ref_out), _first_tensor(out)
        if ref_t is None or out_t is None:
            continue
        result.rows.append(LayerError(name, kind, relative_error(out_t, ref_t), float(ref_t.abs().max())))
    return result


def dtype_support() -> dict:
    """The course's sourced table of BF16 / HF32 / FP64 support on Ascend (``npulab/data/dtype_support.yaml``);
    a ``chip:`` row takes its series, BF16, source and other data types from ``npulab/data/chips.yaml``."""
    from npulab.core.paths import DATA_DIR, load_yaml

    data = load_yaml(DATA_DIR / "dtype_support.yaml")
    chips = load_yaml(DATA_DIR / "chips.yaml")
    lines = []
    for line in data["product_lines"]:
        if "chip" in line:
            chip = chips["chips"][line["chip"]]
            line = {"name": localized(chip, "series"), "bf16": chip["bf16"], "source": chip["bf16_source"],
                    "dtypes": chip["dtypes"], "dtypes_source": chip["source"]}
            for key in (line["source"], line["dtypes_source"]):
                data["sources"].setdefault(key, chips["sources"][key])
        else:
            line = {**line, "name": localized(line, "name")}
        lines.append(line)
    data["product_lines"] = lines
    for source in data["sources"].values():  # the texts a reader sees, in the reader's language where twinned
        source["title"] = localized(source, "title")
    for part in ("hf32", "float64"):
        data[part]["what"] = localized(data[part], "what")
    return data
