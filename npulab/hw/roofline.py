"""The roofline model: attainable throughput = min(peak FLOP/s, memory bandwidth × arithmetic intensity).

Arithmetic intensity is FLOP per byte moved to and from main memory (HBM/DRAM). Below the ridge point
(peak / bandwidth) an operation is limited by memory bandwidth, above it by compute. The machines'
figures come from ``npulab/data/reported_figures.yaml`` (reported) or are derived from the chip table (the Ascend
cube peaks, ``npulab.hw.chips``); a learner's own device enters as measured figures. Byte counts here are the minimum traffic
(each operand read once, each result written once), so real kernels sit at or left of these points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from npulab.core.i18n import t
from npulab.core.provenance import Figure, Kind, derive, measured, reported
from npulab.hw.chips import Chip, NotApplicable, get_chip


@dataclass(frozen=True)
class Machine:
    """A roofline: a peak (TFLOPS) and a memory bandwidth (GB/s), each a figure with its provenance."""

    name: str
    peak: Figure  # TFLOPS
    bandwidth: Figure  # GB/s
    note: str = ""

    @property
    def ridge(self) -> float:
        """Arithmetic intensity (FLOP/byte) where the bandwidth slope meets the peak."""
        return self.ridge_figure().value

    def ridge_figure(self) -> Figure:
        """The ridge point as a derived figure: peak / bandwidth, formula and inputs shown."""
        return derive(t("roofline.ridge", name=self.name), "peak_tflops * 1e12 / (bandwidth_gb_s * 1e9)", "FLOP/B", digits=None,
                      peak_tflops=self.peak, bandwidth_gb_s=self.bandwidth)

    def attainable(self, intensity):
        """Attainable TFLOPS at ``intensity`` FLOP/byte (scalar or numpy array)."""
        return np.minimum(self.peak.value, self.bandwidth.value * 1e9 * np.asarray(intensity, dtype=float) / 1e12)


def peak_910b3() -> Figure:
    """Derived FP16/BF16 cube peak of the 910B3: cube cores × 16·16·16 MAC × 2 FLOP × cube clock."""
    return get_chip("910B3").fp16_peak()


# ToolBox's FLOPS test counts matrix AND vector multiplications on Atlas A2 (toolboxug_0016). No public document gives
# a Vector core's FP16 multiply-adds per cycle; the course assumes 128 (and says so wherever the figure is shown). It
# matches `vec_calc_size=128` in [AICoreSpec] of CANN 8.1.RC1's Ascend910B3.ini, a field no public document explains.
VECTOR_FP16_MACS_ASSUMED = 128


def toolbox_fp16_910b3() -> tuple[Figure, Figure]:
    """(Vector part, Cube + Vector): the 910B3 FP16 rate counted as ToolBox counts it on Atlas A2, derived."""
    vector = derive(t("roofline.vector_fp16"), "vector_cores * macs * 2 * mhz * 1e6 / 1e12", "TFLOPS",
                    note=t("roofline.vector_assumed", macs=VECTOR_FP16_MACS_ASSUMED),
                    vector_cores=reported("ini.910b3.vector_cores"), macs=VECTOR_FP16_MACS_ASSUMED,
                    mhz=reported("ini.910b3.cube_freq_mhz"))
    total = derive(t("roofline.toolbox_total"), "cube + vector", "TFLOPS", note=t("roofline.toolbox_note"),
                   cube=peak_910b3(), vector=vector)
    return vector, total


def bandwidth_910b3() -> Figure:
    """The 910B3 memory roof: the seed's measured d2d bandwidth (no datasheet figure was found)."""
    fig = get_chip("910B3").figure("memory_bandwidth_gb_s")
    return Figure(t("roofline.hbm_910b3"), fig.value, fig.unit, fig.kind, fig.origin, t("roofline.hbm_910b3_note"))


def machine_for(chip: str | Chip | None = None, bandwidth: Figure | None = None) -> Machine:
    """The roofline of a chip of the course's table: its derived Cube peak and a bandwidth roof.

    Most parts have no published memory bandwidth: pass a measured one (``bandwidth``, GB/s, e.g. from
    ``npulab.bench.bandwidth`` on the learner's device); otherwise NotApplicable says why.
    """
    chip = chip if isinstance(chip, Chip) else get_chip(chip)
    peak = chip.fp16_peak()
    if peak is None:
        raise NotApplicable(t("roofline.no_peak", chip=chip.key))
    if bandwidth is None:
        bandwidth = bandwidth_910b3() if chip.key == "910B3" else chip.require(
            "memory_bandwidth_gb_s", t("roofline.purpose_bandwidth"))
    if bandwidth.kind is Kind.MEASURED:
        source = t("roofline.bw_measured_here")
    else:
        source = t("roofline.bw_seed") if chip.key == "910B3" else t("roofline.bw_see_source")
    peak_is = t("roofline.peak_derived") if peak.kind is Kind.DERIVED else t("roofline.peak_vendor")
    return Machine(f"Ascend {chip.key}", peak, bandwidth, t("roofline.machine_note", peak=peak_is, bandwidth=source))


def reference_gpus() -> list[Machine]:
    """NVIDIA A100 SXM 80GB and H100 SXM: vendor dense FP16/BF16 matrix peaks and HBM bandwidths (reported)."""
    return [
        Machine("NVIDIA A100 SXM 80GB", reported("nvidia.a100_sxm.fp16_tensor_tflops"),
                reported("nvidia.a100_sxm80.hbm_gb_s"), t("roofline.vendor_dense")),
        Machine("NVIDIA H100 SXM", reported("nvidia.h100_sxm.fp16_tensor_tflops"),
                reported("nvidia.h100_sxm.hbm_gb_s"), t("roofline.vendor_dense")),
    ]


