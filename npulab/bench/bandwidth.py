"""Memory bandwidth on the chosen device, measured the way ascend-dmi does: size sweep, repeats, median, saturation.

- ``device_copy_bandwidth``: device-to-device copy of a buffer, counting bytes read + written (STREAM's
  convention for its copy kernel; ascend-dmi does not document how it counts d2d bytes). On a CPU this is host
  memory bandwidth.
- ``host_device_bandwidth``: host → device (h2d) or device → host (d2h) copies from *pinned* (page-locked) or
  *pageable* host memory, counting the bytes moved once. On an NPU or GPU this crosses PCIe (or HCCS on A3);
  on a CPU there is no such link, so the function refuses instead of reporting a meaningless number.
- ``run_sweep``: the same measurement over a range of sizes; ``Sweep.saturation()`` is where the curve flattens.

Every measurement uses ``npulab.core.timing.benchmark``: warm-up calls, device synchronisation before each clock
read, repeats, median. Small buffers are copied ``copies`` times per timed call so one call lasts long enough
to time (the result divides by ``copies``).
"""

from __future__ import annotations

from dataclasses import dataclass

from npulab.bench.sweep import geometric_sizes, saturation_point
from npulab.core.device import Device
from npulab.core.i18n import t
from npulab.core.provenance import Figure
from npulab.core.timing import Timing, benchmark

DIRECTIONS = ("h2d", "d2h")
TARGET_BYTES = 8 * 2**20  # small buffers: repeat the copy inside one timed call until ~8 MiB have moved


def host_device_on_cpu() -> str:
    """Why there is no host↔device bandwidth on a CPU, in the reader's language."""
    return t("bench.host_device_on_cpu")


def __getattr__(name: str):
    """``HOST_DEVICE_ON_CPU`` (the lessons import it): the sentence in the reader's language when it is imported."""
    if name == "HOST_DEVICE_ON_CPU":
        return host_device_on_cpu()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class CopyResult:
    nbytes: int  # size of the buffer copied
    timing: Timing
    copies: int = 1  # copies per timed call

    @property
    def moved(self) -> int:
        """Bytes per timed call, counting the bytes read plus the bytes written (STREAM's convention for a copy)."""
        return 2 * self.nbytes * self.copies

    @property
    def gb_per_s(self) -> float:
        """Bandwidth counting the bytes read plus the bytes written (STREAM's convention for a copy)."""
        return self.timing.rate(self.moved) / 1e9

    def figure(self, label: str | None = None) -> Figure:
        """The copy bandwidth (read + write bytes) as a measured figure on its device."""
        return self.timing.rate_figure(label or t("bench.copy_figure", mib=f"{self.nbytes / 2**20:g}"),
                                       2 * self.nbytes * self.copies, "GB/s", scale=1e9)


@dataclass(frozen=True)
class TransferResult:
    nbytes: int
    direction: str  # "h2d" | "d2h"
    pinned: bool
    timing: Timing
    copies: int = 1

    @property
    def moved(self) -> int:
        """Bytes per timed call across the host–device link (each byte counted once)."""
        return self.nbytes * self.copies

    @property
    def gb_per_s(self) -> float:
        """Bytes moved across the host–device link per second (each byte counted once)."""
        return self.timing.rate(self.moved) / 1e9

    def figure(self, label: str | None = None) -> Figure:
        """The link bandwidth as a measured figure on its device."""
        pinned = t("bench.pinned") if self.pinned else t("bench.pageable")
        return self.timing.rate_figure(label or t("bench.transfer_figure", direction=self.direction,
                                                  mib=f"{self.nbytes / 2**20:g}", memory=pinned),
                                       self.nbytes * self.copies, "GB/s", scale=1e9)


