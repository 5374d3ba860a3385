"""Memory bandwidth on the chosen device: device-to-device copy of a buffer, bytes read + written per second."""

from __future__ import annotations

from dataclasses import dataclass

from npulab.device import Device
from npulab.timing import Timing, benchmark


@dataclass(frozen=True)
class CopyResult:
    nbytes: int  # size of the buffer copied
    timing: Timing

    @property
    def gb_per_s(self) -> float:
        """Bandwidth counting the bytes read plus the bytes written (as ascend-dmi's d2d and STREAM copy do)."""
        return self.timing.rate(2 * self.nbytes) / 1e9


def device_copy_bandwidth(device: Device, nbytes: int, *, warmup: int = 2, repeats: int = 7) -> CopyResult:
    """Median bandwidth of ``dst.copy_(src)`` for a preallocated ``nbytes`` buffer on ``device``."""
    import torch

    n = max(1, nbytes // 4)
    src = torch.ones(n, dtype=torch.float32, device=device.torch)
    dst = torch.empty_like(src)
    timing = benchmark(lambda: dst.copy_(src), device, warmup=warmup, repeats=repeats, label=f"copy {n * 4} B")
    return CopyResult(n * 4, timing)


def add_arguments(parser) -> None:
    parser.add_argument("--mib", default="", help="逗号分隔的缓冲区大小（MiB；默认 CPU 16,64,256，加速器 64,256,1024）")
    parser.add_argument("--device", default="", choices=["", "cpu", "cuda", "npu"], help="指定设备（默认自动选择）")
    parser.add_argument("--repeats", type=int, default=7, help="计时重复次数（取中位数）")
    parser.add_argument("--json", action="store_true", help="输出 JSON")


def run(args) -> int:
    import json

    from npulab.bench.matmul import _int_list
    from npulab.cli import UsageError
    from npulab.device import by_device, pick_device

    if args.repeats < 1:
        raise UsageError("--repeats 须 ≥ 1")
    device = pick_device(args.device or None)
    sizes = _int_list(args.mib) if args.mib else by_device(device, cpu=[16, 64, 256], accelerator=[64, 256, 1024])
    rows = []
    for mib in sizes:
        r = device_copy_bandwidth(device, mib * 2**20, repeats=args.repeats)
        rows.append({"mib": mib, "median_ms": r.timing.median * 1e3, "gb_per_s": r.gb_per_s})
    if args.json:
        print(json.dumps({"device": str(device), "test": "d2d copy", "results": rows}, ensure_ascii=False, indent=2))
    else:
        print(f"设备：{device}，设备内拷贝（读 + 写字节数 / 中位时间，{args.repeats} 次重复）")
        for row in rows:
            print(f"  {row['mib']:>6} MiB: {row['median_ms']:9.3f} ms  {row['gb_per_s']:8.1f} GB/s")
    return 0
