"""The Ascend parts a learner may have — 910B1–B4, A3, 310P3, 310B, 950 and the 910A for contrast — as sourced data.

The table lives in ``npulab/data/chips.yaml``: every stored number is a reported figure with its source (mostly the
CANN platform files ``<arch>-linux/data/platform_config/<SoC>.ini``) or says that it is not published. What follows
from those numbers is derived here, by formula, with the inputs shown (``npulab.core.provenance.derive``):

- dense FP16/BF16 Cube peak = cube cores × M0·K0·N0 multiply-adds × 2 FLOP × cube clock;
- INT8 peak = the same with the INT8 fractal (K0 = 32: twice the multiply-adds per instruction);
- for a part with two dies per package (Atlas A3): per-card figure = 2 × the per-die figure.

A part whose only platform file is a pre-release one (the 950: ``preliminary`` in the table) gets no derived peak;
its vendor-announced figures (``announced``: reported figures with their source) are shown instead.

Without an NPU the course computes for the 910B3 (``DEFAULT``), and says so. ``get_chip`` accepts the table key,
the SoC name as CANN prints it (``Ascend910B3``), the npu-smi Name (``910B3``) and case or spacing variants.

>>> get_chip("Ascend910B4").figure("cube_freq_mhz").value
1500
>>> get_chip("910B3").fp16_peak().value
294.912
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from npulab.core.display import Table
from npulab.core.i18n import language, localized, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.core.provenance import Figure, derive, figure_entries, reported, reported_source

CHIPS_FILE = DATA_DIR / "chips.yaml"
T = TypeVar("T")
SEED = "910B3"  # the seed article's hardware: its measured figures (ResNet-50 img/s, ascend-dmi) are for this chip
DEFAULT = SEED  # the chip the course computes for when there is no NPU


class UnknownChip(ValueError):
    """A chip name the table does not know; the message (Chinese) lists the names it knows."""


class NotApplicable(ValueError):
    """A tool or model that does not apply to a chip (e.g. a training planner on an inference-only part)."""


@dataclass(frozen=True)
class Chip:
    """One part of the table: what it is, how CANN and npu-smi name it, and its figures with their provenance."""

    key: str
    soc_version: str
    npu_smi_name: str
    series: str
    products: str
    dies: int
    architecture: str
    role: str
    training: bool
    bf16: bool
    dtypes: str
    programming: tuple[str, ...]
    notes: str
    source: str
    raw: dict = field(repr=False, hash=False, compare=False, default_factory=dict)
    bf16_source: str = ""  # the source key behind ``bf16`` (a document that discriminates, not an inference)
    preliminary: str = ""  # why the platform-file figures are not the product's (no peak is derived from them)
    announced: tuple[str, ...] = ()  # reported-figure ids of the vendor's announced figures

    # -- stored figures ------------------------------------------------------------------------------------------
    def figure(self, name: str) -> Figure | None:
        """The reported figure ``name`` (see ``fields`` in chips.yaml), or None when it is not published."""
        if name not in self.raw:
            raise KeyError(t("chips.unknown_field", name=repr(name), names=t("chips.list_sep").join(fields())))
        entry = self.raw[name]
        if isinstance(entry, dict) and entry.get("published") is False:
            return None
        return reported(f"chip.{self.key}.{name}")

    def unpublished_note(self, name: str) -> str:
        """Why figure ``name`` is missing ('' when it is published)."""
        entry = self.raw[name]
        if not (isinstance(entry, dict) and entry.get("published") is False):
            return ""
        return localized(entry, "note") if "note" in entry else t("chips.unpublished")

    def text(self, name: str, default=""):
        """A descriptive field of the chip (series, role, architecture, dtypes, programming, notes, preliminary,
        products, npu_smi_name) in the reader's language: chips.yaml keeps the English twin as ``<field>_en``."""
        record = _records()[self.key]
        return localized(record, name) if name in record else default

    def require(self, name: str, purpose: str) -> Figure:
        """The figure ``name``, or NotApplicable saying that ``purpose`` needs it and it is not published."""
        fig = self.figure(name)
        if fig is None:
            raise NotApplicable(t("chips.not_applicable", chip=self.key, soc=self.soc_version,
                                  what=localized(fields()[name], "what"), purpose=purpose,
                                  note=self.unpublished_note(name)))
        return fig

    # -- derived figures -----------------------------------------------------------------------------------------
    def fp16_peak(self) -> Figure | None:
        """Dense FP16/BF16 Cube peak (TFLOPS) per die: derived from the platform file, else the vendor's figure.

        None for a part whose platform file is pre-release (``preliminary``): its figures are not the product's.
        """
        if self.preliminary:
            return None
        cores, edge, mhz = (self.figure(n) for n in ("cube_cores", "cube_mkn", "cube_freq_mhz"))
        if None in (cores, edge, mhz):
            return self.figure("fp16_tflops_vendor") if "fp16_tflops_vendor" in self.raw else None
        what = "FP16/BF16" if self.bf16 else "FP16"
        return derive(t("chips.fp16_peak", chip=self.key, what=what, per_die=t("chips.per_die") if self.dies > 1 else ""),
                      "cube_cores * edge**3 * 2 * mhz * 1e6 / 1e12", "TFLOPS", digits=None,
                      note=t("chips.fp16_peak_note", soc=self.soc_version),
                      cube_cores=cores, edge=edge, mhz=mhz)

    def int8_peak(self) -> Figure | None:
        """Dense INT8 Cube peak (TOPS) per die: the FP16 formula with the INT8 fractal edge K0 (None if preliminary)."""
        if self.preliminary:
            return None
        cores, edge, k0, mhz = (self.figure(n) for n in ("cube_cores", "cube_mkn", "int8_k0", "cube_freq_mhz"))
        if None in (cores, edge, k0, mhz):
            return None
        return derive(t("chips.int8_peak", chip=self.key, per_die=t("chips.per_die") if self.dies > 1 else ""),
                      "cube_cores * edge * k0 * edge * 2 * mhz * 1e6 / 1e12", "TOPS", digits=None,
                      note=t("chips.int8_peak_note"), cube_cores=cores, edge=edge, k0=k0, mhz=mhz)

    def per_card(self, fig: Figure | None) -> Figure | None:
        """A per-die figure scaled to the whole package (``dies`` × value); the figure itself for one-die parts."""
        if fig is None or self.dies == 1:
            return fig
        label = fig.label.replace(t("chips.per_die"), "") + t("chips.per_card")
        return derive(label, "dies * per_die", fig.unit, digits=None, note=t("chips.per_card_note", dies=self.dies),
                      dies=self.dies, per_die=fig)

    def runtime_total_gib(self) -> Figure | None:
        """The device memory the runtime reports (``torch.npu.mem_get_info``), in GiB, or None if not published."""
        fig = self.figure("runtime_total_bytes")
        if fig is None:
            return None
        return derive(t("chips.runtime_total", chip=self.key), "total_bytes / 2**30", "GiB", digits=None,
                      note=t("chips.runtime_total_note"), total_bytes=fig)

    def announced_figures(self) -> list[Figure]:
        """The vendor's announced figures for this part (reported, with their source); [] when there are none."""
        return [reported(fid) for fid in self.announced]

    def derived_figures(self) -> list[Figure]:
        """Every figure the course derives for this chip (peaks, per-card totals, runtime total in GiB)."""
        figs = [self.fp16_peak(), self.int8_peak()]
        if self.dies > 1:
            figs += [self.per_card(self.fp16_peak()), self.per_card(self.int8_peak()),
                     self.per_card(self.figure("memory_gib"))]
        figs.append(self.runtime_total_gib())
        return [f for f in figs if f is not None and f.kind.name == "DERIVED"]

    # -- what applies ------------------------------------------------------------------------------------------------
    def check_training(self, tool: str) -> None:
        """NotApplicable when ``tool`` plans training and the part is inference-only."""
        if not self.training:
            raise NotApplicable(t("chips.training_only", tool=tool, chip=self.key, series=self.text("series"),
                                  role=self.text("role"), paths=t("chips.list_sep").join(self.text("programming"))))

    def is_split(self) -> bool:
        """True for the separated (AIC/AIV) architecture of Atlas A2/A3 and 950; False for coupled parts."""
        return "分离" in self.architecture or self.key in ("A3", "950")


