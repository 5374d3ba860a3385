"""Problem sizes, in one table: for each workload, what a CPU runs (about a minute per lesson on two cores) and
what an NPU or GPU runs (the full size). Lessons, labs and the benchmarks' defaults read it, and print what they use.

>>> from npulab.core.device import Device
>>> problem_size("matmul_single", Device("cpu", "test"), show=False)
{'n': 512}
"""

from __future__ import annotations

import copy
from typing import Any

from npulab.core.device import Device

MIB = 2**20

# workload -> {"cpu": ..., "accelerator": ..., "what": Chinese description, "what_en": the English one}
SIZES: dict[str, dict[str, Any]] = {
    "matmul_single": {
        "what": "单个方阵乘法的边长",
        "what_en": "side of one square matrix multiplication",
        "cpu": {"n": 512}, "accelerator": {"n": 4096}},
    "matmul_sweep": {
        "what": "矩阵乘法扫描的边长（FP32）",
        "what_en": "sides of the matrix multiplication sweep (FP32)",
        "cpu": {"sizes": [256, 512, 1024]}, "accelerator": {"sizes": [1024, 2048, 4096, 8192]}},
    "matmul_dtype_sweep": {
        "what": "按数据类型的矩阵乘法扫描（边长）",
        "what_en": "matrix multiplication sweep by data type (sides)",
        "cpu": {"float32": [128, 256, 512, 1024], "bfloat16": [128, 256, 512], "float16": [64, 128, 256]},
        "accelerator": {"float32": [1024, 2048, 4096, 8192], "float16": [1024, 2048, 4096, 8192],
                        "bfloat16": [1024, 2048, 4096, 8192]}},
    "copy_bandwidth": {
        "what": "设备内拷贝带宽的缓冲区大小（MiB）",
        "what_en": "buffer sizes of the on-device copy bandwidth (MiB)",
        "cpu": {"mib": [16, 64, 256]}, "accelerator": {"mib": [64, 256, 1024]}},
    "copy_bandwidth_single": {
        "what": "单次拷贝带宽测量的缓冲区大小（字节）",
        "what_en": "buffer size of one copy bandwidth measurement (bytes)",
        "cpu": {"bytes": 64 * MIB}, "accelerator": {"bytes": 1024 * MIB}},
    "bandwidth_sweep": {
        "what": "带宽扫描的最大缓冲区（字节，从 4 KiB 起按 2 倍递增）",
        "what_en": "largest buffer of the bandwidth sweep (bytes, from 4 KiB doubling)",
        "cpu": {"max_bytes": 256 * MIB}, "accelerator": {"max_bytes": 2048 * MIB}},
    "resnet50_train": {
        "what": "PyTorch ResNet-50 训练步（原文：batch 64，224×224）",
        "what_en": "PyTorch ResNet-50 training step (seed article: batch 64, 224×224)",
        "cpu": {"batch": 2, "image_size": 64, "warmup": 2, "steps": 3},
        "accelerator": {"batch": 64, "image_size": 224, "warmup": 5, "steps": 20}},
    "mindspore_resnet50_train": {
        "what": "MindSpore 与 PyTorch 的 ResNet-50 训练步对比",
        "what_en": "MindSpore vs PyTorch ResNet-50 training step",
        "cpu": {"batch": 4, "image_size": 32, "warmup": 1, "repeats": 3},
        "accelerator": {"batch": 64, "image_size": 224, "warmup": 3, "repeats": 20}},
    "mindspore_resnet50_forward": {
        "what": "MindSpore 与 PyTorch 的 ResNet-50 前向对比",
        "what_en": "MindSpore vs PyTorch ResNet-50 forward pass",
        "cpu": {"batch": 2, "image_size": 32}, "accelerator": {"batch": 8, "image_size": 224}},
}


def kind_of(device: Device) -> str:
    """``"accelerator"`` for an NPU or GPU, ``"cpu"`` otherwise."""
    return "accelerator" if device.is_accelerator else "cpu"


def problem_size(workload: str, device: Device, *, show: bool = True) -> dict[str, Any]:
    """The sizes of ``workload`` for ``device`` (a fresh copy); printed as one Chinese line unless ``show=False``."""
    try:
        entry = SIZES[workload]
    except KeyError:
        raise KeyError(f"没有名为 {workload!r} 的问题规模；已有：{', '.join(SIZES)}") from None
    size = copy.deepcopy(entry[kind_of(device)])
    if show:
        from npulab.core.i18n import localized, t

        where = t("size.cpu") if kind_of(device) == "cpu" else t("size.accelerator", kind=device.kind.upper())
        values = t("size.separator").join(f"{k} = {v}" for k, v in size.items())
        what = localized(entry, "what")
        print(t("size.line", what=what, where=where, values=values))
    return size
