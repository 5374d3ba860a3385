"""Would a Triton launch run well on an Ascend chip? A checker for launch grids and tile sizes.

On a GPU the launch grid is a logical range of programs that the hardware schedules onto its SMs. On an Ascend
NPU, Triton-Ascend binds programs to physical AI cores: the programs beyond the core count are issued in further
rounds, and a launch may not exceed ``coreDim`` = 65535 programs. Each program's tiles live in the core's
on-chip buffers (the Unified Buffer for Vector work) and must respect their alignment. ``check_launch`` applies
these rules, as the Triton-Ascend migration and programming guides state them, to a description of a launch
(:class:`Launch`) and returns a :class:`LaunchReport` with Chinese findings.

The chip numbers come from the platform data of the Ascend C lesson (``npulab.kernels.ascendc.platform``: UB size,
32-byte UB blocks, Vector core count) plus the Cube core count and Cube buffers from the same platform file;
the Triton-Ascend limits (coreDim, the 512-byte alignment of Cube+Vector kernels) are reported figures in
``npulab/data/reported_figures.yaml``. How many bytes a kernel keeps on chip is the course's **estimate** from
the tiles the caller lists; the compiler's own allocation can differ.

>>> report = check_launch(softmax_launch(n_rows=4096, n_cols=1000, dtype="float32"))
>>> report.programs, report.cores, report.rounds
(4096, 40, 103)
>>> check_launch(softmax_launch(4096, 1000, "float32", programs=40)).rounds
1
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field

from npulab.core.i18n import t
from npulab.core.provenance import reported
from npulab.hw.chips import Chip, NotApplicable, get_chip
from npulab.kernels.ascendc.platform import Platform, for_chip

DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2, "int8": 1}
KINDS = ("vector", "cube", "cube+vector")
ERROR, WARNING, INFO = "错误", "警告", "提示"  # Finding.level (and the JSON's); shown in the reader's language
_LEVEL_WORDS = {ERROR: lambda: t("triton.level_error"), WARNING: lambda: t("triton.level_warning"),
                INFO: lambda: t("triton.level_info")}


@dataclass(frozen=True)
class AscendTarget:
    """What the checker needs to know about one Ascend chip."""

    platform: Platform  # name, UB bytes, UB block bytes, Vector cores (the Ascend C lesson's data)
    cube_cores: int  # AIC cores = AI cores of a Cube/Vector-decoupled chip
    l1_bytes: int
    l0c_bytes: int
    cube_edge: int  # M = K = N edge of one Cube instruction for 16-bit types
    coredim_max: int  # Triton-Ascend: programs per launch
    cv_align_bytes: int  # Triton-Ascend: tail-axis alignment of Cube+Vector kernels

    @property
    def name(self) -> str:
        return self.platform.name

    def cores_for(self, kind: str) -> int:
        """The physical cores a kernel of ``kind`` is spread over: Vector cores, or AI (Cube) cores with tl.dot."""
        return self.platform.vector_cores if kind == "vector" else self.cube_cores


# the parts the Triton-Ascend documentation describes (Atlas A2 / A3): the launch limits below are sourced for them
TRITON_CHIPS = ("910B1", "910B2", "910B3", "910B4", "A3")


@functools.cache
def target_for(chip: str | Chip | None = None) -> AscendTarget:
    """A chip of the course's table (default 910B3): platform-file figures plus the Triton-Ascend limits.

    Raises NotApplicable (Chinese) for parts outside Atlas A2/A3, whose Triton-Ascend limits the course has no
    source for (310P3, 310B, 910A; the 950 has its own compile modes).
    """
    chip = chip if isinstance(chip, Chip) else get_chip(chip)
    if chip.key not in TRITON_CHIPS:
        raise NotApplicable(t("triton.not_applicable", chips=t("cube.list_separator").join(TRITON_CHIPS), chip=chip.key,
                              soc=chip.soc_version))
    purpose = t("triton.purpose")
    return AscendTarget(
        platform=for_chip(chip),
        cube_cores=int(chip.require("cube_cores", purpose).value),
        l1_bytes=int(chip.require("l1_bytes", purpose).value),
        l0c_bytes=int(chip.require("l0c_bytes", purpose).value),
        cube_edge=int(chip.require("cube_mkn", purpose).value),
        coredim_max=int(reported("triton_ascend.coredim_max").value),
        cv_align_bytes=int(reported("triton_ascend.cv_align_bytes").value),
    )


def ascend910b3_target() -> AscendTarget:
    """Ascend 910B3 (the course's default chip): platform-file figures plus the Triton-Ascend limits."""
    return target_for("910B3")


def dtype_bytes(dtype: str) -> int:
    """Bytes per element of a dtype name such as "float16"; ValueError (Chinese) for an unknown one."""
    try:
        return DTYPE_BYTES[str(dtype).removeprefix("torch.")]
    except KeyError:
        raise ValueError(t("triton.unknown_dtype", dtype=repr(dtype), choices=t("cube.list_separator").join(DTYPE_BYTES))) from None


@dataclass(frozen=True)
class Tile:
    """One tensor a program keeps on chip at the same time as the others (a block it loaded or computed)."""

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"

    def __post_init__(self) -> None:
        if not self.shape or any(int(s) < 1 for s in self.shape):
            raise ValueError(t("triton.tile_shape", name=self.name, shape=self.shape))
        dtype_bytes(self.dtype)

    @property
    def tail_bytes(self) -> int:
        """Bytes along the last axis, the one the hardware aligns."""
        return self.shape[-1] * dtype_bytes(self.dtype)

    def nbytes(self, align: int = 1) -> int:
        """Bytes on chip, with the last axis padded up to a multiple of ``align`` bytes."""
        return math.prod(self.shape[:-1]) * (-(-self.tail_bytes // align) * align)


@dataclass(frozen=True)
class Launch:
    """A kernel launch as the checker sees it.

    - ``kind``: "vector" (no tl.dot), "cube" (tl.dot, light post-processing) or "cube+vector" (tl.dot plus
      Vector work such as a reduction in the same kernel);
    - ``tiles``: the Vector-side tensors one program holds at once in one loop iteration (Unified Buffer);
    - ``dot``: (BLOCK_M, BLOCK_N, BLOCK_K) of the tl.dot, with ``dot_dtype`` its input type;
    - ``work_items``: how many independent pieces of work there are (rows, output tiles, blocks), if known;
    - ``multibuffer``: Triton-Ascend's default double buffering of data movement (halves the usable UB).
    """

    kernel: str
    grid: tuple[int, ...]
    kind: str = "vector"
    tiles: tuple[Tile, ...] = ()
    dot: tuple[int, int, int] | None = None
    dot_dtype: str = "float16"
    work_items: int | None = None
    multibuffer: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(t("triton.kind", choices=t("cube.list_separator").join(KINDS), kind=repr(self.kind)))
        if not self.grid or any(int(g) < 1 for g in self.grid) or len(self.grid) > 3:
            raise ValueError(t("triton.grid", grid=self.grid))
        if (self.dot is None) != (self.kind == "vector"):
            raise ValueError(t("triton.dot_needed"))
        if self.dot is not None and (len(self.dot) != 3 or any(int(d) < 1 for d in self.dot)):
            raise ValueError(t("triton.dot_three", dot=self.dot))

    @property
    def programs(self) -> int:
        return math.prod(int(g) for g in self.grid)


@dataclass(frozen=True)
class Finding:
    level: str  # 错误 / 警告 / 提示
    code: str  # short id, e.g. "coredim", "rounds"
    message: str


@dataclass
class LaunchReport:
    """The findings for one launch, with the numbers they were derived from."""

    launch: Launch
    target: AscendTarget
    programs: int
    cores: int
    rounds: int
    ub_bytes: int  # estimated Unified Buffer use, multibuffer included
    findings: list[Finding] = field(default_factory=list)
    suggested_programs: int | None = None

    @property
    def ok(self) -> bool:
        """No errors (warnings may remain)."""
        return not any(f.level == ERROR for f in self.findings)

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}

    def describe(self) -> str:
        """A few lines in the reader's language: the launch, its numbers, then one line per finding."""
        unit = t("triton.cores_vector") if self.launch.kind == "vector" else t("triton.cores_cube")
        lines = [t("triton.report_head", kernel=self.launch.kernel, grid=self.launch.grid, programs=self.programs,
                   target=self.target.name, cores=self.cores, unit=unit, rounds=self.rounds, ub=self.ub_bytes,
                   ub_limit=self.target.platform.ub_bytes)]
        lines += [f"  [{_LEVEL_WORDS[f.level]()}] {f.message}" for f in self.findings] or [t("triton.no_problem")]
        if self.suggested_programs is not None:
            lines.append(t("triton.suggest", programs=self.suggested_programs))
        return "\n".join(lines)

    def _repr_pretty_(self, p, cycle) -> None:  # IPython shows describe()
        p.text(self.describe())


def check_launch(launch: Launch, target: AscendTarget | None = None) -> LaunchReport:
    """Apply the Triton-Ascend grid, Unified Buffer, alignment and Cube rules to ``launch`` on ``target``."""
    target = target or ascend910b3_target()
    p = target.platform
    programs, cores = launch.programs, target.cores_for(launch.kind)
    rounds = -(-programs // cores)
    findings: list[Finding] = []
    suggested = None

    # --- grid -----------------------------------------------------------------------------------------
    if programs > target.coredim_max:
        findings.append(Finding(ERROR, "coredim",
                                t("triton.coredim", programs=programs, limit=target.coredim_max)))
    if len([g for g in launch.grid if int(g) > 1]) > 1:
        findings.append(Finding(INFO, "grid-2d", t("triton.grid_2d", grid=launch.grid, programs=programs)))
    if programs > cores:
        findings.append(Finding(WARNING, "rounds",
                                t("triton.rounds", programs=programs, cores=cores, rounds=rounds)))
        suggested = cores
    elif launch.work_items is not None and programs < min(cores, launch.work_items):
        findings.append(Finding(WARNING, "idle-cores",
                                t("triton.idle_cores", programs=programs, work=launch.work_items, cores=cores,
                                  idle=cores - programs, better=min(cores, launch.work_items))))
        suggested = min(cores, launch.work_items)

    # --- Unified Buffer (Vector side) -------------------------------------------------------------------
    align = target.cv_align_bytes if launch.kind == "cube+vector" else p.block_bytes
    single = sum(tile.nbytes(p.block_bytes) for tile in launch.tiles)
    factor = 2 if launch.multibuffer else 1
    ub_bytes = single * factor
    if single > p.ub_bytes:
        findings.append(Finding(ERROR, "ub-overflow",
                                t("triton.ub_overflow", single=single, ub=p.ub_bytes)))
    elif ub_bytes > p.ub_bytes:
        findings.append(Finding(WARNING, "ub-multibuffer",
                                t("triton.ub_multibuffer", single=single, double=ub_bytes, ub=p.ub_bytes)))
    for tile in launch.tiles:
        if tile.tail_bytes % align:
            findings.append(Finding(WARNING, "tail-align",
                                    t("triton.tail_align", name=tile.name, length=tile.shape[-1],
                                      item=dtype_bytes(tile.dtype), tail=tile.tail_bytes, align=align)))

    # --- Cube side -------------------------------------------------------------------------------------------
    if launch.dot is not None:
        bm, bn, bk = (int(d) for d in launch.dot)
        edge = target.cube_edge
        odd = [f"{n} = {v}" for n, v in (("BLOCK_M", bm), ("BLOCK_N", bn), ("BLOCK_K", bk)) if v % edge]
        if odd:
            findings.append(Finding(WARNING, "cube-edge",
                                    t("triton.cube_edge", odd=t("cube.list_separator").join(odd), edge=edge)))
        item = dtype_bytes(launch.dot_dtype)
        ab = (bm * bk + bk * bn) * item * factor
        if ab > target.l1_bytes:
            double = t("triton.double_buffered") if factor == 2 else ""
            findings.append(Finding(WARNING, "l1", t("triton.l1", double=double, ab=ab, l1=target.l1_bytes)))
        acc = bm * bn * 4
        if acc > target.l0c_bytes:
            findings.append(Finding(WARNING, "l0c", t("triton.l0c", bm=bm, bn=bn, acc=acc, l0c=target.l0c_bytes)))
    return LaunchReport(launch, target, programs, cores, rounds, ub_bytes, findings, suggested)


# ---------------------------------------------------------------------------------------------------------------
# descriptions of the launches of npulab.kernels.triton_kernels (the lesson's three kernels)


def _pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def vector_add_launch(n: int, block_size: int = 1024, dtype: str = "float32") -> Launch:
    """``vector_add``: one program per block; x, y and the sum are on chip together."""
    blocks = -(-int(n) // block_size)
    tiles = tuple(Tile(name, (block_size,), dtype) for name in ("x", "y", "out"))
    return Launch("vector_add", (blocks,), "vector", tiles, work_items=blocks)


def softmax_launch(n_rows: int, n_cols: int, dtype: str = "float32", programs: int | None = None) -> Launch:
    """``triton_softmax``: a row block of next_power_of_2(n_cols); the input row, its float32 exp and the output."""
    block = _pow2(n_cols)
    tiles = (Tile("x", (block,), dtype), Tile("exp", (block,), "float32"), Tile("y", (block,), dtype))
    return Launch("triton_softmax", (programs or n_rows,), "vector", tiles, work_items=n_rows)


def matmul_launch(m: int, n: int, k: int, dtype: str = "float16", programs: int | None = None,
                  block_m: int = 32, block_n: int = 32, block_k: int = 32) -> Launch:
    """``triton_matmul``: one output tile per program by default, a K loop of BLOCK_K slices."""
    if int(k) < 1:
        raise ValueError(t("triton.k_positive", k=k))
    tiles_total = -(-int(m) // block_m) * -(-int(n) // block_n)
    return Launch("triton_matmul", (programs or tiles_total,), "cube", (), (block_m, block_n, block_k), dtype,
                  work_items=tiles_total)


# ---------------------------------------------------------------------------------------------------------------
# command line: python -m npulab triton-launch softmax 4096 1000 [--programs 40] [--json]

_SHAPES = {"add": ("n",), "softmax": ("rows", "cols"), "matmul": ("m", "n", "k")}


def build_parser(subparsers, name: str) -> None:
    parser = subparsers.add_parser(
        name, help=t(f"cli.tool.{name}"),
        description="检查 vector_add / triton_softmax / triton_matmul 的一次启动在昇腾芯片（默认 910B3）上是否合适"
                    "（grid 与物理核数、coreDim 上限、UB 与双缓冲、对齐、Cube 块）。发现错误或警告时退出码为 1。")
    parser.add_argument("kernel", choices=sorted(_SHAPES), help="add：元素数 N；softmax：行数 列数；matmul：M N K")
    parser.add_argument("shape", nargs="+", type=int, metavar="尺寸")
    parser.add_argument("--dtype", default=None, help="数据类型（默认 add/softmax 为 float32，matmul 为 float16）")
    parser.add_argument("--programs", type=int, default=None, help="grid 大小（默认按 GPU 习惯：每份工作一个 program）")
    parser.add_argument("--block", type=int, nargs="+", default=None, metavar="B",
                        help="块大小：add 一个值（默认 1024），matmul 三个值 BLOCK_M BLOCK_N BLOCK_K（默认 32 32 32）")
    parser.add_argument("--chip", default=None, help=f"芯片（{'、'.join(TRITON_CHIPS)}；默认 910B3，见 python -m npulab chips）")
    parser.add_argument("--json", action="store_true", help="输出 JSON")
    parser.set_defaults(run=run)


def _launch_from_args(args) -> Launch:
    from npulab.core.cli import UsageError

    names = _SHAPES[args.kernel]
    if len(args.shape) != len(names) or any(v < 1 for v in args.shape):
        raise UsageError(t("triton.shape_usage", kernel=args.kernel, count=len(names), names=" ".join(names), shape=args.shape))
    if args.programs is not None and args.programs < 1:
        raise UsageError(t("triton.programs_usage", programs=args.programs))
    wanted = {"add": 1, "matmul": 3}.get(args.kernel)
    if args.block is not None and len(args.block) != wanted:
        raise UsageError(t("triton.block_count_usage", kernel=args.kernel, wanted=wanted, got=len(args.block)) if wanted
                         else t("triton.block_softmax_usage"))
    if args.block is not None and any(b < 1 for b in args.block):
        raise UsageError(t("triton.block_positive_usage", block=args.block))
    try:
        if args.dtype is not None:
            dtype_bytes(args.dtype)
        if args.kernel == "add":
            (block,) = args.block or [1024]
            launch = vector_add_launch(args.shape[0], block, args.dtype or "float32")
            return dataclasses.replace(launch, grid=(args.programs,)) if args.programs else launch
        if args.kernel == "softmax":
            return softmax_launch(*args.shape, args.dtype or "float32", programs=args.programs)
        bm, bn, bk = args.block or [32, 32, 32]
        return matmul_launch(*args.shape, args.dtype or "float16", args.programs, bm, bn, bk)
    except ValueError as err:  # a bad dtype
        raise UsageError(str(err)) from None


def run(args) -> int:
    import json

    from npulab.core.cli import EXIT_FAIL, EXIT_OK, UsageError
    from npulab.hw.chips import UnknownChip

    try:
        target = target_for(args.chip)
    except (UnknownChip, NotApplicable) as err:
        raise UsageError(str(err)) from None
    report = check_launch(_launch_from_args(args), target)
    if args.json:
        print(json.dumps({
            "kernel": report.launch.kernel, "grid": list(report.launch.grid), "target": report.target.name,
            "programs": report.programs, "cores": report.cores, "rounds": report.rounds, "ub_bytes": report.ub_bytes,
            "ub_limit": report.target.platform.ub_bytes, "suggested_programs": report.suggested_programs,
            "findings": [dataclasses.asdict(f) for f in report.findings]}, ensure_ascii=False, indent=2))
    else:
        print(report.describe())
    return EXIT_FAIL if report.findings and any(f.level != INFO for f in report.findings) else EXIT_OK
