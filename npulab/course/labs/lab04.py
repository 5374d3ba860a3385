"""Checks of lab 04 (from PyTorch to MindSpore): BatchNorm momentum, a translated block, weight names, a train step."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from npulab.course.labs import Lab

TORCH_MOMENTUM = 0.01  # question 1
BLOCK_MOMENTUM = 0.3  # the PyTorch block of question 2


def _check_momentum(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（MindSpore 的 momentum）。"
    if math.isclose(value, 1 - TORCH_MOMENTUM, abs_tol=1e-9):
        return True, "MindSpore 的 momentum 是旧值的权重，等于 1 − PyTorch 的 momentum。"
    if math.isclose(value, TORCH_MOMENTUM, abs_tol=1e-9):
        return False, "这是照搬 PyTorch 的值；两个框架里 momentum 乘的不是同一项。"
    if math.isclose(value, 0.9, abs_tol=1e-9) or math.isclose(value, 0.1, abs_tol=1e-9):
        return False, "这是某个框架的默认值；题目里的 PyTorch 层并没有用默认值。"
    return False, "写出两个框架更新滑动均值的公式，对照哪一项乘 momentum。"


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
        return False, "请给出一个继承 nn.Cell 的类（类本身，不是它的实例）。"
    net = cls()
    names = {p.name for p in net.get_parameters()}
    if not names:
        return False, "这个 Cell 没有参数：子层要写成 self.conv、self.bn 这样的属性。"
    if "conv.bias" not in names and "conv.weight" in names:
        return False, "卷积层没有偏置：PyTorch 的卷积默认带偏置，MindSpore 的默认不带。"
    ref = torch_block()
    try:
        ms_convert.load_torch_state_dict(net, ref.state_dict())
    except ValueError as err:
        return False, f"PyTorch 的权重放不进你的网络（属性名要叫 conv、bn）：{err}"
    ref.train()
    net.set_train(True)
    for x in _batches():
        out_pt = ref(torch.from_numpy(x)).detach().numpy()
        out_ms = net(ms.Tensor(x)).asnumpy()
        if out_pt.shape != out_ms.shape:
            return False, f"输出形状 {out_ms.shape} 与 PyTorch 的 {out_pt.shape} 不同：检查卷积的 pad_mode 与 padding。"
        if np.abs(out_pt - out_ms).max() > 1e-4:
            return False, "训练模式的输出与 PyTorch 不同：检查卷积的填充、步长，以及是否接了 ReLU。"
    moved = float(np.abs(ref.bn.running_mean.numpy() - net.bn.moving_mean.asnumpy()).max())
    if moved > 1e-4:
        return False, "三批训练之后，BatchNorm 的滑动均值与 PyTorch 不同：检查 momentum 的换算。"
    ref.eval()
    net.set_train(False)
    x = _batches(4)[-1]
    if np.abs(ref(torch.from_numpy(x)).detach().numpy() - net(ms.Tensor(x)).asnumpy()).max() > 1e-4:
        return False, "推理模式的输出不同：检查 BatchNorm 的 eps 与 momentum。"
    return True, "形状、训练模式输出、滑动统计量和推理模式输出都与 PyTorch 一致。"


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
        return False, "请给出一个函数。"
    first = fn("bn1.weight", set(RENAME_BN))
    if first is Ellipsis:
        return None, "函数还没有实现（仍然返回 ...）。"
    for name, expected in RENAME_CASES.items():
        got = fn(name, set(RENAME_BN))
        if got == expected:
            continue
        if expected is None:
            return False, f"{name} 在 MindSpore 里没有对应的张量，应当返回 None。"
        if name.startswith("fc.") or name.endswith("downsample.0.weight") or name.startswith("conv"):
            return False, f"{name} 不属于 BatchNorm 层，名字应保持不变（得到 {got!r}）。"
        return False, f"{name} 的映射不对（得到 {got!r}）：BatchNorm 的 weight/bias/running_mean/running_var 各有对应的新名字。"
    return True, "BatchNorm 的四个张量改名、num_batches_tracked 丢弃，其余原样保留。"


def _check_train_step(make_train_step: Callable) -> tuple[bool | None, str]:
    import mindspore as ms
    import torch
    from mindspore import nn

    from npulab.mindspore import api_pairs as ms_pairs
    from npulab.mindspore import convert as ms_convert
    if not callable(make_train_step):
        return False, "请给出一个函数。"
    pt, net = ms_pairs.twin_mlps(seed=7)
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = make_train_step(net, nn.CrossEntropyLoss(), optimizer)
    if step is Ellipsis:
        return None, "函数还没有实现（仍然返回 ...）。"
    if not callable(step):
        return False, "make_train_step 应当返回一个函数 step(x, y)。"
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
            return False, "step(x, y) 应当返回损失（一个 MindSpore 张量）。"
        if abs(float(loss_ms.asnumpy()) - loss_pt.item()) > 1e-4:
            if i == 0:
                return False, "第一步的损失就不对：检查前向函数是否用了传入的 net 与 loss_fn。"
            return False, f"第 {i + 1} 步的损失与 PyTorch 不同：参数更新不对。"
        if i == 0 and all(np.array_equal(before[p.name], p.asnumpy()) for p in net.trainable_params()):
            return False, "调用 step 之后参数没有变：求出梯度之后要交给优化器。"
    after = ms_convert.to_torch(net, pt.state_dict())
    worst = max(float((pt.state_dict()[k] - after[k]).abs().max()) for k in after)
    if worst > 1e-5:
        return False, "损失一致但权重不同：检查是否对全部可训练参数求了梯度。"
    return True, "三步动量 SGD 之后，损失与全部权重都与 PyTorch 一致。"


def make_lab() -> Lab:
    """The checker object a lab notebook uses: ``lab.check("momentum", answer)``."""
    return Lab(
        "实验 04",
        {"momentum": _check_momentum, "block": _check_block, "rename": _check_rename, "train_step": _check_train_step},
    )
