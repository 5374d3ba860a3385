"""AllReduce benchmark: algorithm and bus bandwidth per message size, on whatever backend is present.

``python -m npulab bench allreduce --nproc N`` starts N processes on this host (spawned, one per device: hccl
on NPUs, nccl on CUDA, gloo on the CPU), all-reduces float32 buffers of each size and reports, per size, the
median over repeats of the slowest rank's time. Bandwidths follow nccl-tests (``npulab.hw.collectives``):
algbw = bytes / time, busbw = algbw · 2(n−1)/n. The α–β ring model of chapter 02 is fitted to the measured
times (least squares on relative error) and printed next to them.
"""

from __future__ import annotations

import json
import math
import os
import socket
import statistics
import sys
import tempfile
import time
from dataclasses import asdict, dataclass

from npulab.core.cli import EXIT_FAIL, UsageError
from npulab.core.i18n import t
from npulab.hw.collectives import algbw, allreduce_time, busbw

MAX_CPU_PROCESSES = 16
DEFAULT_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Row:
    """One message size: the median time (slowest rank) and the nccl-tests bandwidths."""

    nbytes: int
    seconds: float
    repeats: int
    algbw: float  # bytes/s
    busbw: float  # bytes/s


@dataclass(frozen=True)
class Report:
    """A benchmark run: where it ran, the rows, and the α–β fit."""

    backend: str
    device: str
    nproc: int
    rows: tuple[Row, ...]
    alpha_s: float
    beta_bytes_per_s: float

    def model_seconds(self, nbytes: int) -> float:
        """The fitted ring model's time for ``nbytes``."""
        return allreduce_time(nbytes, self.nproc, self.alpha_s, self.beta_bytes_per_s, "ring")

    def to_dict(self) -> dict:
        rows = [asdict(r) | {"model_seconds": self.model_seconds(r.nbytes)} for r in self.rows]
        return {"backend": self.backend, "device": self.device, "nproc": self.nproc, "rows": rows,
                "fit": {"alpha_s": self.alpha_s, "beta_bytes_per_s": self.beta_bytes_per_s, "algorithm": "ring"}}


def default_repeats(nbytes: int) -> int:
    """More repeats for small messages, whose times are short and noisy."""
    return 30 if nbytes <= 1 << 20 else 10 if nbytes <= 16 << 20 else 5


def fit_ring(nbytes: list[int], seconds: list[float], n: int) -> tuple[float, float]:
    """α (s) and β (bytes/s) of the ring model t = 2(n−1)·α + 2(n−1)/n · bytes/β from measured times.

    Two-point estimate: the smallest message is almost all latency, so it gives α; the largest is almost all
    transfer, so what remains of its time after the α term gives β. Both coefficients come from
    ``npulab.hw.collectives.allreduce_time`` itself.

    >>> alpha, beta = fit_ring([1024, 1 << 24], [1e-4, 1e-4 + 2 * (1 << 24) / 2 / 1e9], 2)
    >>> round(alpha * 1e6, 1), round(beta / 1e9, 3)
    (50.0, 1.0)
    """
    if len(nbytes) < 2 or len(nbytes) != len(seconds):
        raise ValueError(t("bench.fit_two_sizes"))
    pairs = sorted(zip(nbytes, seconds, strict=True))
    t_small, (large, t_large) = pairs[0][1], pairs[-1]
    per_alpha = allreduce_time(0, n, 1.0, 1.0, "ring")  # 2(n−1) latency terms
    per_byte = allreduce_time(1, n, 0.0, 1.0, "ring")  # 2(n−1)/n seconds per byte at β = 1 B/s
    alpha = t_small / per_alpha
    transfer = t_large - per_alpha * alpha
    if transfer <= 0:  # the largest message is no slower than the smallest: no bandwidth term to see
        transfer = t_large
    return alpha, per_byte * large / transfer


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, nproc: int, kind: str, sizes: list[int], repeats: int | None, port: int, out: str) -> None:
    """One process of the benchmark (started by ``torch.multiprocessing``)."""
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    import torch
    import torch.distributed as dist

    from npulab.core.device import pick_device, synchronize
    from npulab.pytorch import distributed

    if kind == "cpu":
        torch.set_num_threads(1)
    else:
        pick_device(kind)  # imports torch_npu where the NPU is used
    device = distributed.bind_device(kind, rank)
    dist.init_process_group(distributed.backend_for(kind), rank=rank, world_size=nproc)
    rows = []
    for nbytes in sizes:
        buffer = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
        dist.all_reduce(buffer)  # correctness: a sum of ones is the process count
        synchronize(device)
        if not bool((buffer == nproc).all()):
            raise RuntimeError(t("bench.allreduce_wrong", nbytes=nbytes, nproc=nproc))
        buffer.zero_()  # zeros stay zeros, however many times they are summed
        count = repeats or default_repeats(nbytes)
        for _ in range(2):  # warm-up
            dist.all_reduce(buffer)
        times = []
        for _ in range(count):
            dist.barrier()
            synchronize(device)
            start = time.perf_counter()
            dist.all_reduce(buffer)
            synchronize(device)
            times.append(time.perf_counter() - start)
        slowest = torch.tensor(times, dtype=torch.float32, device=device)  # float32: every backend reduces it
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)  # a collective is as slow as its slowest rank
        rows.append((nbytes, statistics.median(slowest.cpu().tolist()), count))
        del buffer
    if rank == 0:
        with open(out, "w", encoding="utf-8") as f:
            json.dump({"device": str(device), "rows": rows}, f)
    dist.destroy_process_group()