@functools.lru_cache(maxsize=1)
def _table() -> dict:
    return load_yaml(CHIPS_FILE)


@functools.lru_cache(maxsize=1)
def _records() -> dict[str, dict]:
    """The chip records of chips.yaml by key as a string (a key such as 950 reads as a number)."""
    return {str(key): record for key, record in _table()["chips"].items()}


def fields() -> dict[str, dict]:
    """Field name -> {unit, what} of the chip table, in display order."""
    return _table()["fields"]


@functools.lru_cache(maxsize=1)
def chips() -> dict[str, Chip]:
    """Every chip of the table by key, in table order."""
    out = {}
    for key, c in _table()["chips"].items():
        out[str(key)] = Chip(str(key), c["soc_version"], str(c["npu_smi_name"]), c["series"], c["products"],
                             int(c["dies"]), c["architecture"], c["role"], bool(c["training"]), bool(c["bf16"]),
                             c["dtypes"], tuple(c["programming"]), c.get("notes", ""), c["source"], c["figures"],
                             c.get("bf16_source", ""), c.get("preliminary", ""), tuple(c.get("announced", ())))
    return out


def _norm(name: str) -> str:
    name = re.sub(r"[（(].*?[）)]", "", str(name))  # "A3 (每个 die)" as the planner used to call it
    return re.sub(r"[\s_\-]", "", name).lower().removeprefix("ascend")