def machines(chip: str | Chip | None = None) -> list[Machine]:
    """The Ascend ``chip`` (default 910B3; it needs a published bandwidth) followed by the two reference GPUs."""
    return [machine_for(chip), *reference_gpus()]


def measured_machine(device: object, gflops: float, gb_per_s: float, dtype: str = "float32") -> Machine:
    """A roofline for the learner's device from a measured matmul throughput and copy bandwidth."""
    return Machine(
        t("roofline.mine", device=device, dtype=dtype),
        measured(t("roofline.mine_peak", dtype=dtype), round(gflops / 1e3, 4), "TFLOPS", device),
        measured(t("roofline.mine_copy"), round(gb_per_s, 2), "GB/s", device),
        t("roofline.mine_note"),
    )


# ----------------------------------------------------------------------------------------------------------------
# Workloads
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Workload:
    """An operation placed on the roofline: its FLOP and its minimum bytes to and from memory."""

    name: str
    flop: float
    bytes: float
    group: str

    @property
    def intensity(self) -> float:
        """FLOP per byte."""
        return self.flop / self.bytes


def matmul(m: int, n: int, k: int, dtype_bytes: int = 2, name: str | None = None) -> Workload:
    """C[m,n] = A[m,k]·B[k,n]: 2mnk FLOP; reads A and B once and writes C once."""
    return Workload(name or f"matmul {m}×{k}×{n}", 2 * m * n * k, (m * k + k * n + m * n) * dtype_bytes,
                    t("roofline.group_matmul"))


def elementwise(numel: int, dtype_bytes: int = 2, inputs: int = 2, flop_per_element: int = 1,
                name: str | None = None) -> Workload:
    """An element-wise op (e.g. add): ``flop_per_element`` per output; reads ``inputs`` arrays, writes one."""
    return Workload(name or t("roofline.elementwise_name", numel=f"{numel:,}"), flop_per_element * numel,
                    (inputs + 1) * numel * dtype_bytes, t("roofline.group_elementwise"))


def softmax(rows: int, cols: int, dtype_bytes: int = 2) -> Workload:
    """Row softmax: about 5 FLOP per element (max, subtract, exp, sum, divide); one read and one write."""
    return Workload(f"softmax {rows}×{cols}", 5 * rows * cols, 2 * rows * cols * dtype_bytes, "softmax")


def conv2d(batch: int, c_in: int, c_out: int, h_out: int, w_out: int, kernel: tuple[int, int], h_in: int, w_in: int,
           dtype_bytes: int = 2, name: str = "conv") -> Workload:
    """A convolution: 2·N·C_out·H_out·W_out·C_in·kh·kw FLOP; reads input and weights, writes output."""
    kh, kw = kernel
    flop = 2 * batch * c_out * h_out * w_out * c_in * kh * kw
    traffic = (batch * c_in * h_in * w_in + c_out * c_in * kh * kw + batch * c_out * h_out * w_out) * dtype_bytes
    return Workload(name, flop, traffic, t("roofline.group_conv"))


def bound(machine: Machine, workload: Workload) -> str:
    """'compute' when the workload sits right of the machine's ridge point, else 'memory'."""
    return "compute" if workload.intensity >= machine.ridge else "memory"


# ----------------------------------------------------------------------------------------------------------------
# Plot
# ----------------------------------------------------------------------------------------------------------------


def _markers() -> dict[str, str]:
    """Marker by workload group, in the language the workloads were named in (either)."""
    marks = {"softmax": "D"}
    for lang in ("zh", "en"):
        marks.update({t("roofline.group_matmul", lang): "o", t("roofline.group_elementwise", lang): "v",
                      t("roofline.group_conv", lang): "s"})
    return marks


LEGEND_FONTSIZE = 10  # points: at 7 pt the legend and labels could not be read on the site
LABEL_FONTSIZE = 9


def plot(machine_list: Sequence[Machine], workloads: Sequence[Workload] = (), *,
         points: Sequence[tuple[str, float, float]] = (), ax=None, intensity_range: tuple[float, float] = (0.05, 5000)):
    """Draw rooflines, place workloads on the first machine's roof, and add measured (name, FLOP/B, TFLOPS) points."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 5))
    x = np.logspace(np.log10(intensity_range[0]), np.log10(intensity_range[1]), 400)
    for i, machine in enumerate(machine_list):
        style = "--" if machine.peak.kind is Kind.MEASURED else "-"
        ax.plot(x, machine.attainable(x), style, lw=2, color=f"C{i}", label=t("roofline.legend_machine", name=machine.name, ridge=f"{machine.ridge:.0f}"))
    if workloads and machine_list:
        roof = machine_list[0]
        groups: dict[str, list[Workload]] = {}
        for w in workloads:
            groups.setdefault(w.group, []).append(w)
        markers = _markers()
        for group, items in groups.items():
            xs = [w.intensity for w in items]
            ax.scatter(xs, roof.attainable(xs), marker=markers.get(group, "o"), s=28, zorder=3,
                       facecolors="none", edgecolors="k", label=t("roofline.legend_group", group=group, roof=roof.name))
    if points:
        ax.scatter([p[1] for p in points], [p[2] for p in points], marker="*", s=150, zorder=4, color="#c51b7d",
                   label=t("roofline.legend_points"))
        for label, intensity, tflops in points:
            ax.annotate(label, (intensity, tflops), textcoords="offset points", xytext=(6, -10), fontsize=LABEL_FONTSIZE,
                        color="#c51b7d")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(t("roofline.xlabel"))
    ax.set_ylabel(t("roofline.ylabel"))
    ax.legend(fontsize=LEGEND_FONTSIZE, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return ax