def run_allreduce(nproc: int, sizes: list[int], *, device: str | None = None, repeats: int | None = None,
                  timeout_s: float = DEFAULT_TIMEOUT_S) -> Report:
    """Measure AllReduce with ``nproc`` local processes for every size in ``sizes`` (bytes, multiples of 4)."""
    from npulab.core.device import pick_device

    kind = pick_device(device).kind
    _check(nproc, sizes, kind)
    import torch.multiprocessing as mp

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        context = mp.start_processes(_worker, args=(nproc, kind, sizes, repeats, _free_port(), out), nprocs=nproc,
                                     join=False, start_method="spawn")
        deadline = time.monotonic() + timeout_s
        try:
            while not context.join(timeout=1.0):
                if time.monotonic() > deadline:
                    raise RuntimeError(t("bench.allreduce_timeout", seconds=f"{timeout_s:.0f}"))
        except mp.ProcessException as err:  # a worker failed: keep its last line, not the whole traceback
            last = str(err).strip().splitlines()[-1] if str(err).strip() else type(err).__name__
            raise RuntimeError(t("bench.allreduce_failed", index=err.error_index, last=last)) from None
        finally:
            for process in context.processes:
                if process.is_alive():
                    process.terminate()
        with open(out, encoding="utf-8") as f:
            raw = json.load(f)
    rows = tuple(Row(b, s, r, algbw(b, s), busbw(algbw(b, s), nproc, "allreduce")) for b, s, r in raw["rows"])
    alpha, beta = fit_ring([r.nbytes for r in rows], [r.seconds for r in rows], nproc)
    from npulab.pytorch.distributed import backend_for

    return Report(backend_for(kind), raw["device"], nproc, rows, alpha, beta)


def _check(nproc: int, sizes: list[int], kind: str) -> None:
    if nproc < 2:
        raise UsageError(t("bench.nproc_min", nproc=nproc))
    if kind == "cpu" and nproc > MAX_CPU_PROCESSES:
        raise UsageError(t("bench.nproc_cpu", most=MAX_CPU_PROCESSES, cores=os.cpu_count(), nproc=nproc))
    if kind != "cpu":
        import torch

        count = getattr(torch, kind).device_count()
        if nproc > count:
            raise UsageError(t("bench.nproc_devices", nproc=nproc, count=count, kind=kind))
    if len(sizes) < 2:
        raise UsageError(t("bench.two_sizes"))
    bad = [s for s in sizes if s < 4 or s % 4]
    if bad:
        raise UsageError(t("bench.size_multiple", bad=bad))


def parse_size(text: str) -> int:
    """``"4K"``, ``"16M"``, ``"1G"`` (binary prefixes) or a plain number of bytes."""
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    try:
        value = float(number) * scale
    except ValueError:
        raise UsageError(t("bench.size_unknown", text=repr(text))) from None
    if not value.is_integer() or value <= 0:
        raise UsageError(t("bench.size_positive", text=repr(text)))
    return int(value)


def default_sizes(accelerator: bool) -> list[int]:
    """1 KiB … 16 MiB on CPU, 1 KiB … 1 GiB on accelerators, in steps of ×4."""
    top = 1 << 30 if accelerator else 16 << 20
    return [1 << k for k in range(10, int(math.log2(top)) + 1, 2)]


def add_arguments(parser) -> None:
    parser.add_argument("--nproc", type=int, default=2, help="进程数（每个进程一个设备；CPU 上用 gloo）")
    parser.add_argument("--sizes", default="", help="逗号分隔的消息大小，如 1K,64K,4M（默认：CPU 1K–16M，加速器 1K–1G）")
    parser.add_argument("--repeats", type=int, default=0, help="每个大小的计时次数（默认按大小：30 / 10 / 5）")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, help="整个基准的超时（秒）")


