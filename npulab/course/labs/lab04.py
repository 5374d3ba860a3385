"""Checks of lab 04 (from PyTorch to MindSpore): BatchNorm momentum, a translated block, weight names, a train step."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from npulab.core.i18n import t
from npulab.course.labs import Lab

TORCH_MOMENTUM = 0.01  # question 1
BLOCK_MOMENTUM = 0.3  # the PyTorch block of question 2


def _check_momentum(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab04.momentum.type")
    if math.isclose(value, 1 - TORCH_MOMENTUM, abs_tol=1e-9):
        return True, t("lab04.momentum.right")
    if math.isclose(value, TORCH_MOMENTUM, abs_tol=1e-9):
        return False, t("lab04.momentum.copied")
    if math.isclose(value, 0.9, abs_tol=1e-9) or math.isclose(value, 0.1, abs_tol=1e-9):
        return False, t("lab04.momentum.default")
    return False, t("lab04.momentum.other")


def torch_block():
    """The PyTorch block that question 2 translates: Conv2d(3, 8, 3, stride 2, padding 1, with bias) → BN → ReLU."""
    import torch

    class TorchBlock(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
            self.bn = torch.nn.BatchNorm2d(8, momentum=BLOCK_MOMENTUM)
            self.relu = torch.nn.ReLU(inplace=True)

        def forward(self, x):
            return self.relu(self.bn(self.conv(x)))

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(4)
        return TorchBlock()


def _batches(count: int = 3) -> list[np.ndarray]:
    rng = np.random.default_rng(4)
    # even size: pad_mode="same" with stride 2 then pads one side only, unlike PyTorch's padding=1
    return [(rng.standard_normal((4, 3, 8, 8)) * (i + 1) + i).astype(np.float32) for i in range(count)]


def _check_block(cls) -> tuple[bool | None, str]:
    import mindspore as ms
    import torch
    from mindspore import nn

    from npulab.mindspore import convert as ms_convert
    if not (isinstance(cls, type) and issubclass(cls, nn.Cell)):
        return False, t("lab04.block.type")
    net = cls()
    names = {p.name for p in net.get_parameters()}
    if not names:
        return False, t("lab04.block.no_params")
    if "conv.bias" not in names and "conv.weight" in names:
        return False, t("lab04.block.no_bias")
    ref = torch_block()
    try:
        ms_convert.load_torch_state_dict(net, ref.state_dict())
    except ValueError as err:
        return False, t("lab04.block.load", err=err)
    ref.train()
    net.set_train(True)
    for x in _batches():
        out_pt = ref(torch.from_numpy(x)).detach().numpy()
        out_ms = net(ms.Tensor(x)).asnumpy()
        if out_pt.shape != out_ms.shape:
            return False, t("lab04.block.shape", got=out_ms.shape, expected=out_pt.shape)
        if np.abs(out_pt - out_ms).max() > 1e-4:
            return False, t("lab04.block.train_output")
    moved = float(np.abs(ref.bn.running_mean.numpy() - net.bn.moving_mean.asnumpy()).max())
    if moved > 1e-4:
        return False, t("lab04.block.running_mean")
    ref.eval()
    net.set_train(False)
    x = _batches(4)[-1]
    if np.abs(ref(torch.from_numpy(x)).detach().numpy() - net(ms.Tensor(x)).asnumpy()).max() > 1e-4:
        return False, t("lab04.block.eval_output")
    return True, t("lab04.block.right")


RENAME_CASES = {
    "conv1.weight": "conv1.weight",
    "bn1.weight": "bn1.gamma",
    "bn1.bias": "bn1.beta",
    "bn1.running_mean": "bn1.moving_mean",
    "bn1.running_var": "bn1.moving_variance",
    "bn1.num_batches_tracked": None,
    "layer1.0.downsample.1.weight": "layer1.0.downsample.1.gamma",
    "layer1.0.downsample.0.weight": "layer1.0.downsample.0.weight",
    "fc.weight": "fc.weight",
    "fc.bias": "fc.bias",
}
RENAME_BN = {"bn1", "layer1.0.downsample.1"}


def _check_rename(fn: Callable) -> tuple[bool | None, str]:
    if not callable(fn):
        return False, t("lab04.need_function")
    first = fn("bn1.weight", set(RENAME_BN))
    if first is Ellipsis:
        return None, t("lab04.stub")
    for name, expected in RENAME_CASES.items():
        got = fn(name, set(RENAME_BN))
        if got == expected:
            continue
        if expected is None:
            return False, t("lab04.rename.none", name=name)
        if name.startswith("fc.") or name.endswith("downsample.0.weight") or name.startswith("conv"):
            return False, t("lab04.rename.not_bn", name=name, got=repr(got))
        return False, t("lab04.rename.bn", name=name, got=repr(got))
    return True, t("lab04.rename.right")


def _check_train_step(make_train_step: Callable) -> tuple[bool | None, str]:
    import mindspore as ms
    import torch
    from mindspore import nn

    from npulab.mindspore import api_pairs as ms_pairs
    from npulab.mindspore import convert as ms_convert
    if not callable(make_train_step):
        return False, t("lab04.need_function")
    pt, net = ms_pairs.twin_mlps(seed=7)
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = make_train_step(net, nn.CrossEntropyLoss(), optimizer)
    if step is Ellipsis:
        return None, t("lab04.stub")
    if not callable(step):
        return False, t("lab04.train_step.not_callable")
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((8, 6)).astype(np.float32), (np.arange(8) % 3).astype(np.int32)
    opt_pt = torch.optim.SGD(pt.parameters(), lr=0.1, momentum=0.9)
    before = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
    for i in range(3):
        opt_pt.zero_grad()
        loss_pt = torch.nn.functional.cross_entropy(pt(torch.from_numpy(x)), torch.from_numpy(y).long())
        loss_pt.backward()
        opt_pt.step()
        loss_ms = step(ms.Tensor(x), ms.Tensor(y))
        if not isinstance(loss_ms, ms.Tensor):
            return False, t("lab04.train_step.no_loss")
        if abs(float(loss_ms.asnumpy()) - loss_pt.item()) > 1e-4:
            if i == 0:
                return False, t("lab04.train_step.first_loss")
            return False, t("lab04.train_step.loss", step=i + 1)
        if i == 0 and all(np.array_equal(before[p.name], p.asnumpy()) for p in net.trainable_params()):
            return False, t("lab04.train_step.no_update")
    after = ms_convert.to_torch(net, pt.state_dict())
    worst = max(float((pt.state_dict()[k] - after[k]).abs().max()) for k in after)
    if worst > 1e-5:
        return False, t("lab04.train_step.weights")
    return True, t("lab04.train_step.right")


def make_lab() -> Lab:
    """The checker object a lab notebook uses: ``lab.check("momentum", answer)``."""
    return Lab(
        t("lab04.title"),
        {"momentum": _check_momentum, "block": _check_block, "rename": _check_rename, "train_step": _check_train_step},
    )
