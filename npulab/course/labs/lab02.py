"""Checks of lab 02 (data formats, the Cube model, the roofline, AllReduce cost)."""

from __future__ import annotations

import math
from collections.abc import Callable

from npulab.core.i18n import t
from npulab.course.labs import Lab


def _check_nz_shape(answer) -> tuple[bool, str]:
    from npulab.hw import formats
    expected = formats.nz_shape((4, 50, 70), "int8")
    try:
        got = tuple(int(v) for v in answer)
    except (TypeError, ValueError):
        return False, t("lab02.nz_shape.type")
    if got == expected:
        return True, t("lab02.nz_shape.right")
    if len(got) != 5:
        return False, t("lab02.nz_shape.ndim", ndim=len(got))
    if got == formats.nz_shape((4, 50, 70), "float16"):
        return False, t("lab02.nz_shape.fp16")
    if got[1:3] == expected[2:0:-1]:
        return False, t("lab02.nz_shape.order")
    return False, t("lab02.nz_shape.other")


def _check_position(fn: Callable) -> tuple[bool | None, str]:
    from npulab.hw import formats
    if not callable(fn):
        return False, t("lab02.need_function")
    first = fn(0, 0, 16)
    if first is Ellipsis:
        return None, t("lab02.stub")
    cases = [(m, n, n0) for n0 in (16, 32) for m in (0, 5, 15, 16, 17, 47) for n in (0, 3, 15, 16, 31, 32, 70)]
    for m, n, n0 in cases:
        dtype = "int8" if n0 == 32 else "float16"
        expected = formats.nz_index(m, n, dtype)
        try:
            got = tuple(int(v) for v in fn(m, n, n0))
        except (TypeError, ValueError):
            return False, t("lab02.position.type")
        if got != expected:
            if got == (m // 16, n // n0, m % 16, n % n0):
                return False, t("lab02.position.order")
            if got == (n // n0, m // 16, n % n0, m % 16):
                return False, t("lab02.position.rows")
            return False, t("lab02.position.wrong", m=m, n=n, n0=n0)
    return True, t("lab02.position.right", count=len(cases))


def _expected_instructions() -> int:
    from npulab.hw import cube
    return cube.instruction_count(100, 200, 300, cube.spec_910b3())


def _check_instructions(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab02.instructions.type")
    expected = _expected_instructions()
    if value == expected:
        return True, t("lab02.instructions.right")
    if math.isclose(value, 100 * 200 * 300 / 4096, rel_tol=1e-6) or value == math.ceil(100 * 200 * 300 / 4096):
        return False, t("lab02.instructions.no_padding")
    if value == 100 * 200 * 300:
        return False, t("lab02.instructions.macs")
    return False, t("lab02.instructions.other")


def _check_utilisation(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab02.utilisation.type")
    expected = 100 * 200 * 300 / (_expected_instructions() * 4096)
    if math.isclose(value, expected, rel_tol=1e-3):
        return True, t("lab02.utilisation.right")
    if math.isclose(value, expected * 100, rel_tol=1e-3):
        return False, t("lab02.utilisation.percent")
    if value > 1:
        return False, t("lab02.utilisation.above_one")
    return False, t("lab02.utilisation.other")


def _check_attainable(answer) -> tuple[bool, str]:
    from npulab.hw import roofline
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab02.tflops_type")
    ascend = roofline.machines()[0]

    def attainable(**kwargs) -> float:
        return float(ascend.attainable(roofline.elementwise(1, **kwargs).intensity))

    expected = attainable(dtype_bytes=2, inputs=1, flop_per_element=8)
    if math.isclose(value, expected, rel_tol=0.01):
        return True, t("lab02.attainable.right")
    if math.isclose(value, ascend.peak.value, rel_tol=0.01):
        return False, t("lab02.attainable.peak")
    if math.isclose(value, attainable(dtype_bytes=2, inputs=2, flop_per_element=8), rel_tol=0.01):
        return False, t("lab02.attainable.inputs")
    if math.isclose(value, attainable(dtype_bytes=4, inputs=1, flop_per_element=8), rel_tol=0.01):
        return False, t("lab02.attainable.bytes")
    if math.isclose(value, expected * 1e3, rel_tol=0.01) or math.isclose(value, expected / 1e3, rel_tol=0.01):
        return False, t("lab02.attainable.magnitude")
    return False, t("lab02.attainable.other")


def _check_allreduce(answer) -> tuple[bool, str]:
    from npulab.hw.collectives import allreduce_time

    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab02.allreduce.type")
    grads = 25_557_032 * 4
    expected = allreduce_time(grads, 8, 0.0, 26.2e9, "ring") * 1e3
    if math.isclose(value, expected, rel_tol=0.01):
        return True, t("lab02.allreduce.right")
    if math.isclose(value, expected / 4, rel_tol=0.01):
        return False, t("lab02.allreduce.bytes")
    if math.isclose(value, grads / 26.2e9 * 1e3, rel_tol=0.01):
        return False, t("lab02.allreduce.one_way")
    if math.isclose(value, expected / 1e3, rel_tol=0.01):
        return False, t("lab02.allreduce.unit")
    return False, t("lab02.allreduce.other")


def _check_chip_peak(answer) -> tuple[bool, str]:
    from npulab.hw import chips
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab02.tflops_type")
    expected = chips.get_chip("910B4").fp16_peak().value
    if math.isclose(value, expected, rel_tol=1e-3):
        return True, t("lab02.chip_peak.right")
    if math.isclose(value, chips.get_chip("910B3").fp16_peak().value, rel_tol=1e-3):
        return False, t("lab02.chip_peak.b3")
    if math.isclose(value, expected / 2, rel_tol=1e-3):
        return False, t("lab02.chip_peak.half")
    if math.isclose(value, expected * 1e3, rel_tol=1e-3) or math.isclose(value, expected / 1e3, rel_tol=1e-3):
        return False, t("lab02.chip_peak.magnitude")
    return False, t("lab02.chip_peak.other")


def make_lab() -> Lab:
    """The checker object the lab notebook uses: ``lab.check("nz_shape", answer)``."""
    return Lab(
        t("lab02.title"),
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
