"""Seat sizes: what one participant gets, the same words on one server and on Kubernetes.

On one server (``workshop/jupyterhub_config.py``) a seat is one NPU (``WORKSHOP_PER_NPU=1``), a share of one
(``WORKSHOP_PER_NPU>1``: time-sharing, no isolation) or no NPU at all (CPU lessons). On Kubernetes the same sizes are
profiles of the Zero to JupyterHub chart (``npulab.workshop.k8s``), each asking a device plugin for its
resource, and a slice becomes a vNPU: AI Cores and memory cut by the driver's template. ``seat_variables`` gives the
``NPULAB_*`` variables a size sets (``mode.seat_variables``, the ones the lessons' workshop mode reads).

>>> [s.key for s in SEAT_SIZES]
['cpu', 'vnpu', 'npu', 'node8']
>>> single_server_size(per_npu=3).key
'vnpu'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from npulab.core.i18n import language, t
from npulab.core.paths import DATA_DIR, parse_yaml
from npulab.workshop.cann_env import VISIBLE_ENV
from npulab.workshop.mode import seat_variables

TEMPLATES_FILE = DATA_DIR / "vnpu_templates.yaml"
PLUGINS = ("hami", "mindcluster")
DEFAULT_CHIPS = {"hami": "910B3", "mindcluster": "910"}  # the chip whose resource names a plugin's values file uses

# What one seat needs of the host besides its NPU. Memory: measured peak resident size of a lesson's kernel on CPU
# (docs/DECISIONS.md, "Workshop sealed"): 3.7 GiB for the MindSpore training lesson 04/02, 0.97 GiB for ResNet-50 AMP
# 03/02, 0.7 GiB after importing torch, MindSpore and transformers; CPU: the lessons' CPU sizes aim at a minute on a core.
MEM_PER_SEAT_GB = 4.0
CORES_PER_SEAT = 1
MEM_LIMIT_GB, CPU_LIMIT = 16, 4  # a seat's ceiling, as WORKSHOP_MEM_LIMIT / WORKSHOP_CPU_LIMIT default on one server


@dataclass(frozen=True)
class SeatSize:
    """One seat size: how many NPUs (a slice counts as one device the seat sees) and what it is for.

    ``title`` and ``purpose`` are Chinese: the hub's profile page shows them to participants (``k8s.profile``);
    ``title_en``/``purpose_en`` are their English twins, for the instructor's tools (``label``, ``use``)."""

    key: str
    title: str
    npus: int
    slice: bool = False  # a part of one NPU: vNPU on Kubernetes, a time-shared card on one server
    purpose: str = ""
    title_en: str = ""
    purpose_en: str = ""

    def label(self, lang: str | None = None) -> str:
        """The title in npulab's language (``lang``, default :func:`npulab.core.i18n.language`)."""
        return self.title_en if (lang or language()) == "en" and self.title_en else self.title

    def use(self, lang: str | None = None) -> str:
        """What the size is for, in npulab's language."""
        return self.purpose_en if (lang or language()) == "en" and self.purpose_en else self.purpose

    @property
    def devices(self) -> tuple[int, ...]:
        """The logical NPU ids the seat sees: its own NPUs, renumbered from 0 (a container sees only its own)."""
        return tuple(range(self.npus))


SEAT_SIZES = (
    SeatSize("cpu", "CPU 座位（不用 NPU）", 0, purpose="只做 CPU 就能跑的课：每节课都有 CPU 路径",
             title_en="CPU seat (no NPU)", purpose_en="only the lessons that run on CPU: every lesson has a CPU path"),
    SeatSize("vnpu", "vNPU 座位（一张 NPU 的一份）", 1, slice=True, purpose="入门与单卡的课：Hello NPU、算子、PyTorch 迁移",
             title_en="vNPU seat (a share of one NPU)",
             purpose_en="the introductory and single-card lessons: Hello NPU, operators, PyTorch migration"),
    SeatSize("npu", "整卡座位（一张 NPU）", 1, purpose="性能、profiling、大模型推理这些要整卡的课",
             title_en="whole-card seat (one NPU)",
             purpose_en="the lessons that need a whole card: performance, profiling, LLM inference"),
    SeatSize("node8", "八卡座位（同一节点的 8 张 NPU）", 8, purpose="第 06 章多卡 HCCL 的课：8 个进程在一台机器的 8 张卡上",
             title_en="eight-card seat (8 NPUs of one node)",
             purpose_en="the multi-card HCCL lessons of chapter 06: 8 processes on the 8 cards of one machine"),
)
SIZES = {s.key: s for s in SEAT_SIZES}


