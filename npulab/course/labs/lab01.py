"""Checks of lab 01 (environment and timing)."""

from __future__ import annotations

import math
from collections.abc import Callable

from npulab.core.i18n import t
from npulab.course.labs import Lab


def _check_visible(answer) -> tuple[bool, str]:
    if not isinstance(answer, int) or isinstance(answer, bool):
        return False, t("lab01.visible.type", type=type(answer).__name__)
    if answer == 6:
        return True, t("lab01.visible.right")
    if answer == 1:
        return False, t("lab01.visible.index")
    if answer == 4:
        return False, t("lab01.visible.from_zero")
    return False, t("lab01.visible.other")


def _check_visible_space(answer) -> tuple[bool, str]:
    if not isinstance(answer, int) or isinstance(answer, bool):
        return False, t("lab01.visible_space.type", type=type(answer).__name__)
    if answer == 1:
        return True, t("lab01.visible_space.right")
    if answer == 2:
        return False, t("lab01.visible_space.two")
    if answer == 0:
        return False, t("lab01.visible_space.zero")
    return False, t("lab01.visible_space.other")


def _expected_torch_npu(torch_version: str, cann: str) -> set[str]:
    from npulab.env import compatibility
    return {row.torch_npu for row in compatibility.torch_npu_rows() if row.pytorch == torch_version and row.cann == cann}


def _check_pairing(answer) -> tuple[bool, str]:
    from npulab.env import compatibility
    expected = _expected_torch_npu("2.9.0", "9.1.0")
    answer = str(answer).strip()
    if answer in expected:
        return True, t("lab01.pairing.right")
    rows = [row for row in compatibility.torch_npu_rows() if row.torch_npu == answer]
    if not rows:
        return False, t("lab01.pairing.unknown")
    if rows[0].pytorch != "2.9.0":
        return False, t("lab01.pairing.pytorch", pytorch=rows[0].pytorch)
    return False, t("lab01.pairing.cann", cann=rows[0].cann)


class _AsyncDevice:
    """A pretend accelerator: work is queued by fn() and only finishes (advancing time) at sync()."""

    def __init__(self, durations: list[float]):
        self.durations = list(durations)
        self.now = 0.0
        self.pending = 0.0
        self.calls = 0

    def fn(self) -> None:
        self.pending += self.durations[min(self.calls, len(self.durations) - 1)]
        self.calls += 1

    def sync(self) -> None:
        self.now += self.pending
        self.pending = 0.0

    def clock(self) -> float:
        return self.now


def _check_timer(median_time: Callable) -> tuple[bool | None, str]:
    if not callable(median_time):
        return False, t("lab01.need_function")
    # the first (warm-up) call is slow; the timed calls take 3, 1, 2, 9, 2 → median 2
    device = _AsyncDevice([50, 3, 1, 2, 9, 2])
    result = median_time(device.fn, device.sync, repeats=5, clock=device.clock)
    if result is Ellipsis:
        return None, t("lab01.stub")
    if result is None:
        return False, t("lab01.timer.no_return")
    if device.calls != 6:
        return False, t("lab01.timer.calls", calls=device.calls)
    if math.isclose(result, 0.0, abs_tol=1e-9):
        return False, t("lab01.timer.zero")
    if math.isclose(result, 2.0):
        return True, t("lab01.timer.right")
    if math.isclose(result, 3.4):
        return False, t("lab01.timer.mean")
    if math.isclose(result, 3.0):
        return False, t("lab01.timer.warm_up")
    if math.isclose(result, 1.0) or math.isclose(result, 9.0):
        return False, t("lab01.timer.extreme")
    return False, t("lab01.timer.other")


def _check_tflops(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, t("lab01.tflops.type")
    expected = 2 * 4096**3 / 2.13e-3 / 1e12
    if math.isclose(value, expected, rel_tol=0.01):
        return True, t("lab01.tflops.right")
    if math.isclose(value, expected / 2, rel_tol=0.01):
        return False, t("lab01.tflops.half")
    if math.isclose(value * 1e3, expected, rel_tol=0.01) or math.isclose(value / 1e3, expected, rel_tol=0.01):
        return False, t("lab01.tflops.magnitude")
    return False, t("lab01.tflops.other")


# Question 5: a real MindSpore log (mindspore-lab/mindyolo issue #273) whose surface error is not its root cause
MINDSPORE_LOG = (
    "RuntimeError: Unsupported device target Ascend. This process only supports one of the ['CPU']. Please check "
    "whether the Ascend environment is installed and configured correctly, and check whether current mindspore "
    'wheel package was built with "-e Ascend". For details, please refer to "Device load error message".\n'
    "Load dynamic library: libmindspore_ascend.so.2 failed. libge_runner.so: cannot open shared object file: "
    "No such file or directory\n"
)


def _check_root_cause(answer) -> tuple[bool, str]:
    from npulab.env.explain import CATEGORIES

    answer = str(answer).strip()
    if answer == "env_not_loaded":
        return True, t("lab01.root_cause.right")
    if answer == "mindspore_target":
        return False, t("lab01.root_cause.surface")
    if answer not in CATEGORIES:
        return False, t("lab01.root_cause.unknown", examples=', '.join(CATEGORIES[:3]))
    return False, t("lab01.root_cause.other")


_FIRST_LINE_CASES = (
    ("", None),
    ("epoch 1\n{'loss': 1.2, 'grad_norm': 0.8}\n", None),
    ("a\nb\nRuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\nc\n"
     "ImportError: libhccl.so: cannot open shared object file: No such file or directory\n", 3),
    ("starting\r\n\x1b[31mRuntimeError: Distributed package doesn't have NCCL built in\x1b[0m\r\n", 2),
    (MINDSPORE_LOG, 1),
)


def _check_first_error(first_error_line: Callable) -> tuple[bool | None, str]:
    if not callable(first_error_line):
        return False, t("lab01.need_function")
    for log, expected in _FIRST_LINE_CASES:
        got = first_error_line(log)
        if got is Ellipsis:
            return None, t("lab01.stub")
        if got != expected:
            shown = repr(log[:60]) + ("…" if len(log) > 60 else "")
            if expected is None:
                return False, t("lab01.first_error.none", shown=shown, got=repr(got))
            if got == 5 and expected == 3:
                return False, t("lab01.first_error.top_finding")
            return False, t("lab01.first_error.line", shown=shown, expected=expected, got=repr(got))
    return True, t("lab01.first_error.right")


def make_lab() -> Lab:
    """The checker object a lab notebook uses: ``lab.check("visible", answer)``."""
    return Lab(
        t("lab01.title"),
        {"visible": _check_visible, "visible_space": _check_visible_space, "pairing": _check_pairing,
         "timer": _check_timer, "tflops": _check_tflops, "root_cause": _check_root_cause, "first_error": _check_first_error},
    )