def get_chip(name: str | None = None) -> Chip:
    """The chip called ``name`` (key, SoC name, npu-smi name; None: the default 910B3); UnknownChip otherwise."""
    if name is None:
        return chips()[DEFAULT]
    wanted = _norm(name)
    for chip in chips().values():
        names = {chip.key, chip.soc_version, chip.npu_smi_name.split("（")[0]}
        if wanted in {_norm(n) for n in names}:
            return chip
    # A3 SoC names vary by model (Ascend910_9391, 9392, 9382, 9362 …): one entry stands for the family
    if wanted.startswith("910_93") or wanted.startswith("91093"):
        return chips()["A3"]
    raise UnknownChip(t("chips.unknown_chip", name=repr(name), names=t("chips.list_sep").join(chips())))


def first_applicable(build: Callable[[Chip], T], chip: Chip | str | None, *, fallback: str = DEFAULT,
                     errors: tuple[type[Exception], ...] = (NotApplicable,), say: Callable[[str], object] = print
                     ) -> tuple[T, Chip]:
    """``(build(chip), chip)``; when the model does not apply to ``chip``, say why and use ``fallback`` instead.

    A lesson computing for the learner's chip must still run top to bottom when a figure it needs is not published
    for that part (most bandwidths) or the model does not apply (Triton limits on a 310P3): it says so, in Chinese,
    and computes for the course default, whose name the caller then prints next to every number.
    """
    chip = chip if isinstance(chip, Chip) else get_chip(chip)
    try:
        return build(chip), chip
    except errors as why:
        other = get_chip(fallback)
        if other.key == chip.key:
            raise
        say(t("chips.fallback", why=why, chip=other.key, soc=other.soc_version))
        return build(other), other


def figure_sources(chip: Chip) -> list[str]:
    """The source keys behind a chip's stored figures (its own source first, then the others), each once."""
    keys = [chip.source]
    for entry in chip.raw.values():
        if isinstance(entry, dict) and entry.get("published") is not False:
            key = entry.get("source") or (reported_entry_source(entry["ref"]) if "ref" in entry else None)
            if key and key not in keys:
                keys.append(key)
    return keys


def reported_entry_source(figure_id: str) -> str:
    """The source key of a figure kept in reported_figures.yaml."""
    return figure_entries()[figure_id]["source"]


def source_line(key: str) -> str:
    """'title（versions）：url' for a source key: where a learner can read the document itself."""
    src = reported_source(key)
    return t("chips.source_line", title=localized(src, "title"), versions=localized(src, "versions"),
             url=localized(src, "url"))


def comparison_table(keys: list[str] | None = None) -> Table:
    """One table comparing the parts: SoC name, cores, clock, memory, L2/UB, derived peaks, BF16, use, models.

    The notes name, for each row, the public documents its figures come from (release and URL).
    """
    rows = []
    sources: dict[str, list[str]] = {}
    for chip in (chips()[k] for k in (keys or list(chips()))):
        for key in figure_sources(chip):
            sources.setdefault(key, []).append(chip.key)
        def val(name, scale=1.0, digits=0, c=chip):
            fig = c.figure(name)
            return None if fig is None else round(fig.value / scale, digits) if digits else int(round(fig.value / scale))
        peak = chip.fp16_peak()
        kind = "" if peak is None else (t("chips.derived_short") if peak.kind.name == "DERIVED" else t("chips.nominal_short"))
        shown_peak = ((t("chips.no_peak") if chip.preliminary else None) if peak is None
                      else t("chips.peak_shown", value=f"{peak.value:.1f}", kind=kind))
        rows.append([chip.key, chip.soc_version, short_smi_name(chip), chip.dies, val("cube_cores"),
                     val("vector_cores"), val("cube_freq_mhz"), val("memory_gib", digits=2),
                     val("l2_bytes", 2**20), val("ub_bytes", 2**10),
                     shown_peak, t("chips.yes") if chip.bf16 else t("chips.no"), chip.text("role")])
    headers = [t("chips.col_chip"), t("chips.col_soc"), t("chips.col_smi"), t("chips.col_dies"), t("chips.col_cube"),
               t("chips.col_vector"), t("chips.col_freq"), t("chips.col_memory"), "L2 MiB", "UB KiB",
               t("chips.col_peak"), "BF16", t("chips.col_role")]
    return Table(headers, rows, t("chips.table_title"), code_columns=[1],
                 notes=[t("chips.table_note"),
                        *[t("chips.preliminary_note", chip=c.key, why=c.text("preliminary"))
                          for c in (chips()[k] for k in (keys or list(chips()))) if c.preliminary],
                        *[t("chips.source_note", chips=t("chips.list_sep").join(users), source=source_line(key))
                          for key, users in sources.items()]])


def short_smi_name(chip: Chip) -> str:
    """The npu-smi name without its explanation (``Ascend910（每个 NPU 两行…）`` → ``Ascend910``), in the reader's
    language (the 950's is "not released")."""
    name = chip.text("npu_smi_name", chip.npu_smi_name)
    return str(name).split("（")[0].split(" (")[0] if language() == "en" else chip.npu_smi_name.split("（")[0]
