"""Checks of lab 01 (environment and timing)."""

from __future__ import annotations

import math
from collections.abc import Callable

from npulab.course.labs import Lab


def _check_visible(answer) -> tuple[bool, str]:
    if not isinstance(answer, int) or isinstance(answer, bool):
        return False, f"请给出一个整数（逻辑设备 ID），收到的是 {type(answer).__name__}。"
    if answer == 6:
        return True, ("进程内的索引 npu:i 对应 ASCEND_RT_VISIBLE_DEVICES 列表中的第 i 项（从 0 数起），"
                      "列表里写的是逻辑 ID（npu-smi info -m 中的 Chip Logic ID）。")
    if answer == 1:
        return False, "1 是进程内的索引；题目问的是它背后的逻辑设备 ID。"
    if answer == 4:
        return False, "索引从 0 开始数：npu:0 对应列表中的第一项。"
    return False, "答案只能是 ASCEND_RT_VISIBLE_DEVICES 列表中的某一项。"


def _check_visible_space(answer) -> tuple[bool, str]:
    if not isinstance(answer, int) or isinstance(answer, bool):
        return False, f"请给出一个整数（进程能看到的 NPU 个数），收到的是 {type(answer).__name__}。"
    if answer == 1:
        return True, ("CANN 只读取第一个非法字符（这里是空格）之前的 ID，所以只有逻辑 ID 4 可见；"
                      "python -m npulab doctor 会把这种写法报为失败。")
    if answer == 2:
        return False, "再读一遍 CANN 环境变量参考对分隔符的要求：ID 之间只能是英文逗号，遇到其他字符会怎样？"
    if answer == 0:
        return False, "空格之前的那一项仍然会被读取。"
    return False, "列表里一共只写了两个 ID。"


def _expected_torch_npu(torch_version: str, cann: str) -> set[str]:
    from npulab.env import compatibility
    return {row.torch_npu for row in compatibility.torch_npu_rows() if row.pytorch == torch_version and row.cann == cann}


def _check_pairing(answer) -> tuple[bool, str]:
    from npulab.env import compatibility
    expected = _expected_torch_npu("2.9.0", "9.1.0")
    answer = str(answer).strip()
    if answer in expected:
        return True, "这正是配套表中 PyTorch 2.9.0 与 CANN 9.1.0 所在的那一行。"
    rows = [row for row in compatibility.torch_npu_rows() if row.torch_npu == answer]
    if not rows:
        return False, "配套表中没有这个 torch_npu 安装包版本；注意 .postN 后缀也是版本的一部分。"
    if rows[0].pytorch != "2.9.0":
        return False, f"这个安装包配套的是 PyTorch {rows[0].pytorch}，不是 2.9.0。"
    return False, f"这个安装包配套的是 CANN {rows[0].cann}；同一个 PyTorch 版本在不同 CANN 上对应不同的 .postN。"


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
        return False, "请给出一个函数。"
    # the first (warm-up) call is slow; the timed calls take 3, 1, 2, 9, 2 → median 2
    device = _AsyncDevice([50, 3, 1, 2, 9, 2])
    result = median_time(device.fn, device.sync, repeats=5, clock=device.clock)
    if result is Ellipsis:
        return None, "函数还没有实现（仍然返回 ...）。"
    if result is None:
        return False, "函数没有返回值。"
    if device.calls != 6:
        return False, f"fn 应被调用 1 次预热 + 5 次计时 = 6 次，实际 {device.calls} 次。"
    if math.isclose(result, 0.0, abs_tol=1e-9):
        return False, "测得的时间是 0：读时钟之前是否等待设备完成了任务？"
    if math.isclose(result, 2.0):
        return True, "预热、读时钟前同步、重复、取中位数，四步都做对了。"
    if math.isclose(result, 3.4):
        return False, "这是平均值；一次很慢的重复会把平均值拉高，请用中位数。"
    if math.isclose(result, 3.0):
        return False, "预热的那一次不应计入结果。"
    if math.isclose(result, 1.0) or math.isclose(result, 9.0):
        return False, "这是最快（或最慢）的一次，不是中位数。"
    return False, "结果与预期的中位数不符：检查同步的位置（每次读时钟之前）和统计量。"


def _check_tflops(answer) -> tuple[bool, str]:
    try:
        value = float(answer)
    except (TypeError, ValueError):
        return False, "请给出一个数字（单位 TFLOPS）。"
    expected = 2 * 4096**3 / 2.13e-3 / 1e12
    if math.isclose(value, expected, rel_tol=0.01):
        return True, "一次 n×n 矩阵乘做 2n³ 次浮点运算，除以时间即得吞吐。"
    if math.isclose(value, expected / 2, rel_tol=0.01):
        return False, "少了一个因子 2：每次乘加算两次浮点运算。"
    if math.isclose(value * 1e3, expected, rel_tol=0.01) or math.isclose(value / 1e3, expected, rel_tol=0.01):
        return False, "数量级不对：检查毫秒与秒、GFLOPS 与 TFLOPS 的换算。"
    return False, "用 4096 计算浮点运算次数，再除以以秒为单位的时间。"


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
        return True, ("第二行说明 Ascend 后端库加载失败是因为找不到 CANN 的 libge_runner.so：先 source set_env.sh，"
                      "再核对 MindSpore 与 CANN 的版本配套。")
    if answer == "mindspore_target":
        return False, "这是第一行的表面症状；再看第二行：后端库为什么加载失败？explain 把哪一类排在最前？"
    if answer not in CATEGORIES:
        return False, f"请给出 explain 的类别 id 之一，例如 {', '.join(CATEGORIES[:3])} …"
    return False, "这个类别与日志里的两行都对不上；用 ex.explain_text(MINDSPORE_LOG) 看看识别出了哪些类。"


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
        return False, "请给出一个函数。"
    for log, expected in _FIRST_LINE_CASES:
        got = first_error_line(log)
        if got is Ellipsis:
            return None, "函数还没有实现（仍然返回 ...）。"
        if got != expected:
            shown = repr(log[:60]) + ("…" if len(log) > 60 else "")
            if expected is None:
                return False, f"日志 {shown} 里没有识别出问题，应返回 None，你返回了 {got!r}。"
            if got == 5 and expected == 3:
                return False, "你返回的是排在最前的那类问题的证据行；题目要的是所有证据中最早的一行。"
            return False, f"日志 {shown} 的最早证据在第 {expected} 行，你返回了 {got!r}。"
    return True, "报告里每个 finding 的 evidence 都带行号；最早的一行通常就是该先读的那条报错。"


def make_lab() -> Lab:
    """The checker object a lab notebook uses: ``lab.check("visible", answer)``."""
    return Lab(
        "实验 01",
        {"visible": _check_visible, "visible_space": _check_visible_space, "pairing": _check_pairing,
         "timer": _check_timer, "tflops": _check_tflops, "root_cause": _check_root_cause, "first_error": _check_first_error},
    )
