"""The Hello-NPU matmul benchmark: GFLOP/s of square FP32 matrix products on a device."""

from __future__ import annotations

from dataclasses import dataclass

from npulab.core.comparison import Best, rate_lows, robust_best, show_verdict
from npulab.core.device import Device
from npulab.core.i18n import t
from npulab.core.provenance import Figure
from npulab.core.timing import Timing, benchmark, matmul_flop


@dataclass(frozen=True)
class MatmulResult:
    n: int
    dtype: str
    timing: Timing

    @property
    def gflops(self) -> float:
        return self.timing.rate(matmul_flop(self.n)) / 1e9

    def figure(self, label: str | None = None) -> Figure:
        """The throughput as a measured figure on the device it ran on, with the method in the note."""
        return self.timing.rate_figure(label or t("bench.matmul_figure", n=self.n, dtype=self.dtype), matmul_flop(self.n),
                                       "GFLOP/s", scale=1e9)


def run_matmul(device: Device, sizes: list[int], dtype: str = "float32", *, warmup: int = 3,
               repeats: int = 10, seed: int = 0) -> list[MatmulResult]:
    """Time ``a @ b`` for n×n matrices of each size in ``sizes`` on ``device``."""
    import torch

    torch_dtype = getattr(torch, dtype)
    generator = torch.Generator().manual_seed(seed)
    results = []
    for n in sizes:
        a = torch.randn(n, n, generator=generator, dtype=torch.float32).to(device.torch, torch_dtype)
        b = torch.randn(n, n, generator=generator, dtype=torch.float32).to(device.torch, torch_dtype)
        timing = benchmark(lambda a=a, b=b: a @ b, device, warmup=warmup, repeats=repeats, label=f"matmul {n}²")
        results.append(MatmulResult(n, dtype, timing))
        del a, b
    return results


def _int_list(text: str) -> list[int]:
    from npulab.core.cli import UsageError

    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UsageError(t("bench.sizes_usage", text=repr(text))) from None
    if not values or min(values) <= 0:
        raise UsageError(t("bench.sizes_usage", text=repr(text)))
    return values


def add_arguments(parser) -> None:
    parser.add_argument("--sizes", default="", help="逗号分隔的矩阵边长（默认：CPU 256,512,1024；加速器 1024,2048,4096,8192）")
    parser.add_argument("--dtype", default="float32", help="逗号分隔的数据类型，如 float32,bfloat16,float16")
    parser.add_argument("--repeats", type=int, default=10, help="计时重复次数（取中位数）")


def run(args) -> int:
    import json

    from npulab.bench.sweep import saturation_point
    from npulab.core.cli import UsageError
    from npulab.core.device import pick_device
    from npulab.core.sizes import problem_size

    if args.repeats < 1:  # the arguments first: a typo is answered before torch is imported
        raise UsageError(t("bench.repeats_usage"))
    given_sizes = _int_list(args.sizes) if args.sizes else None
    import torch

    device = pick_device(args.device or None)
    sizes = given_sizes or problem_size("matmul_sweep", device, show=False)["sizes"]
    dtypes = [d.strip() for d in args.dtype.split(",") if d.strip()]
    for dtype in dtypes:
        if not isinstance(getattr(torch, dtype, None), torch.dtype):
            raise UsageError(t("bench.unknown_dtype", dtype=repr(dtype)))
    rows = []
    for dtype in dtypes:
        for r in run_matmul(device, sizes, dtype, repeats=args.repeats):
            rows.append({"n": r.n, "dtype": dtype, "median_ms": r.timing.median * 1e3,
                         "spread": r.timing.spread, "gflops": r.gflops})
    saturation = {}
    for dtype in dtypes:
        points = [r for r in rows if r["dtype"] == dtype]
        n, gflops = saturation_point([r["n"] for r in points], [r["gflops"] for r in points])
        saturation[dtype] = {"n": n, "gflops": gflops}
    if args.json:
        print(json.dumps({"device": str(device), "repeats": args.repeats, "results": rows, "saturation": saturation},
                         ensure_ascii=False, indent=2))
    else:
        print(t("bench.matmul_device", device=device, repeats=args.repeats))
        for row in rows:
            print(f"  {row['dtype']:>9} n={row['n']:>5}: {row['median_ms']:9.3f} ms  {row['gflops']:10.1f} GFLOP/s")
        for dtype, point in saturation.items():
            print(t("bench.matmul_saturation", dtype=dtype, n=point["n"], gflops=f"{point['gflops']:.1f}"))
    return 0


def headline(results: list[MatmulResult]) -> tuple[MatmulResult, Best]:
    """The sweep's headline size, chosen by the lower end of each size's throughput interval (not by one median).

    ``Best.value`` is in FLOP/s; a size whose repeats were disturbed has a wide interval and cannot win by it.
    """
    best = robust_best([r.timing for r in results], [matmul_flop(r.n) for r in results])
    return results[best.index], best


def show_headline(results: list[MatmulResult], claim: str = "matmul_headline") -> tuple[MatmulResult, Best]:
    """Print which size is the sweep's headline, its interval and why (words chosen from the numbers); return it."""
    chosen, best = headline(results)
    lows = rate_lows([r.timing for r in results], [matmul_flop(r.n) for r in results])
    listed = ", ".join(f"n={r.n}: {low / 1e9:,.1f}" for r, low in zip(results, lows, strict=True))
    text = t("bench.headline", n=chosen.n, dtype=chosen.dtype, median=f"{best.value / 1e9:,.1f}",
             low=f"{best.low / 1e9:,.1f}", high=f"{best.high / 1e9:,.1f}", listed=listed)
    if not best.spread_ok:
        text += t("bench.headline_unsteady")
    show_verdict(text, best.record(claim, [f"{r.dtype} n={r.n}" for r in results], lows, text))
    return chosen, best
