"""Checks of lab 02 (data formats, the Cube model, the roofline, AllReduce cost)."""

from __future__ import annotations

import math
from collections.abc import Callable

from npulab.course.labs import Lab


def _check_nz_shape(answer) -> tuple[bool, str]:
    from npulab.hw import formats
    expected = formats.nz_shape((4, 50, 70), "int8")
    try:
        got = tuple(int(v) for v in answer)
    except (TypeError, ValueError):
        return False, "请给出一个由整数组成的元组，例如 (a, b, c, d, e)。"
    if got == expected:
        return True, "批次维不变，N 方向的分块数在前，M 方向在后，最后是一个分形的 16 行 × N0 列。"
    if len(got) != 5:
        return False, f"三维 ND 数组 [B, M, N] 的 NZ 存储形状有 5 维，你给了 {len(got)} 维。"
    if got == formats.nz_shape((4, 50, 70), "float16"):
        return False, "这是 2 字节类型的分块。int8 每个元素 1 字节，一个分形的一行有多少个元素？"
    if got[1:3] == expected[2:0:-1]:
        return False, "两个分块数的顺序反了：NZ 先按列方向（N）排分形，再按行方向（M）。"
    return False, "回到规则：[..., ceil(N/N0), ceil(M/16), 16, N0]，注意向上取整。"


