"""PyTorch ``state_dict`` ↔ MindSpore parameters for networks built alike (``npulab.pytorch.resnet`` ↔ ``npulab.mindspore.resnet``).

What changes between the frameworks is only the *names* of BatchNorm's tensors; the *layouts* are
the same (convolution OIHW, dense/linear (out, in), 1-D BN vectors), and ``load_torch_state_dict``
checks every shape rather than assuming it:

============================  ===============================
PyTorch                       MindSpore
============================  ===============================
``<bn>.weight`` / ``.bias``   ``<bn>.gamma`` / ``<bn>.beta``
``<bn>.running_mean``         ``<bn>.moving_mean``
``<bn>.running_var``          ``<bn>.moving_variance``
``<bn>.num_batches_tracked``  (none: dropped)
anything else                 the same name
============================  ===============================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import mindspore as ms
import numpy as np
import torch
from mindspore import nn

from npulab.core.i18n import t
from npulab.mindspore import runtime as ms_env

BN_TO_MS = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"}
BN_TO_TORCH = {v: k for k, v in BN_TO_MS.items()}
DROPPED = "num_batches_tracked"  # PyTorch counts BN updates (used only when momentum=None); MindSpore has no such tensor


def batchnorm_prefixes(names: Iterable[str], marker: str = "running_mean") -> set[str]:
    """Module paths that are BatchNorm layers: those owning a ``running_mean`` (or, for MindSpore names, ``moving_mean``)."""
    return {n.rsplit(".", 1)[0] for n in names if n.rsplit(".", 1)[-1] == marker}


def ms_name(torch_name: str, bn: set[str]) -> str | None:
    """The MindSpore name of a PyTorch tensor (None for ``num_batches_tracked``); ``bn`` = BatchNorm module paths."""
    prefix, _, leaf = torch_name.rpartition(".")
    if leaf == DROPPED:
        return None
    if prefix in bn and leaf in BN_TO_MS:
        return f"{prefix}.{BN_TO_MS[leaf]}"
    return torch_name


def torch_name(ms_param_name: str, bn: set[str]) -> str:
    """The PyTorch name of a MindSpore parameter; ``bn`` = BatchNorm cell paths (see ``batchnorm_prefixes``)."""
    prefix, _, leaf = ms_param_name.rpartition(".")
    if prefix in bn and leaf in BN_TO_TORCH:
        return f"{prefix}.{BN_TO_TORCH[leaf]}"
    return ms_param_name


def name_map(state_dict: Mapping[str, torch.Tensor]) -> dict[str, str]:
    """PyTorch name → MindSpore name for every tensor that MindSpore keeps."""
    bn = batchnorm_prefixes(state_dict)
    return {k: n for k in state_dict if (n := ms_name(k, bn)) is not None}


def to_arrays(state_dict: Mapping[str, torch.Tensor]) -> dict[str, np.ndarray]:
    """MindSpore name → float32 NumPy copy of the PyTorch tensor (the layout is not changed)."""
    return {dst: state_dict[src].detach().cpu().numpy().astype(np.float32, copy=True)
            for src, dst in name_map(state_dict).items()}


def to_mindspore(state_dict: Mapping[str, torch.Tensor]) -> dict[str, ms.Parameter]:
    """Convert a PyTorch state dict into MindSpore parameters (float32 copies, same layouts)."""
    return {name: ms.Parameter(ms.Tensor(array), name=name) for name, array in to_arrays(state_dict).items()}


def load_torch_state_dict(net: nn.Cell, state_dict: Mapping[str, torch.Tensor]) -> int:
    """Load a PyTorch state dict into ``net`` strictly: every name and shape must match. Returns the tensors loaded."""
    params = to_mindspore(state_dict)
    expected = {p.name: tuple(p.shape) for p in net.get_parameters()}
    missing = sorted(set(expected) - set(params))
    unexpected = sorted(set(params) - set(expected))
    wrong = [f"{n}: PyTorch {tuple(params[n].shape)} ≠ MindSpore {expected[n]}"
             for n in sorted(set(params) & set(expected)) if tuple(params[n].shape) != expected[n]]
    if missing or unexpected or wrong:
        raise ValueError(t("ms.weights_mismatch")
                         + (t("ms.weights_missing", names=missing[:5]) if missing else "")
                         + (t("ms.weights_unexpected", names=unexpected[:5]) if unexpected else "")
                         + (t("ms.weights_wrong_shape", names=wrong[:5]) if wrong else ""))
    not_loaded, _ = ms.load_param_into_net(net, params, strict_load=True)
    if not_loaded:
        raise ValueError(t("ms.weights_not_loaded", names=not_loaded[:5]))
    return len(params)


def save_checkpoint(state_dict: Mapping[str, torch.Tensor], path: str | Path) -> Path:
    """Write a PyTorch state dict as a MindSpore ``.ckpt`` file (MindSpore names); return the path."""
    path = Path(path)
    items = [{"name": name, "data": ms.Tensor(array)} for name, array in to_arrays(state_dict).items()]
    ms.save_checkpoint(items, str(path))
    return path


def load_checkpoint(path: str | Path) -> dict[str, ms.Parameter]:
    """Read a MindSpore ``.ckpt`` file into a name → Parameter dict."""
    return ms.load_checkpoint(str(path))


def to_torch(params: nn.Cell | Mapping[str, ms.Parameter],
             template: Mapping[str, torch.Tensor] | None = None) -> dict[str, torch.Tensor]:
    """MindSpore parameters (a Cell or a checkpoint dict) → a PyTorch state dict.

    ``num_batches_tracked`` does not exist in MindSpore: it is copied from ``template`` if given, else set to 0.
    """
    items = {p.name: p for p in params.get_parameters()} if isinstance(params, nn.Cell) else dict(params)
    bn = batchnorm_prefixes(items, marker="moving_mean")
    out = {torch_name(name, bn): torch.from_numpy(p.asnumpy().copy()) for name, p in items.items()}
    for prefix in sorted(bn):
        key = f"{prefix}.{DROPPED}"
        out[key] = template[key].clone() if template is not None and key in template else torch.tensor(0)
    return out


@dataclass(frozen=True)
class LogitsComparison:
    """The same images through the PyTorch and the MindSpore network."""

    max_abs: float  # max |torch − mindspore|
    scale: float  # max |torch logits|: the yardstick for max_abs
    same_argmax: bool
    torch_logits: np.ndarray
    ms_logits: np.ndarray

    @property
    def relative(self) -> float:
        """max_abs / scale."""
        return self.max_abs / self.scale if self.scale else self.max_abs

    def within(self, rtol: float) -> bool:
        """True when the largest difference is at most ``rtol`` times the largest logit."""
        return self.relative <= rtol


LOGITS_RTOL = 1e-4  # FP32 on the CPU, different convolution algorithms: observed ≈1e-6…1e-5 of the largest logit


def logits_rtol() -> float:
    """The logits tolerance for the device MindSpore runs on (relaxed off the CPU, see ``ms_env.precision_allowance``)."""
    return LOGITS_RTOL * ms_env.precision_allowance()


def compare_logits(torch_model: torch.nn.Module, ms_net: nn.Cell, images: np.ndarray, train: bool = False) -> LogitsComparison:
    """Run ``images`` (N, C, H, W float32) through both networks (eval mode unless ``train``) and compare the logits.

    With ``train=True`` both networks normalise with batch statistics and update their BatchNorm running statistics.
    """
    images = np.ascontiguousarray(images, dtype=np.float32)
    torch_model.train(train)
    with torch.no_grad():
        t = torch_model(torch.from_numpy(images)).numpy()
    ms_net.set_train(train)
    m = ms_net(ms.Tensor(images)).asnumpy()
    return LogitsComparison(float(np.abs(t - m).max()), float(np.abs(t).max()),
                            bool((t.argmax(1) == m.argmax(1)).all()), t, m)
