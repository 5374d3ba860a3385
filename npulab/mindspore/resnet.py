"""ResNet-50 in MindSpore, built exactly like ``npulab.pytorch.resnet`` so weights move between the two frameworks.

Same structure, same attribute names (``conv1``, ``bn1``, ``layer1.0.downsample.0`` …), same layouts
(convolution weights OIHW, dense weights (out, in)). MindSpore names BatchNorm's tensors differently
(``gamma``/``beta``/``moving_mean``/``moving_variance``); ``npulab.mindspore.convert`` maps them.

Three translations matter and are written out here rather than left to defaults:
- ``nn.Conv2d`` pads with ``pad_mode="same"`` and has no bias by default; PyTorch pads 0 and has a bias.
  We say ``pad_mode="pad", padding=p`` (or ``"valid"``) and ``has_bias=False`` explicitly.
- ``nn.MaxPool2d`` needs ``pad_mode="pad"`` for PyTorch's ``padding=1``.
- the global average pool is a mean over H and W, so any image size works (the seed's ``AvgPool2d(7)``
  only works at 224×224).
"""

from __future__ import annotations

import mindspore as ms
from mindspore import nn, ops
from mindspore.common.initializer import HeNormal

STAGE_WIDTHS = (64, 128, 256, 512)


def conv(in_channels: int, out_channels: int, kernel: int, stride: int = 1, padding: int = 0) -> nn.Conv2d:
    """A bias-free convolution padded like PyTorch's ``nn.Conv2d(..., padding=padding, bias=False)``."""
    return nn.Conv2d(in_channels, out_channels, kernel, stride=stride,
                     pad_mode="pad" if padding else "valid", padding=padding, has_bias=False,
                     weight_init=HeNormal(mode="fan_out", nonlinearity="relu"))


class Bottleneck(nn.Cell):
    """1×1 reduce → 3×3 (carries the stride) → 1×1 expand, each followed by BN; residual add; ReLU."""

    expansion = 4

    def __init__(self, in_channels: int, width: int, stride: int = 1):
        super().__init__()
        out_channels = width * self.expansion
        self.conv1 = conv(in_channels, width, 1)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = conv(width, width, 3, stride=stride, padding=1)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = conv(width, out_channels, 1)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()
        self.downsample = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.SequentialCell([conv(in_channels, out_channels, 1, stride=stride),
                                                 nn.BatchNorm2d(out_channels)])

    def construct(self, x: ms.Tensor) -> ms.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Cell):
    """Stem (7×7/2 conv, BN, ReLU, 3×3/2 max-pool) → four bottleneck stages → global average pool → fc."""

    def __init__(self, blocks: tuple[int, int, int, int] = (3, 4, 6, 3), num_classes: int = 1000):
        super().__init__()
        self.conv1 = conv(3, 64, 7, stride=2, padding=3)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, pad_mode="pad", padding=1)
        in_channels = 64
        for i, (count, width) in enumerate(zip(blocks, STAGE_WIDTHS, strict=True), start=1):
            stage = []
            for j in range(count):
                stage.append(Bottleneck(in_channels, width, stride=2 if (j == 0 and i > 1) else 1))
                in_channels = width * Bottleneck.expansion
            setattr(self, f"layer{i}", nn.SequentialCell(stage))
        self.fc = nn.Dense(in_channels, num_classes)

    def construct(self, x: ms.Tensor) -> ms.Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(ops.mean(x, (2, 3)))


def resnet50(num_classes: int = 1000) -> ResNet:
    """ResNet-50 as an ``nn.Cell``: 25,557,032 trainable parameters for 1000 classes, like ``npulab.pytorch.resnet.resnet50``."""
    return ResNet((3, 4, 6, 3), num_classes)


def count_parameters(net: nn.Cell, trainable_only: bool = True) -> int:
    """Number of parameter elements; with ``trainable_only=False`` BN's moving statistics are counted too."""
    params = net.trainable_params() if trainable_only else net.get_parameters()
    return sum(int(p.size) for p in params)