def _check_position(fn: Callable) -> tuple[bool | None, str]:
    from npulab.hw import formats
    if not callable(fn):
        return False, "请给出一个函数。"
    first = fn(0, 0, 16)
    if first is Ellipsis:
        return None, "函数还没有实现（仍然返回 ...）。"
    cases = [(m, n, n0) for n0 in (16, 32) for m in (0, 5, 15, 16, 17, 47) for n in (0, 3, 15, 16, 31, 32, 70)]
    for m, n, n0 in cases:
        dtype = "int8" if n0 == 32 else "float16"
        expected = formats.nz_index(m, n, dtype)
        try:
            got = tuple(int(v) for v in fn(m, n, n0))
        except (TypeError, ValueError):
            return False, "函数应返回 4 个整数组成的元组。"
        if got != expected:
            if got == (m // 16, n // n0, m % 16, n % n0):
                return False, "前两个下标的顺序反了：最外层是 N 方向的分块号。"
            if got == (n // n0, m // 16, n % n0, m % 16):
                return False, "分形内部是按行存放的：倒数第二个下标是行内的位置 m % 16。"
            return False, f"元素 (m={m}, n={n})，N0={n0} 的位置不对：检查整除与取余各用在哪一维。"
    return True, f"{len(cases)} 个位置全部正确，包括 int8（N0 = 32）与跨分形的元素。"


def _expected_instructions() -> int:
    from npulab.hw import cube
    return cube.instruction_count(100, 200, 300, cube.spec_910b3())


def _check_instructions(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个整数。"
    expected = _expected_instructions()
    if value == expected:
        return True, "每个维度先补齐到 16 的倍数，再数 16×16×16 的分形运算。"
    if math.isclose(value, 100 * 200 * 300 / 4096, rel_tol=1e-6) or value == math.ceil(100 * 200 * 300 / 4096):
        return False, "这是把乘加次数直接除以 4096：没有算上补齐。边长不是 16 的倍数时，补齐的部分也要占用指令。"
    if value == 100 * 200 * 300:
        return False, "这是乘加次数；一条 Cube 指令完成 16×16×16 次乘加。"
    return False, "分别数 M、K、N 方向各需要多少个 16 的分块（向上取整），再相乘。"


def _check_utilisation(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出 0 到 1 之间的小数。"
    expected = 100 * 200 * 300 / (_expected_instructions() * 4096)
    if math.isclose(value, expected, rel_tol=1e-3):
        return True, "有用的乘加次数 / 发出的乘加次数；补齐越多，利用率越低。"
    if math.isclose(value, expected * 100, rel_tol=1e-3):
        return False, "请用 0 到 1 之间的小数，而不是百分数。"
    if value > 1:
        return False, "利用率不会超过 1。"
    return False, "分子是 M·K·N，分母是指令数乘以每条指令的乘加次数。"


def _check_attainable(answer) -> tuple[bool, str]:
    from npulab.hw import roofline
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（单位 TFLOPS）。"
    ascend = roofline.machines()[0]

    def attainable(**kwargs) -> float:
        return float(ascend.attainable(roofline.elementwise(1, **kwargs).intensity))

    expected = attainable(dtype_bytes=2, inputs=1, flop_per_element=8)
    if math.isclose(value, expected, rel_tol=0.01):
        return True, "算术强度远低于脊点，这个运算受内存带宽限制：可达吞吐 = 带宽 × 强度。"
    if math.isclose(value, ascend.peak.value, rel_tol=0.01):
        return False, "这是算力峰值。先算算术强度，再与脊点比较：它落在屋顶的哪一段？"
    if math.isclose(value, attainable(dtype_bytes=2, inputs=2, flop_per_element=8), rel_tol=0.01):
        return False, "这个运算只读 1 个输入数组、写 1 个输出数组。"
    if math.isclose(value, attainable(dtype_bytes=4, inputs=1, flop_per_element=8), rel_tol=0.01):
        return False, "FP16 每个元素占几个字节？"
    if math.isclose(value, expected * 1e3, rel_tol=0.01) or math.isclose(value, expected / 1e3, rel_tol=0.01):
        return False, "数量级不对：检查 GB/s 与 TFLOPS 的换算。"
    return False, "可达吞吐 = min(峰值, 带宽 × 算术强度)，算术强度 = 运算次数 / 读写的字节数。"


def _check_allreduce(answer) -> tuple[bool, str]:
    from npulab.hw.collectives import allreduce_time

    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（单位 ms）。"
    grads = 25_557_032 * 4
    expected = allreduce_time(grads, 8, 0.0, 26.2e9, "ring") * 1e3
    if math.isclose(value, expected, rel_tol=0.01):
        return True, "约 102 MB 的 FP32 梯度，环形算法每张卡收发 2(n−1)/n 倍的数据。"
    if math.isclose(value, expected / 4, rel_tol=0.01):
        return False, "梯度是 FP32：每个参数占几个字节？"
    if math.isclose(value, grads / 26.2e9 * 1e3, rel_tol=0.01):
        return False, "这是把全部梯度单向传一次的时间；环形 AllReduce 每张卡要发送 2(n−1)/n 倍的数据。"
    if math.isclose(value, expected / 1e3, rel_tol=0.01):
        return False, "单位是毫秒。"
    return False, "用 allreduce_time(字节数, 8, 0.0, 26.2e9, \"ring\")，再换算为毫秒。"


def _check_chip_peak(answer) -> tuple[bool, str]:
    from npulab.hw import chips
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（单位 TFLOPS）。"
    expected = chips.get_chip("910B4").fp16_peak().value
    if math.isclose(value, expected, rel_tol=1e-3):
        return True, "核数 × 每周期 16·16·16 次乘加 × 2 × Cube 频率；910B4 与 910B3 核数相同，差在频率。"
    if math.isclose(value, chips.get_chip("910B3").fp16_peak().value, rel_tol=1e-3):
        return False, "这是 910B3 的峰值：910B4 的 Cube 频率不同，从芯片表里读 cube_freq_mhz。"
    if math.isclose(value, expected / 2, rel_tol=1e-3):
        return False, "一次乘加算 2 次浮点运算。"
    if math.isclose(value, expected * 1e3, rel_tol=1e-3) or math.isclose(value, expected / 1e3, rel_tol=1e-3):
        return False, "数量级不对：检查 MHz 与 TFLOPS 的换算。"
    return False, "用 chips.get_chip(\"910B4\") 的 cube_cores、cube_mkn、cube_freq_mhz 三个数，按第 02 章的公式算。"


def make_lab() -> Lab:
    """The checker object the lab notebook uses: ``lab.check("nz_shape", answer)``."""
    return Lab(
        "实验 02",
        {
            "nz_shape": _check_nz_shape,
            "position": _check_position,
            "instructions": _check_instructions,
            "utilisation": _check_utilisation,
            "attainable": _check_attainable,
            "allreduce": _check_allreduce,
            "chip_peak": _check_chip_peak,
        },
    )