def _gb(value: float) -> str:
    return f"{value / 1e9:8.3f}"


def run(args) -> int:
    from npulab.core.device import pick_device

    if args.repeats < 0:
        raise UsageError(t("bench.repeats_auto"))
    if args.timeout <= 0:
        raise UsageError(t("bench.timeout_positive"))
    if args.nproc < 2:
        raise UsageError(t("bench.nproc_min", nproc=args.nproc))
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()] if args.sizes else None
    device = pick_device(args.device or None)
    sizes = sizes or default_sizes(device.is_accelerator)
    try:
        report = run_allreduce(args.nproc, sizes, device=args.device or None, repeats=args.repeats or None,
                               timeout_s=args.timeout)
    except RuntimeError as err:
        print(t("bench.error", error=err), file=sys.stderr)
        return EXIT_FAIL
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(t("bench.allreduce_head", nproc=report.nproc, backend=report.backend, device=report.device))
    print(t("bench.allreduce_method"))
    print(f"{t('bench.col_bytes'):>12} {t('bench.col_median_us'):>12} {'algbw GB/s':>10} {'busbw GB/s':>10} "
          f"{t('bench.col_model_us'):>10}")
    for r in report.rows:
        print(f"{r.nbytes:>12} {r.seconds * 1e6:>12.1f} {_gb(r.algbw):>10} {_gb(r.busbw):>10} {report.model_seconds(r.nbytes) * 1e6:>10.1f}")
    print(t("bench.allreduce_fit", alpha=f"{report.alpha_s * 1e6:.1f}", beta=f"{report.beta_bytes_per_s / 1e9:.3f}"))
    return 0


OUTLIER_FACTOR = 3.0  # a size whose median time is this many times both neighbours' was disturbed
FLAT_FACTOR = 1.5  # below the knee, times within this factor of each other count as "flat"
HIGHER_FACTOR = 1.1  # a busbw more than 10 % above the largest message's counts as higher


def observations(report: dict) -> list[str]:
    """What the rows of a report (``Report.to_dict()``) show, worded from them: outliers, the flat small-message
    part below the knee n·α·β, and whether MiB-sized messages reach a higher bus bandwidth than the largest one.

    Each row is one median (no interval), so the thresholds are wide and the sentences say "median".
    """
    rows, n, fit = report["rows"], report["nproc"], report["fit"]
    times = [r["seconds"] for r in rows]
    out, outliers = [], set()
    for i in range(1, len(rows) - 1):
        if times[i] > OUTLIER_FACTOR * max(times[i - 1], times[i + 1]):
            outliers.add(i)
            out.append(t("bench.obs_outlier", nbytes=rows[i]["nbytes"], time=f"{times[i] * 1e6:.0f}",
                         before=f"{times[i - 1] * 1e6:.0f}", after=f"{times[i + 1] * 1e6:.0f}",
                         ratio=f"{times[i] / max(times[i - 1], times[i + 1]):.1f}"))
    knee = n * fit["alpha_s"] * fit["beta_bytes_per_s"]
    small = [times[i] for i, r in enumerate(rows) if r["nbytes"] <= knee and i not in outliers]
    if len(small) < 2:
        out.append(t("bench.obs_few_small", knee=f"{knee:,.0f}", count=len(small)))
    else:
        spread = max(small) / min(small)
        shape = t("bench.obs_flat") if spread <= FLAT_FACTOR else t("bench.obs_not_flat")
        out.append(t("bench.obs_small", knee=f"{knee:,.0f}", count=len(small), low=f"{min(small) * 1e6:.0f}",
                     high=f"{max(small) * 1e6:.0f}", spread=f"{spread:.2f}", shape=shape))
    largest = rows[-1]
    mib = [r for r in rows[:-1] if r["nbytes"] >= 1 << 20]
    if mib:
        best = max(mib, key=lambda r: r["busbw"])
        if best["busbw"] > HIGHER_FACTOR * largest["busbw"]:
            out.append(t("bench.obs_cache", nbytes=best["nbytes"], busbw=f"{best['busbw'] / 1e9:.3f}",
                         largest=largest["nbytes"], largest_busbw=f"{largest['busbw'] / 1e9:.3f}"))
        else:
            out.append(t("bench.obs_no_cache", busbw=f"{best['busbw'] / 1e9:.3f}", nbytes=best["nbytes"],
                         largest_busbw=f"{largest['busbw'] / 1e9:.3f}"))
    return out
