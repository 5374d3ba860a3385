"""``npu-smi info -t template-info``: the virtualization templates (vNPU) the driver offers on this machine.

The names carry the resources by a documented rule (Atlas 300V "虚拟NPU使用场景", 300V_0049: the number after ``vir``
is the AI Cores, the number before ``c`` the AI CPUs; ``dvpp`` / ``ndvpp`` with or without the media units), and the
names HAMi uses for A2/A3 chips add the memory as ``_<n>g`` (``vir05_1c_16g``, Project-HAMi/ascend-device-plugin
ascend-device-configmap.yaml). The table's column layout is not relied on: every token shaped like a template name is
read, with what its name says. A device without virtualization answers one sentence (Atlas 200I A2 npu-smi reference,
npusmi_117: "This device does not support querying template-info."): no templates, whole cards only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from npulab.ascend_tools.smi.common import unsupported_sentence

_NAME = re.compile(r"(?<![\w-])(vir(\d{2})(?:_(\d+)c)?(?:_(\d+)g)?(?:_(n?dvpp))?)(?![\w-])")


@dataclass(frozen=True)
class Template:
    """One template as its name describes it (memory only where the name carries it)."""

    name: str
    ai_core: int
    ai_cpu: int | None = None
    memory_gb: int | None = None
    media: str | None = None  # "dvpp": all media units, "ndvpp": none, None: the template's default share


@dataclass(frozen=True)
class TemplateInfo:
    """What ``npu-smi info -t template-info`` said: the templates, or that the device has none."""

    templates: tuple[Template, ...]
    unsupported: str | None = None

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.templates]


def parse_template_info(text: str) -> TemplateInfo:
    """The templates in ``npu-smi info -t template-info`` output, in order, each once."""
    sentence = unsupported_sentence(text or "")
    if sentence:
        return TemplateInfo((), sentence)
    seen: dict[str, Template] = {}
    for match in _NAME.finditer(text or ""):
        name, cores, cpus, memory, media = match.groups()
        if name not in seen:
            seen[name] = Template(name, int(cores), int(cpus) if cpus else None, int(memory) if memory else None, media)
    return TemplateInfo(tuple(seen.values()))
