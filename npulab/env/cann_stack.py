"""The CANN software stack, read from ``npulab/data/cann_stack.yaml``: layers, tools, environment variables.

Everything a lesson shows about the stack (the diagram, the CANN-vs-CUDA tables, the path of one torch op,
example version files) comes from that one data file; this module only reads, checks and draws it.
"""

from __future__ import annotations

import copy
import textwrap
from dataclasses import dataclass
from pathlib import Path

from npulab.core.i18n import localized, t
from npulab.core.paths import DATA_DIR, load_yaml

STACK_FILE = DATA_DIR / "cann_stack.yaml"


def _load() -> dict:
    return load_yaml(STACK_FILE)


def load() -> dict:
    """The whole data file as a dict (a copy; the parsed file is cached)."""
    return copy.deepcopy(_load())


@dataclass(frozen=True)
class Layer:
    """One layer of the stack with its CUDA counterpart and where it ships."""

    id: str
    name: str
    en: str
    components: tuple[str, ...]
    role: str
    cuda: str
    package: str
    runs_on: str
    paths: tuple[str, ...]


def layers() -> list[Layer]:
    """The software layers, bottom (driver) to top (framework adapters)."""
    return [
        Layer(d["id"], localized(d, "name"), d["en"], tuple(localized(d, "components")), localized(d, "role"),
              localized(d, "cuda"), localized(d, "package"), localized(d, "runs_on"), tuple(d.get("paths", ())))
        for d in _load()["layers"]
    ]


def layer(layer_id: str) -> Layer:
    """The layer with this id (``driver``, ``runtime``, ``operators``, ``ge``, ``ascendcl``, ``hccl``, ``frameworks``)."""
    found = {item.id: item for item in layers()}
    if layer_id not in found:
        raise KeyError(t("env.stack_unknown_layer", layer=repr(layer_id), layers=", ".join(found)))
    return found[layer_id]


def tools() -> list[dict]:
    """Rows of the CANN-vs-CUDA tool table: purpose, cann, cuda, source."""
    return load()["tools"]


def env_vars() -> list[dict]:
    """Rows of the environment-variable table: name, purpose, cuda, source."""
    return load()["env_vars"]


def op_path() -> list[dict]:
    """The steps of one eager torch op from Python down to an AI Core: layer, step, observe."""
    return load()["op_path"]


def version_examples() -> list[dict]:
    """Example version files (file, layout, text, note), in the documented formats."""
    return load()["version_examples"]


def read_version_example(example: dict) -> dict[str, str | None]:
    """Parse an example version file with npulab.env.cann_install's parsers; return commercial and internal versions."""
    from npulab.env.cann_install import parse_kv, parse_version_cfg

    text = example["text"]
    if example["file"].endswith("version.cfg"):
        inner, commercial = parse_version_cfg(text)
        return {"version": commercial, "inner_version": inner}
    kv = parse_kv(text)
    return {"version": kv.get("version"), "inner_version": kv.get("innerversion")}


def layer_paths(root: Path | str, home: Path | str) -> dict[str, list[tuple[Path, bool]]]:
    """For each layer, its documented folders under an install (``root``: Ascend root, ``home``: toolkit home) and whether they exist."""
    out: dict[str, list[tuple[Path, bool]]] = {}
    for item in layers():
        found = []
        for pattern in item.paths:
            path = Path(pattern.format(root=root, home=home))
            found.append((path, path.is_dir()))
        out[item.id] = found
    return out


# ----------------------------------------------------------------------------------------------------------------
# The diagram
# ----------------------------------------------------------------------------------------------------------------

_PACKAGE_COLORS = (("HDK", "#f4cccc"), ("ops", "#d9ead3"), ("Toolkit", "#cfe2f3"), ("pip", "#fff2cc"))


def _color(package: str) -> str:
    return next((color for key, color in _PACKAGE_COLORS if key in package), "#eeeeee")


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width=width, break_long_words=True, break_on_hyphens=False))


def title() -> str:
    """The diagram title, with the number of layers counted from the data (not written by hand)."""
    return t("env.stack_title", count=len(layers()))


def draw(ax=None, highlight: list[str] | None = None):
    """Draw the stack from the data: one box per layer (colour = package), its CUDA counterpart on the right."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch, Patch

    items = layers()
    hw = _load()["hardware"]
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 1.0 * (len(items) + 1) + 0.8))
    highlight = set(highlight or ())
    rows = [("hardware", localized(hw, "name"), " · ".join(localized(hw, "components")), localized(hw, "cuda"), "#e6e6e6")]
    package = {d["id"]: d["package"] for d in _load()["layers"]}  # the colour follows the data's own words
    rows += [(it.id, t("env.stack_box", name=it.name, en=it.en), " · ".join(it.components), it.cuda, _color(package[it.id]))
             for it in items]
    for y, (key, name, comps, cuda, color) in enumerate(rows):
        edge = "#cc0000" if key in highlight else "#444444"
        width = 2.5 if key in highlight else 1.0
        ax.add_patch(FancyBboxPatch((0.0, y + 0.08), 6.4, 0.84, boxstyle="round,pad=0.02", fc=color, ec=edge, lw=width))
        ax.text(0.12, y + 0.68, name, fontsize=9.5, fontweight="bold", va="center")
        ax.text(0.12, y + 0.32, _wrap(comps, 64), fontsize=7.5, va="center")
        ax.add_patch(FancyBboxPatch((6.7, y + 0.08), 3.3, 0.84, boxstyle="round,pad=0.02", fc="#f7f7f7", ec="#999999"))
        ax.text(6.8, y + 0.5, _wrap(cuda, 30), fontsize=7.5, va="center")
    ax.text(3.2, len(rows) + 0.15, t("env.stack_ascend"), ha="center", fontsize=10, fontweight="bold")
    ax.text(8.35, len(rows) + 0.15, t("env.stack_cuda"), ha="center", fontsize=10, fontweight="bold")
    ax.set_xlim(-0.1, 10.1)
    ax.set_ylim(0, len(rows) + 0.5)
    ax.axis("off")
    ax.set_title(title(), fontsize=11)
    legend = [Patch(fc=color, ec="#444444", label=label) for label, color in
              ((t("env.stack_legend_hdk"), _PACKAGE_COLORS[0][1]), (t("env.stack_legend_ops"), _PACKAGE_COLORS[1][1]),
               ("CANN Toolkit", _PACKAGE_COLORS[2][1]), (t("env.stack_legend_pip"), _PACKAGE_COLORS[3][1]))]
    ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, -0.01), ncol=4, fontsize=7.5, frameon=False)
    return ax
