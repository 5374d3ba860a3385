"""ResNet-50 in PyTorch, written out so every chapter (and MindSpore in chapter 04) uses one network.

torchvision cannot be installed beside the CPU torch wheel of this course, so the network is
defined here, with torchvision's parameter names (``conv1``, ``bn1``, ``layer1.0.conv1``,
``layer1.0.downsample.0``, ``fc`` …) and its 25,557,032 parameters, so that state dicts are
interchangeable with ``torchvision.models.resnet50``.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from npulab.hw import roofline


class Bottleneck(nn.Module):
    """1×1 reduce → 3×3 (carries the stride) → 1×1 expand, each followed by BN; residual add; ReLU."""

    expansion = 4

    def __init__(self, in_channels: int, width: int, stride: int = 1):
        super().__init__()
        out_channels = width * self.expansion
        self.conv1 = nn.Conv2d(in_channels, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out_channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or in_channels != out_channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False), nn.BatchNorm2d(out_channels)
            )

    def forward(self, x: Tensor) -> Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    """Stem (7×7/2 conv, BN, ReLU, 3×3/2 max-pool) → four bottleneck stages → global average pool → fc."""

    def __init__(self, blocks: tuple[int, int, int, int] = (3, 4, 6, 3), num_classes: int = 1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        in_channels = 64
        for i, (count, width) in enumerate(zip(blocks, (64, 128, 256, 512), strict=True), start=1):
            stage = []
            for j in range(count):
                stage.append(Bottleneck(in_channels, width, stride=2 if (j == 0 and i > 1) else 1))
                in_channels = width * Bottleneck.expansion
            setattr(self, f"layer{i}", nn.Sequential(*stage))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(in_channels, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x: Tensor) -> Tensor:
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(self.avgpool(x).flatten(1))


def resnet50(num_classes: int = 1000) -> ResNet:
    """ResNet-50 (He et al., 2016): 25,557,032 parameters for 1000 classes."""
    return ResNet((3, 4, 6, 3), num_classes)


def forward_flop_per_image(image_size: int = 224, num_classes: int = 1000) -> int:
    """Forward-pass FLOP of one image (2 per multiply-add of every conv and linear layer), counted by hooks."""
    import torch

    model = resnet50(num_classes).eval()
    total = 0

    def count(module, inputs, output):
        nonlocal total
        if isinstance(module, nn.Conv2d):
            k = module.in_channels // module.groups * module.kernel_size[0] * module.kernel_size[1]
            total += 2 * k * output.numel()
        elif isinstance(module, nn.Linear):
            total += 2 * module.in_features * output.numel()

    hooks = [m.register_forward_hook(count) for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    with torch.no_grad():
        model(torch.zeros(1, 3, image_size, image_size))
    for h in hooks:
        h.remove()
    return total


def conv_workloads(image_size: int = 224, batch: int = 1, dtype_bytes: int = 2) -> list[roofline.Workload]:
    """Every convolution of ResNet-50 as a roofline workload, shapes taken from a forward pass."""
    model = resnet50().eval()
    found: list[roofline.Workload] = []

    def record(name):
        def hook(module, inputs, output):
            x = inputs[0]
            found.append(roofline.conv2d(batch, module.in_channels, module.out_channels, output.shape[2], output.shape[3],
                                module.kernel_size, x.shape[2], x.shape[3], dtype_bytes, name))
        return hook

    hooks = [m.register_forward_hook(record(name)) for name, m in model.named_modules() if isinstance(m, nn.Conv2d)]
    try:
        with torch.no_grad():
            model(torch.zeros(1, 3, image_size, image_size))
    finally:
        for h in hooks:
            h.remove()
    return found