def copies_for(nbytes: int, target: int = TARGET_BYTES, cap: int = 256) -> int:
    """How many copies per timed call so that about ``target`` bytes move (1 for large buffers)."""
    return max(1, min(cap, target // max(1, nbytes)))


def device_copy_bandwidth(device: Device, nbytes: int, *, warmup: int = 2, repeats: int = 7,
                          copies: int = 1) -> CopyResult:
    """Median bandwidth of ``dst.copy_(src)`` for a preallocated ``nbytes`` buffer on ``device``."""
    import torch

    n = max(1, nbytes // 4)
    src = torch.ones(n, dtype=torch.float32, device=device.torch)
    dst = torch.empty_like(src)

    def copy() -> None:
        for _ in range(copies):
            dst.copy_(src)

    timing = benchmark(copy, device, warmup=warmup, repeats=repeats, label=f"copy {n * 4} B")
    return CopyResult(n * 4, timing, copies)


def _buffers(device: Device, nbytes: int, pinned: bool):
    """A host buffer (pinned or pageable) and a device buffer of ``nbytes`` bytes."""
    import torch

    host = torch.ones(nbytes, dtype=torch.uint8, pin_memory=pinned)
    return host, torch.empty(nbytes, dtype=torch.uint8, device=device.torch)


def host_device_bandwidth(device: Device, nbytes: int, direction: str = "h2d", *, pinned: bool = True,
                          warmup: int = 2, repeats: int = 7, copies: int = 1) -> TransferResult:
    """Median h2d or d2h bandwidth for ``nbytes``; ValueError (Chinese) on a CPU, where it means nothing."""
    if direction not in DIRECTIONS:
        raise ValueError(t("bench.direction", direction=repr(direction)))
    if not device.is_accelerator:
        raise ValueError(host_device_on_cpu())
    host, dev = _buffers(device, nbytes, pinned)
    src, dst = (host, dev) if direction == "h2d" else (dev, host)

    def transfer() -> None:
        for _ in range(copies):
            dst.copy_(src, non_blocking=pinned)  # asynchronous only from/to pinned memory; benchmark syncs

    kind = "pinned" if pinned else "pageable"
    timing = benchmark(transfer, device, warmup=warmup, repeats=repeats, label=f"{direction} {kind} {nbytes} B")
    return TransferResult(nbytes, direction, pinned, timing, copies)


def size_text(nbytes: int) -> str:
    """A buffer size as a reader wants it: KiB below 1 MiB, MiB above."""
    return f"{nbytes / 2**10:g} KiB" if nbytes < 2**20 else f"{nbytes / 2**20:g} MiB"


def cache_floor(device: Device) -> int | None:
    """The smallest d2d buffer read outside the caches: on a CPU the last-level cache (source and destination then
    take twice the cache; None when unknown), on an accelerator 0 (its copies go to HBM or device memory)."""
    if device.is_accelerator:
        return 0
    from npulab.core.machine import last_level_cache_bytes

    return last_level_cache_bytes()


@dataclass
class Sweep:
    """One test measured over increasing sizes (ascend-dmi's method)."""

    test: str  # "d2d", "h2d pinned", "d2h pageable" …
    device: str
    results: list  # CopyResult | TransferResult, by increasing size

    @property
    def sizes(self) -> list[int]:
        return [r.nbytes for r in self.results]

    @property
    def gb_per_s(self) -> list[float]:
        return [r.gb_per_s for r in self.results]

    def saturation(self, fraction: float = 0.9, min_bytes: int = 0) -> tuple[int, float]:
        """(smallest size reaching ``fraction`` of the best bandwidth, its median bandwidth), judged by the lower end
        of each size's interval over the repeats (``comparison.rate_lows``): one size whose repeats a load burst
        flattered can neither set the best nor reach it early. Only sizes of at least ``min_bytes`` count."""
        from npulab.core.comparison import rate_lows

        kept = [r for r in self.results if r.nbytes >= min_bytes]
        if not kept:
            raise ValueError(t("bench.no_size_above", floor=min_bytes))
        lows = rate_lows([r.timing for r in kept], [r.moved for r in kept])
        size, _ = saturation_point([r.nbytes for r in kept], lows, fraction)
        return size, next(r.gb_per_s for r in kept if r.nbytes == size)

    def saturation_text(self, floor: int | None) -> str:
        """The saturation point in words, judged only at sizes of at least ``floor`` (``cache_floor``): a CPU's cache
        flatters smaller copies; None when the cache size could not be read."""
        if floor is None:
            size, value = self.saturation()
            return t("bench.saturation_unknown_cache", size=size_text(size), value=f"{value:.1f}")
        if not any(r.nbytes >= floor for r in self.results):
            return t("bench.all_in_cache", size=size_text(floor))
        size, value = self.saturation(min_bytes=floor)
        where = t("bench.saturation_floor", size=size_text(floor)) if floor else ""
        return t("bench.saturation", where=where, size=size_text(size), value=f"{value:.1f}")

    def to_dict(self) -> dict:
        size, value = self.saturation()
        return {"test": self.test, "device": self.device,
                "points": [{"bytes": r.nbytes, "median_ms": r.timing.median * 1e3, "spread": r.timing.spread,
                            "copies": r.copies, "gb_per_s": r.gb_per_s} for r in self.results],
                "saturation_bytes": size, "saturation_gb_per_s": value, "best_gb_per_s": max(self.gb_per_s)}


def run_sweep(device: Device, test: str, sizes: list[int], *, pinned: bool = True, warmup: int = 2,
              repeats: int = 5) -> Sweep:
    """Measure ``test`` (``"d2d"``, ``"h2d"`` or ``"d2h"``) at every size; small sizes repeat the copy per call."""
    results = []
    for nbytes in sizes:
        copies = copies_for(nbytes)
        if test == "d2d":
            results.append(device_copy_bandwidth(device, nbytes, warmup=warmup, repeats=repeats, copies=copies))
        else:
            results.append(host_device_bandwidth(device, nbytes, test, pinned=pinned, warmup=warmup,
                                                 repeats=repeats, copies=copies))
    name = test if test == "d2d" else f"{test} {'pinned' if pinned else 'pageable'}"
    return Sweep(name, str(device), results)


def add_arguments(parser) -> None:
    parser.add_argument("--mib", default="", help="逗号分隔的缓冲区大小（MiB；默认 CPU 16,64,256，加速器 64,256,1024）")
    parser.add_argument("--tests", default="d2d,h2d,d2h", help="要测的项目：d2d、h2d、d2h（逗号分隔）")
    parser.add_argument("--host-memory", default="both", choices=["both", "pinned", "pageable"],
                        help="h2d/d2h 使用的主机内存：锁页（pinned）、可分页（pageable）或两者")
    parser.add_argument("--sweep", action="store_true", help="像 ascend-dmi 一样从 4 KiB 起按 4 倍步进扫描尺寸，报告饱和点")
    parser.add_argument("--repeats", type=int, default=7, help="计时重复次数（取中位数）")


def run(args) -> int:
    import json

    from npulab.bench.matmul import _int_list
    from npulab.core.cli import UsageError
    from npulab.core.device import pick_device
    from npulab.core.sizes import problem_size

    if args.repeats < 1:
        raise UsageError(t("bench.repeats_usage"))
    tests = [t.strip() for t in args.tests.split(",") if t.strip()]
    if not tests or set(tests) - {"d2d", *DIRECTIONS}:
        raise UsageError(t("bench.tests_usage", tests=repr(args.tests)))
    given_mib = _int_list(args.mib) if args.mib else None  # checked before torch is imported
    device = pick_device(args.device or None)
    mib = given_mib or problem_size("copy_bandwidth", device, show=False)["mib"]
    sizes = (geometric_sizes(4 * 2**10, max(mib) * 2**20) if args.sweep else [m * 2**20 for m in mib])
    pinned_modes = {"both": [True, False], "pinned": [True], "pageable": [False]}[args.host_memory]
    notes = []
    if not device.is_accelerator and set(tests) & set(DIRECTIONS):
        notes.append(host_device_on_cpu() + t("bench.skipped_h2d"))
    sweeps = []
    for test in tests:
        if test == "d2d":
            sweeps.append(run_sweep(device, "d2d", sizes, repeats=args.repeats))
        elif device.is_accelerator:
            sweeps += [run_sweep(device, test, sizes, pinned=p, repeats=args.repeats) for p in pinned_modes]
    if args.json:
        d2d = next((s for s in sweeps if s.test == "d2d"), None)
        rows = [{"mib": r.nbytes / 2**20, "median_ms": r.timing.median * 1e3, "gb_per_s": r.gb_per_s}
                for r in (d2d.results if d2d else [])]
        print(json.dumps({"device": str(device), "test": "d2d copy", "results": rows,
                          "sweeps": [s.to_dict() for s in sweeps], "notes": notes}, ensure_ascii=False, indent=2))
        return 0
    print(t("bench.bandwidth_device", device=device, repeats=args.repeats))
    if not device.is_accelerator:
        print(t("bench.cpu_d2d"))
    for note in notes:
        print(note)
    for sweep in sweeps:
        floor = cache_floor(device) if sweep.test == "d2d" else 0
        print(t("bench.sweep_line", test=sweep.test, saturation=sweep.saturation_text(floor), best=f"{max(sweep.gb_per_s):.1f}"))
        for r in sweep.results:
            print(f"  {r.nbytes / 2**20:>10.4g} MiB: {r.timing.median * 1e3:9.3f} ms  {r.gb_per_s:8.1f} GB/s")
    return 0
