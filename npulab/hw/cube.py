"""A model of one Cube core computing C = A·B (M×K by K×N) fractal by fractal.

The model (its assumptions, stated so they can be checked):

- One cube instruction multiplies an M0×K0 fractal of A by a K0×N0 fractal of B and accumulates the
  M0×N0 result into L0C (FP16/BF16: 16×16×16, INT8: 16×32×16 — the [DtypeMKN] section of
  Ascend910B3.ini). At peak a cube core issues one such instruction per cycle, which is where the
  derived peak ``cores × 16·16·16 MAC × 2 FLOP × f`` comes from.
- Operands are stored as whole fractals (FRACTAL_NZ, see ``npulab.hw.formats``): a dimension that is not a
  multiple of the fractal edge is padded with zeros, and padded fractals cost full instructions.
- The work is cut into tiles of mt×kt fractals of A and kt×nt fractals of B that fit in L0A / L0B (half
  of each when double buffering), with the mt×nt accumulator tile staying in L0C for the whole K loop.
  Every A tile and B tile crosses L1→L0 once per use; the finished C tile leaves through FixPipe to GM.
- L1 keeps one operand panel resident (all K for one row or one column of C tiles) when it fits in L1;
  otherwise every tile is fetched from GM again. FixPipe writes C in the input type (FP16/BF16) or INT32.

It is a teaching model of data movement and padding, not a cycle-accurate simulator: it ignores
pipeline bubbles, bank conflicts, MTE bandwidths and the split across the 20 cube cores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from npulab.core.i18n import t
from npulab.hw.chips import Chip, NotApplicable, get_chip

_ACC_BYTES = 4  # L0C holds FP32 (float inputs) or INT32 (int8 inputs) accumulators


@dataclass(frozen=True)
class CubeSpec:
    """Fractal edges and buffer capacities of one cube core, for one input data type."""

    dtype: str
    m0: int
    k0: int
    n0: int
    in_bytes: int
    out_bytes: int
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    l1_bytes: int
    double_buffer: bool = True

    @property
    def macs_per_instruction(self) -> int:
        return self.m0 * self.k0 * self.n0

    @property
    def a_fractal_bytes(self) -> int:
        return self.m0 * self.k0 * self.in_bytes

    @property
    def b_fractal_bytes(self) -> int:
        return self.k0 * self.n0 * self.in_bytes

    @property
    def c_fractal_bytes(self) -> int:
        return self.m0 * self.n0 * _ACC_BYTES

    @property
    def capacity(self) -> dict[str, int]:
        """How many fractals each buffer can hold for one tile (L0A/L0B halved when double buffering)."""
        share = 2 if self.double_buffer else 1
        return {
            "L0A": self.l0a_bytes // share // self.a_fractal_bytes,
            "L0B": self.l0b_bytes // share // self.b_fractal_bytes,
            "L0C": self.l0c_bytes // self.c_fractal_bytes,
        }


_DTYPES = {"float16": (16, 2, 2), "bfloat16": (16, 2, 2), "int8": (None, 1, 4)}  # k0, in_bytes, out_bytes


def spec_for(chip: str | Chip | None = None, dtype: str = "float16", *, double_buffer: bool = True) -> CubeSpec:
    """The cube core of ``chip`` (default 910B3), with fractal edges and buffer sizes from its platform file.

    Raises NotApplicable (Chinese) when the chip's buffers are not published or it has no BF16 Cube.
    """
    if dtype not in _DTYPES:
        raise ValueError(t("cube.dtype", dtypes=t("cube.list_separator").join(_DTYPES), dtype=repr(dtype)))
    chip = chip if isinstance(chip, Chip) else get_chip(chip)
    if dtype == "bfloat16" and not chip.bf16:
        raise NotApplicable(t("cube.no_bf16", chip=chip.key, soc=chip.soc_version, dtypes=chip.dtypes))
    purpose = t("cube.purpose")
    k0, in_bytes, out_bytes = _DTYPES[dtype]
    edge = int(chip.require("cube_mkn", purpose).value)
    k0 = int(chip.require("int8_k0", purpose).value) if k0 is None else k0
    size = {name: int(chip.require(f"{name}_bytes", purpose).value) for name in ("l0a", "l0b", "l0c", "l1")}
    return CubeSpec(dtype, edge, k0, edge, in_bytes, out_bytes, size["l0a"], size["l0b"], size["l0c"], size["l1"],
                    double_buffer)


def spec_910b3(dtype: str = "float16", *, double_buffer: bool = True) -> CubeSpec:
    """The cube core of the Ascend 910B3 (the course's default chip), from Ascend910B3.ini."""
    return spec_for("910B3", dtype, double_buffer=double_buffer)


def _check_dims(m: int, k: int, n: int) -> None:
    for name, value in (("M", m), ("K", k), ("N", n)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise ValueError(t("cube.dim", name=name, value=repr(value)))


def fractals(m: int, k: int, n: int, spec: CubeSpec) -> tuple[int, int, int]:
    """(m1, k1, n1): how many fractals cover M, K and N after padding."""
    _check_dims(m, k, n)
    return math.ceil(m / spec.m0), math.ceil(k / spec.k0), math.ceil(n / spec.n0)


def instruction_count(m: int, k: int, n: int, spec: CubeSpec) -> int:
    """Closed form: ceil(M/M0) · ceil(K/K0) · ceil(N/N0) cube instructions."""
    m1, k1, n1 = fractals(m, k, n, spec)
    return m1 * k1 * n1


def utilisation(m: int, k: int, n: int, spec: CubeSpec) -> float:
    """Useful multiply-adds / multiply-adds issued: M·K·N / (instructions · M0·K0·N0)."""
    return m * k * n / (instruction_count(m, k, n, spec) * spec.macs_per_instruction)


@dataclass(frozen=True)
class Tiling:
    """Tile edges in fractals: an mt×kt tile of A and a kt×nt tile of B make an mt×nt tile of C."""

    mt: int
    kt: int
    nt: int


@dataclass
class MatmulPlan:
    """What the model predicts for one M×K×N product: instructions, bytes per level, utilisation."""

    m: int
    k: int
    n: int
    spec: CubeSpec
    tiling: Tiling
    instructions: int
    bytes_moved: dict[str, int]
    l1_resident: str  # "A", "B" or "none": which operand panel stays in L1
    peak_fractals: dict[str, int] = field(default_factory=dict)

    @property
    def utilisation(self) -> float:
        return self.m * self.k * self.n / (self.instructions * self.spec.macs_per_instruction)

    @property
    def flop(self) -> int:
        """Useful floating-point (or integer) operations: 2·M·K·N."""
        return 2 * self.m * self.k * self.n


def _traffic(m1: int, k1: int, n1: int, t: Tiling, spec: CubeSpec) -> tuple[dict[str, int], str]:
    """Bytes per level for tiling ``t``; the L1-resident panel is whichever saves more GM traffic."""
    tiles_m, tiles_n = math.ceil(m1 / t.mt), math.ceil(n1 / t.nt)
    a_bytes = m1 * k1 * spec.a_fractal_bytes  # all of A once
    b_bytes = k1 * n1 * spec.b_fractal_bytes
    l1_l0a, l1_l0b = a_bytes * tiles_n, b_bytes * tiles_m
    options = {"none": l1_l0a + l1_l0b}
    if t.mt * k1 * spec.a_fractal_bytes + t.kt * t.nt * spec.b_fractal_bytes <= spec.l1_bytes:
        options["A"] = a_bytes + l1_l0b  # row panel of A kept while B streams past it
    if k1 * t.nt * spec.b_fractal_bytes + t.mt * t.kt * spec.a_fractal_bytes <= spec.l1_bytes:
        options["B"] = b_bytes + l1_l0a
    resident = min(options, key=lambda key: (options[key], key != "A"))
    return {
        "GM→L1": options[resident],
        "L1→L0A": l1_l0a,
        "L1→L0B": l1_l0b,
        "L0C→GM": m1 * n1 * spec.m0 * spec.n0 * spec.out_bytes,
    }, resident


def choose_tiling(m: int, k: int, n: int, spec: CubeSpec) -> Tiling:
    """The tile shape that fits L0A/L0B/L0C and moves the fewest bytes from L1 to L0 (ties: more GM reuse)."""
    m1, k1, n1 = fractals(m, k, n, spec)
    cap = spec.capacity
    best, best_key = None, None
    for mt in range(1, min(m1, cap["L0C"], cap["L0A"]) + 1):
        for nt in range(1, min(n1, cap["L0C"] // mt, cap["L0B"]) + 1):
            kt = min(k1, cap["L0A"] // mt, cap["L0B"] // nt)
            tiling = Tiling(mt, kt, nt)
            traffic, _ = _traffic(m1, k1, n1, tiling, spec)
            key = (traffic["L1→L0A"] + traffic["L1→L0B"], traffic["GM→L1"], -kt, -mt * nt)
            if best_key is None or key < best_key:
                best, best_key = tiling, key
    return best


def plan_matmul(m: int, k: int, n: int, spec: CubeSpec | None = None, tiling: Tiling | None = None) -> MatmulPlan:
    """Predict instructions, bytes per level and utilisation of an M×K×N product on one cube core."""
    spec = spec or spec_910b3()
    m1, k1, n1 = fractals(m, k, n, spec)
    tiling = tiling or choose_tiling(m, k, n, spec)
    _check_tiling(tiling, spec)
    traffic, resident = _traffic(m1, k1, n1, tiling, spec)
    peak = {"L0A": min(tiling.mt, m1) * min(tiling.kt, k1), "L0B": min(tiling.kt, k1) * min(tiling.nt, n1),
            "L0C": min(tiling.mt, m1) * min(tiling.nt, n1)}
    return MatmulPlan(m, k, n, spec, tiling, m1 * k1 * n1, traffic, resident, peak)


def _check_tiling(tiling: Tiling, spec: CubeSpec) -> None:
    cap = spec.capacity
    need = {"L0A": tiling.mt * tiling.kt, "L0B": tiling.kt * tiling.nt, "L0C": tiling.mt * tiling.nt}
    for level, count in need.items():
        if min(tiling.mt, tiling.kt, tiling.nt) < 1 or count > cap[level]:
            raise ValueError(t("cube.tiling", tiling=tiling, level=level, count=count, capacity=cap[level]))


def _fractal_view(x: np.ndarray, r0: int, c0: int) -> np.ndarray:
    """Pad a 2-D array to whole r0×c0 fractals and view it as [rows/r0, cols/c0, r0, c0]."""
    r1, c1 = math.ceil(x.shape[0] / r0), math.ceil(x.shape[1] / c0)
    padded = np.zeros((r1 * r0, c1 * c0), dtype=x.dtype)
    padded[: x.shape[0], : x.shape[1]] = x
    return padded.reshape(r1, r0, c1, c0).transpose(0, 2, 1, 3)


def simulate_matmul(a, b, spec: CubeSpec | None = None, tiling: Tiling | None = None) -> tuple[np.ndarray, MatmulPlan]:
    """Run A·B through the model tile by tile, counting instructions and bytes as they happen.

    Returns the product (FP32 accumulators for float inputs, INT32 for int8) and a plan whose counters
    were accumulated during the run; they equal ``plan_matmul``'s closed-form predictions.
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(t("cube.two_2d", a=a.shape, b=b.shape))
    if a.shape[1] != b.shape[0]:
        raise ValueError(t("cube.k_mismatch", a=a.shape, b=b.shape))
    if a.dtype != b.dtype or a.dtype.name not in _DTYPES:
        raise ValueError(t("cube.same_dtype", dtypes=t("cube.list_separator").join(_DTYPES), a=a.dtype, b=b.dtype))
    spec = spec or spec_910b3(a.dtype.name)
    if spec.dtype != a.dtype.name:
        raise ValueError(t("cube.spec_dtype", dtype=a.dtype, spec=spec.dtype))
    m, k = a.shape
    n = b.shape[1]
    plan = plan_matmul(m, k, n, spec, tiling)
    chosen, resident = plan.tiling, plan.l1_resident
    acc = np.int32 if spec.dtype == "int8" else np.float32
    af = _fractal_view(a, spec.m0, spec.k0).astype(acc)  # [m1, k1, m0, k0]
    bf = _fractal_view(b, spec.k0, spec.n0).astype(acc)  # [k1, n1, k0, n0]
    m1, k1, n1 = af.shape[0], af.shape[1], bf.shape[1]
    cf = np.zeros((m1, n1, spec.m0, spec.n0), dtype=acc)
    count = dict.fromkeys(("instructions", "GM→L1", "L1→L0A", "L1→L0B", "L0C→GM"), 0)
    row_starts, col_starts = range(0, m1, chosen.mt), range(0, n1, chosen.nt)
    # keep the resident panel's loop outside, so that its panel is fetched from GM only on first use
    order = ([(i, j) for j in col_starts for i in row_starts] if resident == "B"
             else [(i, j) for i in row_starts for j in col_starts])
    for i, j in order:
        rows, cols = slice(i, min(i + chosen.mt, m1)), slice(j, min(j + chosen.nt, n1))
        for p in range(0, k1, chosen.kt):
            ks = slice(p, min(p + chosen.kt, k1))
            a_tile, b_tile = af[rows, ks], bf[ks, cols]  # the fractals moved into L0A and L0B
            a_cost = a_tile.shape[0] * a_tile.shape[1] * spec.a_fractal_bytes
            b_cost = b_tile.shape[0] * b_tile.shape[1] * spec.b_fractal_bytes
            count["L1→L0A"] += a_cost
            count["L1→L0B"] += b_cost
            count["GM→L1"] += (a_cost if resident != "A" or j == 0 else 0) + (b_cost if resident != "B" or i == 0 else 0)
            # every (row, k, column) triple of fractals is one cube instruction, accumulating into L0C
            cf[rows, cols] += np.einsum("ikab,kjbc->ijac", a_tile, b_tile)
            count["instructions"] += a_tile.shape[0] * a_tile.shape[1] * b_tile.shape[1]
        count["L0C→GM"] += (rows.stop - rows.start) * (cols.stop - cols.start) * spec.m0 * spec.n0 * spec.out_bytes
    result = cf.transpose(0, 2, 1, 3).reshape(m1 * spec.m0, n1 * spec.n0)[:m, :n]
    moved = {key: count[key] for key in ("GM→L1", "L1→L0A", "L1→L0B", "L0C→GM")}
    counted = MatmulPlan(m, k, n, spec, chosen, count["instructions"], moved, resident, plan.peak_fractals)
    return np.ascontiguousarray(result), counted
