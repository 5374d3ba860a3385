"""The Hello-NPU matmul benchmark: GFLOP/s of square FP32 matrix products on a device."""

from __future__ import annotations

from dataclasses import dataclass

from npulab.device import Device
from npulab.timing import Timing, benchmark, matmul_flop


@dataclass(frozen=True)
class MatmulResult:
    n: int
    dtype: str
    timing: Timing

    @property
    def gflops(self) -> float:
        return self.timing.rate(matmul_flop(self.n)) / 1e9


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
