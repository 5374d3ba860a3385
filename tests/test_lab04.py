"""Lab 04 checks: right answers pass, each typical mistake gets its own hint, unanswered is not a failure."""

import mindspore as ms
import pytest
from mindspore import nn

from npulab.course.labs import lab04


@pytest.fixture()
def lab(monkeypatch):
    monkeypatch.delenv("NPULAB_LAB_STRICT", raising=False)
    return lab04.make_lab()


def block(has_bias=True, pad_mode="pad", padding=1, momentum=0.7, relu=True):
    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, stride=2, pad_mode=pad_mode, padding=padding, has_bias=has_bias)
            self.bn = nn.BatchNorm2d(8, momentum=momentum)
            self.relu = nn.ReLU()

        def construct(self, x):
            out = self.bn(self.conv(x))
            return self.relu(out) if relu else out

    return Block


def renamed_block():
    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.convolution = nn.Conv2d(3, 8, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
            self.bn = nn.BatchNorm2d(8, momentum=0.7)

        def construct(self, x):
            return self.bn(self.convolution(x))

    return Block


@pytest.mark.parametrize("answer, ok, hint", [
    (0.99, True, "旧值的权重"), (0.01, False, "照搬"), (0.9, False, "默认值"), ("x", False, "数字"), (0.5, False, "公式"),
])
def test_momentum(lab, capsys, answer, ok, hint):
    assert lab.check("momentum", answer) is ok
    assert hint in capsys.readouterr().out


@pytest.mark.parametrize("cls, ok, hint", [
    (block(), True, "都与 PyTorch 一致"),
    (block(has_bias=False), False, "偏置"),
    (block(pad_mode="same", padding=0), False, "填充"),
    (block(padding=0, pad_mode="valid"), False, "pad_mode"),
    (block(momentum=0.3), False, "momentum"),
    (block(relu=False), False, "ReLU"),
    (renamed_block(), False, "放不进"),
    (block()(), False, "类本身"),
])
def test_block(lab, capsys, cls, ok, hint):
    assert lab.check("block", cls) is ok
    assert hint in capsys.readouterr().out


def correct_rename(name, bn):
    layer, _, leaf = name.rpartition(".")
    if leaf == "num_batches_tracked":
        return None
    table = {"weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"}
    return f"{layer}.{table[leaf]}" if layer in bn and leaf in table else name


@pytest.mark.parametrize("fn, ok, hint", [
    (correct_rename, True, "丢弃"),
    (lambda n, bn: ..., None, "尚未作答"),
    (lambda n, bn: correct_rename(n, bn) or "x", False, "返回 None"),
    (lambda n, bn: n.replace("weight", "gamma").replace("bias", "beta") if "num" not in n and "running" not in n
     else correct_rename(n, bn), False, "不属于 BatchNorm"),
])
def test_rename(lab, capsys, fn, ok, hint):
    result = lab.check("rename", fn)
    assert result is bool(ok)
    assert hint in capsys.readouterr().out


def good_step(net, loss_fn, optimizer):
    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        return loss

    return step


def no_update(net, loss_fn, optimizer):
    def step(x, y):
        return loss_fn(net(x), y)

    return step


@pytest.mark.parametrize("fn, ok, hint", [
    (good_step, True, "全部权重"), (no_update, False, "交给优化器"), (lambda *a: ..., None, "尚未作答"),
])
def test_train_step(lab, capsys, fn, ok, hint):
    assert lab.check("train_step", fn) is bool(ok)
    assert hint in capsys.readouterr().out
