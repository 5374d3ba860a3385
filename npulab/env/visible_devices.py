"""``ASCEND_RT_VISIBLE_DEVICES``: which physical NPUs a process sees and how logical ids map onto them.

With ``ASCEND_RT_VISIBLE_DEVICES=4,5,6,7`` the process sees four NPUs and numbers them 0–3, so ``npu:0`` is
physical NPU 4 (the analogue of ``CUDA_VISIBLE_DEVICES``; ascend_facts.md §2.1, seed_digest.md §3.1).
An empty value is read as "no NPU visible", the convention vLLM's Ascend platform code follows; CANN's own
documentation read for this course does not describe the empty case, so it is reported as a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

ENV_NAME = "ASCEND_RT_VISIBLE_DEVICES"


@dataclass
class VisibleDevices:
    """The parsed variable: physical ids in logical order (None when unset), plus errors and warnings in Chinese."""

    raw: str | None
    physical: list[int] | None
    n_physical: int | None = None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the value has no errors (warnings allowed)."""
        return not self.errors

    @property
    def count(self) -> int | None:
        """How many NPUs the process sees (None when unset and the machine's count is unknown)."""
        if self.physical is None:
            return self.n_physical
        return len(self.physical)

    def mapping(self) -> dict[int, int]:
        """Logical id → physical id (identity when unset and the device count is known)."""
        if self.physical is None:
            return {i: i for i in range(self.n_physical or 0)}
        return dict(enumerate(self.physical))

    def to_physical(self, logical: int) -> int:
        """The physical id behind logical ``npu:<logical>``; ValueError (Chinese) when it does not exist."""
        if self.errors:
            raise ValueError(f"{ENV_NAME} 有错误，无法换算：" + "；".join(self.errors))
        if logical < 0:
            raise ValueError(f"逻辑编号 {logical} 不能为负数")
        if self.physical is None:
            if self.n_physical is not None and logical >= self.n_physical:
                raise ValueError(f"npu:{logical} 不存在：本机共 {self.n_physical} 个 NPU")
            return logical
        if logical >= len(self.physical):
            raise ValueError(f"npu:{logical} 不存在：{ENV_NAME}={self.raw!r} 只让进程看到 {len(self.physical)} 个 NPU")
        return self.physical[logical]

    def describe(self) -> str:
        """One Chinese sentence about what the process sees."""
        if self.errors:
            return f"{ENV_NAME}={self.raw!r} 无效：" + "；".join(self.errors)
        if self.physical is None:
            total = f"全部 {self.n_physical} 个" if self.n_physical is not None else "全部"
            return f"{ENV_NAME} 未设置：进程可以看到本机{total} NPU，逻辑编号等于物理编号"
        if not self.physical:
            return f"{ENV_NAME} 为空：进程看不到任何 NPU"
        pairs = "，".join(f"npu:{i} → 物理 NPU {p}" for i, p in enumerate(self.physical))
        return f"{ENV_NAME}={self.raw!r}：{pairs}"


def parse_visible(value: str | None, n_physical: int | None = None) -> VisibleDevices:
    """Parse and validate a value such as ``"4,5,6,7"`` or ``" 7 "``; ``None`` means the variable is unset."""
    if value is None:
        return VisibleDevices(None, None, n_physical)
    result = VisibleDevices(value, [], n_physical)
    if not value.strip():
        result.warnings.append(f"{ENV_NAME} 被设置为空字符串：进程将看不到任何 NPU；若想使用全部 NPU，请 unset 它")
        return result
    seen: set[int] = set()
    for position, item in enumerate(value.split(","), start=1):
        token = item.strip()
        if not token:
            result.errors.append(f"第 {position} 项为空（多余的逗号？）")
        elif re.fullmatch(r"-\s*[0-9]+", token):
            result.errors.append(f"第 {position} 项 {token!r} 是负数，设备编号从 0 开始")
        elif not re.fullmatch(r"[0-9]+", token):
            result.errors.append(f"第 {position} 项 {token!r} 不是整数；应写成逗号分隔的物理编号，如 4,5,6,7")
        else:
            device = int(token)
            if device in seen:
                result.errors.append(f"物理 NPU {device} 重复出现")
            elif n_physical is not None and device >= n_physical:
                result.errors.append(f"物理 NPU {device} 超出范围：本机共 {n_physical} 个 NPU（编号 0–{n_physical - 1}）")
            seen.add(device)
            result.physical.append(device)
    if result.errors:
        result.physical = []
    return result


def from_environ(environ: Mapping[str, str] | None = None, n_physical: int | None = None) -> VisibleDevices:
    """``parse_visible`` applied to an environment (default: this process's)."""
    env = os.environ if environ is None else environ
    return parse_visible(env.get(ENV_NAME), n_physical)


def logical_to_physical(value: str | None, logical: int, n_physical: int | None = None) -> int:
    """Physical NPU id behind ``npu:<logical>`` for a given variable value (``"7"``, 0 → 7)."""
    return parse_visible(value, n_physical).to_physical(logical)
