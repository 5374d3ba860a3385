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

from npulab.core.i18n import t

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
            raise ValueError(t("devices.cannot_map", env=ENV_NAME, errors=t("devices.clause_sep").join(self.errors)))
        if index < 0:
            raise ValueError(t("devices.negative_index", index=index))
        if self.ids is None:
            if self.n_devices is not None and index >= self.n_devices:
                raise ValueError(t("devices.no_such_device", index=index, count=self.n_devices))
            return index
        if index >= len(self.ids):
            raise ValueError(t("devices.not_visible", index=index, env=ENV_NAME, raw=repr(self.raw), count=len(self.ids)))
        return self.ids[index]

    def describe(self) -> str:
        """One sentence, in the reader's language, about what the process sees."""
        if self.errors:
            head = t("devices.problem", env=ENV_NAME, raw=repr(self.raw), errors=t("devices.clause_sep").join(self.errors))
            if not self.cut_by_doc:
                return t("devices.undocumented", head=head)
            read = t("devices.list_sep").join(map(str, self.ids or [])) or t("devices.nothing_read")
            return t("devices.cut", head=head, read=read)
        if self.ids is None:
            total = t("devices.all_count", count=self.n_devices) if self.n_devices is not None else t("devices.all")
            return t("devices.unset", env=ENV_NAME, total=total)
        if not self.ids:
            return t("devices.empty", env=ENV_NAME)
        pairs = t("devices.pair_sep").join(t("devices.pair", index=i, device=d) for i, d in enumerate(self.ids))
        return t("devices.mapping", env=ENV_NAME, raw=repr(self.raw), pairs=pairs)


def parse_visible(value: str | None, n_devices: int | None = None) -> VisibleDevices:
    """Parse and check a value such as ``"4,5,6,7"``; ``None`` means the variable is unset.

    ``n_devices`` is how many NPUs the host (or container) has, when known: IDs from ``n_devices`` on are invalid.
    """
    if value is None:
        return VisibleDevices(None, None, n_devices)
    result = VisibleDevices(value, [], n_devices)
    if not value.strip():
        result.warnings.append(t("devices.empty_string", env=ENV_NAME))
        return result
    for position, token in enumerate(value.split(","), start=1):
        stripped = token.strip()
        problem, order_problem = None, False
        if not stripped:
            problem = t("devices.item_empty", position=position)
        elif re.search(r"\s", token):
            problem = t("devices.item_blank", position=position, token=repr(token))
        elif re.fullmatch(r"-[0-9]+", stripped):
            problem = t("devices.item_negative", position=position, token=repr(stripped))
        elif not re.fullmatch(r"[0-9]+", stripped):
            problem = t("devices.item_not_int", position=position, token=repr(stripped))
        if re.fullmatch(r"[0-9]+", stripped):
            device = int(stripped)
            previous = result.written[-1] if result.written else None
            result.written.append(device)
            if problem is None and n_devices is not None and device >= n_devices:
                problem = t("devices.invalid_id", device=device, count=n_devices, last=n_devices - 1)
            elif problem is None and device in result.written[:-1]:
                problem, order_problem = t("devices.repeated", device=device), True
            elif problem is None and previous is not None and device < previous:
                problem, order_problem = t("devices.order", device=device, previous=previous), True
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
