"""Cost model of collective communication (α–β) and the nccl-tests bandwidth definitions.

α–β model: sending m bytes over one link takes α + m/β (α: per-message latency in seconds, β: link
bandwidth in bytes/s). For AllReduce of ``nbytes`` on ``n`` devices:

- ring: reduce-scatter then all-gather around a ring, 2(n−1) steps of nbytes/n each:
  T = 2(n−1)·α + 2(n−1)/n · nbytes/β. Each device uses one outgoing link at a time.
- mesh (one-shot, full mesh such as 8 cards on HCCS): every device sends a different nbytes/n chunk
  to each of the n−1 others at the same time, once to reduce-scatter and once to all-gather:
  T = 2α + 2·nbytes/(n·β). It needs all n−1 links to run concurrently at β each.
- halving_doubling (recursive halving/doubling, Rabenseifner): 2·log2(n) steps,
  T = 2·log2(n)·α + 2(n−1)/n · nbytes/β; n must be a power of two.

HCCL implements Ring, Mesh and halving-doubling style algorithms over HCCS, RoCE and PCIe (hiascend
"CANN 开发" overview, https://www.hiascend.com/cann/develop); which one it picks depends on topology and size. The formulas are the textbook
ones (Thakur, Rabenseifner & Gropp, 2005), not HCCL's implementation.

nccl-tests definitions (NVIDIA/nccl-tests ``doc/PERFORMANCE.md``): algorithm bandwidth
``algbw = size / time``; bus bandwidth ``busbw = algbw × factor`` with factor 2(n−1)/n for AllReduce,
(n−1)/n for ReduceScatter, AllGather and AllToAll, and 1 for Broadcast, Reduce and SendRecv. busbw is
comparable with a link's bandwidth whatever n is.
"""

from __future__ import annotations

import math

from npulab.core.i18n import t

ALGORITHMS = ("ring", "mesh", "halving_doubling")
_BUS_FACTORS = {
    "allreduce": lambda n: 2 * (n - 1) / n,
    "reducescatter": lambda n: (n - 1) / n,
    "allgather": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "sendrecv": lambda n: 1.0,
}


def _check(nbytes: float, n: int, alpha_s: float, beta_bytes_per_s: float) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(t("collectives.n", n=repr(n)))
    if nbytes < 0:
        raise ValueError(t("collectives.nbytes", nbytes=repr(nbytes)))
    if alpha_s < 0:
        raise ValueError(t("collectives.alpha", alpha=repr(alpha_s)))
    if beta_bytes_per_s <= 0:
        raise ValueError(t("collectives.beta", beta=repr(beta_bytes_per_s)))


def allreduce_time(nbytes: float, n: int, alpha_s: float, beta_bytes_per_s: float, algorithm: str = "ring") -> float:
    """Seconds for an AllReduce of ``nbytes`` per device on ``n`` devices under the α–β model.

    >>> round(allreduce_time(100e6, 8, 0.0, 25e9, "ring") * 1e3, 3)   # 2·7/8·100 MB / 25 GB/s
    7.0
    """
    _check(nbytes, n, alpha_s, beta_bytes_per_s)
    if algorithm not in ALGORITHMS:
        raise ValueError(t("collectives.algorithm", choices=t("cube.list_separator").join(ALGORITHMS), algorithm=repr(algorithm)))
    if n == 1:
        return 0.0
    if algorithm == "ring":
        return 2 * (n - 1) * alpha_s + 2 * (n - 1) / n * nbytes / beta_bytes_per_s
    if algorithm == "mesh":
        return 2 * alpha_s + 2 * nbytes / (n * beta_bytes_per_s)
    steps = math.log2(n)
    if not steps.is_integer():
        raise ValueError(t("collectives.power_of_two", n=n))
    return 2 * steps * alpha_s + 2 * (n - 1) / n * nbytes / beta_bytes_per_s


def algbw(nbytes: float, seconds: float) -> float:
    """Algorithm bandwidth (nccl-tests): bytes per device / time, in bytes per second."""
    if seconds <= 0:
        raise ValueError(t("collectives.seconds", seconds=repr(seconds)))
    if nbytes < 0:
        raise ValueError(t("collectives.nbytes", nbytes=repr(nbytes)))
    return nbytes / seconds


def bus_factor(n: int, op: str = "allreduce") -> float:
    """The nccl-tests factor from algbw to busbw: 2(n−1)/n for AllReduce, (n−1)/n for AllGather …"""
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(t("collectives.n", n=repr(n)))
    if op not in _BUS_FACTORS:
        raise ValueError(t("collectives.op", choices=t("cube.list_separator").join(_BUS_FACTORS), op=repr(op)))
    return _BUS_FACTORS[op](n)


def busbw(algbw: float, n: int, op: str = "allreduce") -> float:
    """Bus bandwidth (nccl-tests): algbw × factor (2(n−1)/n for AllReduce); same unit as ``algbw``."""
    return algbw * bus_factor(n, op)