def single_server_size(per_npu: int) -> SeatSize:
    """The size of a seat on one server with ``per_npu`` participants per NPU (1: the card; more: a share)."""
    return SIZES["npu"] if int(per_npu) <= 1 else SIZES["vnpu"]


def size_resources(size: SeatSize) -> dict:
    """CPU and memory a seat of this size is guaranteed and limited to (KubeSpawner's traits; its "G" is GiB): the
    host share of one seat per NPU process, as preflight checks it on one server."""
    scale = max(1, size.npus)
    return {"cpu_guarantee": float(CORES_PER_SEAT * scale), "cpu_limit": float(CPU_LIMIT * scale),
            "mem_guarantee": f"{int(MEM_PER_SEAT_GB * scale)}G", "mem_limit": f"{MEM_LIMIT_GB * scale}G"}


def size_variables(size: SeatSize, user: str) -> dict[str, str]:
    """The variables a seat of this size sets in its own container: the ``NPULAB_*`` ones (own network namespace, so
    the first seat's ports) and, with NPUs, ``ASCEND_RT_VISIBLE_DEVICES`` over the container's own logical ids, as
    the hub on one server sets it to the seat's card (``mode.seat_line`` tells the participant so)."""
    variables = seat_variables(user, size.devices, 0)
    if size.devices:
        variables[VISIBLE_ENV] = ",".join(map(str, size.devices))
    return variables


@cache
def templates_data() -> dict:
    """``npulab/data/vnpu_templates.yaml``: the resources and vNPU templates of each device plugin and chip."""
    return parse_yaml(TEMPLATES_FILE.read_text(encoding="utf-8"))


def chip_entry(plugin: str, chip: str) -> dict:
    """The data of ``chip`` under ``plugin`` (ValueError, in npulab's language, naming what is known)."""
    plugins = templates_data()["plugins"]
    sep = t("workshop.tools.list_sep")
    if plugin not in plugins:
        raise ValueError(t("workshop.tools.sizes.bad_plugin", plugins=sep.join(PLUGINS), given=repr(plugin)))
    chips = plugins[plugin]["chips"]
    if chip not in chips:
        raise ValueError(t("workshop.tools.sizes.unknown_chip", plugin=plugin, chip=repr(chip), known=sep.join(chips)))
    return chips[chip]


def slice_template(plugin: str, chip: str) -> str | None:
    """The vNPU template of a slice seat: the one closest to a quarter of the chip's AI Cores (None: no templates)."""
    entry = chip_entry(plugin, chip)
    templates = entry.get("templates") or {}
    if not templates:
        return None
    quarter = entry.get("ai_core", 0) / 4
    return min(templates, key=lambda name: (abs(templates[name]["ai_core"] - quarter), templates[name]["ai_core"]))


def resource_limits(size: SeatSize, plugin: str, chip: str) -> dict[str, str]:
    """What a seat of ``size`` asks the device plugin for (``extra_resource_limits``); {} for a CPU seat.

    A slice on a chip without templates raises ValueError: it would silently become a whole card.
    """
    if size.npus == 0:
        return {}
    entry = chip_entry(plugin, chip)
    if not size.slice:
        return {entry["whole"]: str(size.npus)}
    template = slice_template(plugin, chip)
    if template is None:
        raise ValueError(t("workshop.tools.sizes.no_templates", plugin=plugin, chip=chip, file=TEMPLATES_FILE.name))
    spec = entry["templates"][template]
    if plugin == "hami":
        return {entry["whole"]: "1", entry["memory_resource"]: str(spec["memory_mb"])}
    return {spec["resource"]: "1"}
