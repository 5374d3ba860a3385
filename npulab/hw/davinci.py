"""The Da Vinci AI Core of the Ascend 910B3 as data: its buffers, its two data paths, and a drawing of them.

In the separated (AIC/AIV) architecture of Atlas A2 (910B) the AI Core is split into cube cores (AIC)
and vector cores (AIV), each with its own scalar unit and program; they exchange data through global
memory (GM, i.e. HBM behind the shared L2). Data paths (Ascend C guide "基本架构", hiascend
atlas_ascendc_10_0008):

- Cube: GM → L1 → L0A / L0B → Cube → L0C → FixPipe → GM (or back to L1)
- Vector: GM → UB → Vector → UB → GM

Buffer sizes come from the chip's platform file through the chip table (``npulab.hw.chips``; default 910B3).
"""

from __future__ import annotations

from npulab.core.i18n import t
from npulab.core.provenance import Figure
from npulab.hw.chips import Chip, get_chip

# buffer name -> chip-table field of its capacity
BUFFERS = {"L1": "l1_bytes", "L0A": "l0a_bytes", "L0B": "l0b_bytes", "L0C": "l0c_bytes", "UB": "ub_bytes",
           "L2": "l2_bytes"}
CUBE_PATH = ("GM", "L1", "L0A/L0B", "Cube", "L0C", "FixPipe", "GM")
VECTOR_PATH = ("GM", "UB", "Vector", "UB", "GM")


def buffer_sizes(chip: str | Chip | None = None) -> dict[str, Figure]:
    """Capacity of each on-chip buffer of ``chip`` (default 910B3) as a reported figure (bytes)."""
    chip = chip if isinstance(chip, Chip) else get_chip(chip)
    return {name: chip.require(field, t("davinci.purpose_buffers")) for name, field in BUFFERS.items()}


def _size(nbytes: float) -> str:
    return f"{nbytes / 2**20:g} MiB" if nbytes >= 2**20 else f"{nbytes / 2**10:g} KiB"


def draw_datapaths(ax=None, chip: str | Chip | None = None):
    """Draw one cube core and one vector core of ``chip`` (default 910B3) with their buffers and data paths."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4.6))
    chip = chip if isinstance(chip, Chip) else get_chip(chip)
    size = {name: _size(fig.value) for name, fig in buffer_sizes(chip).items()}
    purpose = t("davinci.purpose_draw")
    cores = int(chip.require("cube_cores", purpose).value), int(chip.require("vector_cores", purpose).value)
    boxes = {  # name: (x, y, w, h, label, colour)
        "GM": (0.0, 0.4, 1.3, 3.4, t("davinci.gm", l2=size["L2"]), "#eeeeee"),
        "L1": (2.0, 2.9, 1.2, 0.8, f"L1\n{size['L1']}", "#cfe2f3"),
        "L0A": (3.8, 3.35, 1.2, 0.55, f"L0A {size['L0A']}", "#cfe2f3"),
        "L0B": (3.8, 2.65, 1.2, 0.55, f"L0B {size['L0B']}", "#cfe2f3"),
        "Cube": (5.6, 2.9, 1.1, 0.8, "Cube\n16×16×16", "#f4cccc"),
        "L0C": (7.3, 2.9, 1.2, 0.8, f"L0C\n{size['L0C']}", "#cfe2f3"),
        "FixPipe": (9.0, 2.9, 1.1, 0.8, t("davinci.fixpipe"), "#d9ead3"),
        "UB": (3.8, 0.7, 1.5, 0.8, f"UB\n{size['UB']}", "#fff2cc"),
        "Vector": (6.2, 0.7, 1.3, 0.8, t("davinci.vector"), "#f4cccc"),
    }
    for x, y, w, h, label, color in boxes.values():
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.03", fc=color, ec="#444444"))
        ax.text(x + w / 2, y + h / 2, label, ha="center", va="center", fontsize=8)

    def arrow(x0, y0, x1, y1, color, text=""):
        ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle="-|>", mutation_scale=11, color=color, lw=1.4))
        if text:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2 + 0.08, text, fontsize=7, color=color, ha="center")

    red, green = "#cc0000", "#38761d"
    arrow(1.3, 3.3, 2.0, 3.3, red, "MTE2")
    arrow(3.2, 3.45, 3.8, 3.6, red, "MTE1")
    arrow(3.2, 3.15, 3.8, 2.95, red)
    arrow(5.0, 3.6, 5.6, 3.45, red)
    arrow(5.0, 2.95, 5.6, 3.15, red)
    arrow(6.7, 3.3, 7.3, 3.3, red)
    arrow(8.5, 3.3, 9.0, 3.3, red)
    ax.add_patch(FancyArrowPatch((10.1, 3.1), (1.3, 2.3), connectionstyle="arc3,rad=-0.25", arrowstyle="-|>",
                                 mutation_scale=11, color=red, lw=1.4))
    arrow(1.3, 1.25, 3.8, 1.25, green, t("davinci.mte2_in"))
    arrow(5.3, 1.25, 6.2, 1.25, green)
    arrow(6.2, 0.95, 5.3, 0.95, green)
    arrow(3.8, 0.85, 1.3, 0.85, green, t("davinci.mte3_out"))
    ax.text(6.2, 4.05, t("davinci.cube_path", cores=cores[0]),
            ha="center", fontsize=9, color=red)
    ax.text(5.7, 0.25, t("davinci.vector_path", cores=cores[1]), ha="center", fontsize=9,
            color=green)
    ax.set_xlim(-0.1, 10.3)
    ax.set_ylim(0.0, 4.3)
    ax.axis("off")
    return ax
