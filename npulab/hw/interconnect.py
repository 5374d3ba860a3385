"""Links between NPUs: the link types of ``npu-smi info -t topo`` and a drawing of a parsed topology.

Parsing belongs to ``npulab.ascend_tools.smi.topo.parse_topo``; this module explains and draws its result. The link
types and their bit values are those of AscendCL's ``aclrtGetDevicesTopo`` (CANN 9.0.0 runtime API,
``ACL_RT_DEVS_TOPOLOGY_*``, hiascend aclpythondevg_01_1035); PXB and NA appear only in npu-smi's legend.
"""

from __future__ import annotations

import math

from npulab.core.i18n import t

# link type -> (AscendCL value or None, Chinese meaning)
LINK_TYPES: dict[str, tuple[int | None, str]] = {
    "HCCS": (0x01, "HCCS（华为缓存一致性系统）直连：NPU 之间的高速互联"),
    "PIX": (0x02, "经过同一个 PCIe 交换芯片"),
    "PIB": (0x04, "保留值"),
    "PHB": (0x08, "经过 PCIe 主桥（CPU 的 PCIe 根）"),
    "SYS": (0x10, "跨 NUMA 节点：经 PCIe 再经 CPU 之间的 SMP 互联"),
    "SIO": (0x20, "同一芯片内两个 die 之间的连接（Atlas A3）"),
    "HCCS_SW": (0x40, "经 HCCS 交换芯片"),
    "PXB": (None, "经过多个 PCIe 交换芯片（只见于 npu-smi 的图例）"),
    "NA": (None, "关系未知"),
}
_COLORS = {"HCCS": "#1f77b4", "HCCS_SW": "#17becf", "SIO": "#9467bd", "PIX": "#2ca02c", "PXB": "#8c564b",
           "PHB": "#ff7f0e", "SYS": "#d62728"}


# the meanings in the reader's language (LINK_TYPES keeps the Chinese ones)
_MEANINGS = {
    "HCCS": lambda: t("interconnect.hccs"), "PIX": lambda: t("interconnect.pix"), "PIB": lambda: t("interconnect.pib"),
    "PHB": lambda: t("interconnect.phb"), "SYS": lambda: t("interconnect.sys"), "SIO": lambda: t("interconnect.sio"),
    "HCCS_SW": lambda: t("interconnect.hccs_sw"), "PXB": lambda: t("interconnect.pxb"), "NA": lambda: t("interconnect.na"),
}


def describe(kind: str) -> str:
    """Meaning of a link type, in the reader's language (``HCCS``, ``PIX`` …), or a note that it is not in the table."""
    words = _MEANINGS.get(kind.upper())
    return words() if words else t("interconnect.unknown", kind=kind)


def draw_topology(topology, ax=None, title: str = ""):
    """Draw a parsed ``npu-smi info -t topo`` result: devices on a circle, one line per linked pair.

    Line colour = link type; device colour = CPU-affinity group (devices sharing a CPU list share a colour).
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 5.5))
    names = list(topology.devices)
    n = len(names)
    pos = {name: (math.cos(math.pi / 2 - 2 * math.pi * i / n), math.sin(math.pi / 2 - 2 * math.pi * i / n))
           for i, name in enumerate(names)}
    kinds_seen = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            kind = topology.links.get((a, b)) or topology.links.get((b, a))
            if not kind:
                continue
            kinds_seen.append(kind)
            (x0, y0), (x1, y1) = pos[a], pos[b]
            ax.plot([x0, x1], [y0, y1], color=_COLORS.get(kind, "#7f7f7f"), lw=1.6, alpha=0.8, zorder=1)
    groups = list(dict.fromkeys(topology.cpu_affinity.get(name) for name in names))
    for name in names:
        x, y = pos[name]
        group = groups.index(topology.cpu_affinity.get(name))
        ax.scatter([x], [y], s=900, color=f"C{group % 10}", alpha=0.35, edgecolors="k", zorder=2)
        ax.text(x, y, name, ha="center", va="center", fontsize=8, zorder=3)
        cpus = topology.cpu_affinity.get(name)
        if cpus:
            side = "left" if x > 0.2 else ("right" if x < -0.2 else "center")
            ax.text(1.22 * x, 1.25 * y, f"CPU {cpus}", ha=side, va="center", fontsize=7, color="#555555")
    handles = [Line2D([0], [0], color=_COLORS.get(k, "#7f7f7f"), lw=2, label=t("interconnect.pairs", kind=k, count=kinds_seen.count(k)))
               for k in dict.fromkeys(kinds_seen)]
    if handles:
        ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, -0.12), ncol=len(handles), fontsize=8,
                  frameon=False)
    ax.set_xlim(-1.75, 1.75)
    ax.set_ylim(-1.55, 1.55)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title, fontsize=10)
    return ax
