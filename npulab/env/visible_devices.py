"""``ASCEND_RT_VISIBLE_DEVICES``: which NPUs a process sees, and which index each one gets inside the process.

The values are the processor's **logical** device IDs (the "Chip Logic ID" column of ``npu-smi info -m``), not the
physical IDs in the device-node names ``/dev/davinciN``; ``npu-smi info -t phyid-remap -p N`` maps one onto the
other. With ``ASCEND_RT_VISIBLE_DEVICES=4,5,6,7`` the process sees four NPUs and addresses them by index 0–3, so
``npu:0`` is logical device 4. The CANN environment-variable reference (envref_07_0028, CANN 8.0–9.1,
https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1/maintenref/envvar/envref_07_0028.html) also
says: only ascending order is supported; IDs are separated by commas and nothing else; CANN reads the IDs before the
first other character (a space, for example) or the first invalid ID and ignores the rest (``"1, 2,3"`` → only 1,
``"1,3,8"`` on an 8-device host → 1 and 3). :func:`parse_visible` follows that reading rule and reports every such
case as an error, because the process silently gets fewer devices than the person who wrote the value meant.

An empty value is read as "no NPU visible", the convention vLLM's Ascend platform code follows; the CANN reference
does not describe the empty case, so it is reported as a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

ENV_NAME = "ASCEND_RT_VISIBLE_DEVICES"
DOC_URL = "https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/83RC1/maintenref/envvar/envref_07_0028.html"


@dataclass
class VisibleDevices:
    """The parsed variable.

    ``ids``: the logical device IDs before the first problem, in index order (None when the variable is unset) --
    what CANN reads when the problem is a stray character or an invalid ID (``cut_by_doc``); ``written``: the
    integers the value spells out; ``errors`` and ``warnings`` in Chinese.
    """

    raw: str | None
    ids: list[int] | None
    n_devices: int | None = None
    written: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cut_by_doc: bool = True

    @property
    def ok(self) -> bool:
        """True when the value has no errors (warnings allowed)."""
        return not self.errors

    @property
    def count(self) -> int | None:
        """How many NPUs the process sees (None when unset and the machine's count is unknown)."""
        if self.ids is None:
            return self.n_devices
        return len(self.ids)

    def mapping(self) -> dict[int, int]:
        """Index inside the process (``npu:<index>``) → logical device ID (identity when unset and the count is known)."""
        if self.ids is None:
            return {i: i for i in range(self.n_devices or 0)}
        return dict(enumerate(self.ids))

    def device_id(self, index: int) -> int:
        """The logical device ID behind ``npu:<index>``; ValueError (Chinese) when the value is wrong or it does not exist."""
        if self.errors:
            raise ValueError(f"{ENV_NAME} 有错误，无法换算：" + "；".join(self.errors))
        if index < 0:
            raise ValueError(f"设备索引 {index} 不能为负数")
        if self.ids is None:
            if self.n_devices is not None and index >= self.n_devices:
                raise ValueError(f"npu:{index} 不存在：本机共 {self.n_devices} 个 NPU")
            return index
        if index >= len(self.ids):
            raise ValueError(f"npu:{index} 不存在：{ENV_NAME}={self.raw!r} 只让进程看到 {len(self.ids)} 个 NPU")
        return self.ids[index]

    def describe(self) -> str:
        """One Chinese sentence about what the process sees."""
        if self.errors:
            head = f"{ENV_NAME}={self.raw!r} 有问题：" + "；".join(self.errors)
            if not self.cut_by_doc:
                return head + "。CANN 文档只支持不重复的升序 ID，这个值的效果没有文档保证"
            read = "、".join(map(str, self.ids or [])) or "一个也读不到"
            return head + f"。按 CANN 文档的读取规则，运行时只读取出错位置之前的逻辑 ID：{read}"
        if self.ids is None:
            total = f"全部 {self.n_devices} 个" if self.n_devices is not None else "全部"
            return f"{ENV_NAME} 未设置：进程可以看到本机{total} NPU，npu:i 就是逻辑 ID i"
        if not self.ids:
            return f"{ENV_NAME} 为空：进程看不到任何 NPU"
        pairs = "，".join(f"npu:{i} → 逻辑 ID {d}" for i, d in enumerate(self.ids))
        return f"{ENV_NAME}={self.raw!r}：{pairs}"


def parse_visible(value: str | None, n_devices: int | None = None) -> VisibleDevices:
    """Parse and check a value such as ``"4,5,6,7"``; ``None`` means the variable is unset.

    ``n_devices`` is how many NPUs the host (or container) has, when known: IDs from ``n_devices`` on are invalid.
    """
    if value is None:
        return VisibleDevices(None, None, n_devices)
    result = VisibleDevices(value, [], n_devices)
    if not value.strip():
        result.warnings.append(f"{ENV_NAME} 被设置为空字符串：进程将看不到任何 NPU；若想使用全部 NPU，请 unset 它")
        return result
    for position, token in enumerate(value.split(","), start=1):
        stripped = token.strip()
        problem, order_problem = None, False
        if not stripped:
            problem = f"第 {position} 项为空（多余的逗号或只有空白？）"
        elif re.search(r"\s", token):
            problem = f"第 {position} 项 {token!r} 含空白字符；只允许数字和英文逗号"
        elif re.fullmatch(r"-[0-9]+", stripped):
            problem = f"第 {position} 项 {stripped!r} 是负数，设备 ID 从 0 开始"
        elif not re.fullmatch(r"[0-9]+", stripped):
            problem = f"第 {position} 项 {stripped!r} 不是整数；应写成逗号分隔的逻辑 ID，如 4,5,6,7"
        if re.fullmatch(r"[0-9]+", stripped):
            device = int(stripped)
            previous = result.written[-1] if result.written else None
            result.written.append(device)
            if problem is None and n_devices is not None and device >= n_devices:
                problem = f"逻辑 ID {device} 无效：本机共 {n_devices} 个 NPU（ID 0–{n_devices - 1}）"
            elif problem is None and device in result.written[:-1]:
                problem, order_problem = f"逻辑 ID {device} 重复出现", True
            elif problem is None and previous is not None and device < previous:
                problem, order_problem = f"逻辑 ID {device} 排在 {previous} 之后：CANN 只支持按升序列出 ID", True
        if problem:
            if not result.errors:
                result.cut_by_doc = not order_problem
            result.errors.append(problem)
        elif not result.errors:
            result.ids.append(device)
    return result


def from_environ(environ: Mapping[str, str] | None = None, n_devices: int | None = None) -> VisibleDevices:
    """``parse_visible`` applied to an environment (default: this process's)."""
    env = os.environ if environ is None else environ
    return parse_visible(env.get(ENV_NAME), n_devices)


def index_to_device_id(value: str | None, index: int, n_devices: int | None = None) -> int:
    """Logical device ID behind ``npu:<index>`` for a given variable value (``"7"``, 0 → 7)."""
    return parse_visible(value, n_devices).device_id(index)
