"""Peak throughput of the device a lesson runs on, with its provenance — or None when unknown.

A percentage of peak is only meaningful against a peak someone can check. Accelerators get the
vendor figure from the data file (reported); a CPU gets a derived peak from its core count, clock
and SIMD width, with the formula shown; an NPU without a sourced FP32 peak gets None, and the
lesson says so instead of inventing one.
"""

from __future__ import annotations

import os
import re

from npulab.core.device import Device
from npulab.core.i18n import t
from npulab.core.provenance import Figure, derive, reported

# device-name pattern → reported FP32 peak figure id. The H100 figure is the SXM5 one: PCIe and NVL boards have
# other clocks and SM counts, and no sourced figure here, so they get no peak (and no percentage).
_FP32_PEAKS = {
    r"\bH(100|200)\b(?!.*\b(PCIe|NVL)\b)": "nvidia.h100_sxm.fp32_tflops",
    r"\bA100\b": "nvidia.a100.fp32_tflops",
}


def physical_cores(cpuinfo: str, allowed: set[int] | None = None) -> int | None:
    """Distinct (physical id, core id) pairs among the logical CPUs in ``allowed`` (all when None).

    None when /proc/cpuinfo has no ``core id`` lines (some VMs and architectures), so the caller can say that it
    fell back to counting logical CPUs.
    """
    cores, processor, package = set(), None, "0"
    for line in cpuinfo.splitlines() + [""]:
        key, _, value = line.partition(":")
        key, value = key.strip().lower(), value.strip()
        if key == "processor":
            processor, package = int(value), "0"
        elif key == "physical id":
            package = value
        elif key == "core id" and processor is not None and (allowed is None or processor in allowed):
            cores.add((package, value))
    return len(cores) or None


def read_cpuinfo() -> str:
    """The text of /proc/cpuinfo ("" where there is none)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def clock_and_flags(cpuinfo: str) -> tuple[float | None, set[str]]:
    """(first ``cpu MHz`` value, first ``flags``/``Features`` set) of a /proc/cpuinfo text."""
    mhz, flags = None, set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip().lower()
        try:
            if key == "cpu mhz" and mhz is None:
                mhz = float(value)
            elif key in ("flags", "features") and not flags:
                flags = set(value.split())
        except ValueError:
            pass
    return mhz, flags


def cpu_vendor_family(cpuinfo: str) -> tuple[str | None, int | None]:
    """``vendor_id`` and ``cpu family`` of the first processor in ``/proc/cpuinfo`` (None where absent)."""
    vendor, family = None, None
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key == "vendor_id" and vendor is None:
            vendor = value.strip()
        elif key == "cpu family" and family is None and value.strip().isdigit():
            family = int(value.strip())
    return vendor, family


# AMD family 0x19 (Zen 3 / Zen 4): Zen 4 runs AVX-512 on its two 256-bit FMA pipes, so 16 FP32 lanes per cycle, not 32
# (AMD Zen 4 software optimization guide; Zen 5 desktop/server, family 0x1A, has full 512-bit datapaths)
_AMD_AVX512_ON_256_BIT = {0x19}


def cpu_fp32_flop_per_cycle(flags: set[str], vendor: str | None = None, family: int | None = None) -> int:
    """FP32 FLOP per cycle per core, assuming two FMA pipes: vector lanes × 2 (FMA) × 2 (pipes).

    AVX-512 on AMD Zen 4 executes on 2 × 256-bit FMA pipes: 32 FLOP/cycle like AVX2. Some Intel Xeons (one 512-bit
    FMA unit per core) also reach only 32; cpuinfo cannot tell, so Intel AVX-512 counts the two-unit 64.
    """
    if "avx512f" in flags and vendor == "AuthenticAMD" and family in _AMD_AVX512_ON_256_BIT:
        lanes = 8
    elif "avx512f" in flags:
        lanes = 16
    elif "avx2" in flags and "fma" in flags:
        lanes = 8
    elif "asimd" in flags:  # aarch64 NEON
        lanes = 4
    else:
        lanes = 4
    return lanes * 2 * 2


def fp32_peak(device: Device) -> Figure | None:
    """FP32 peak of ``device`` in GFLOP/s as a reported or derived figure, or None if not known."""
    if device.kind == "cpu":
        cpuinfo = read_cpuinfo()
        mhz, flags = clock_and_flags(cpuinfo)
        vendor, family = cpu_vendor_family(cpuinfo)
        if not mhz:
            return None
        allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
        physical = physical_cores(cpuinfo, allowed)
        if physical:
            cores, what = physical, t("peaks.physical_cores")
            note = t("peaks.physical_note")
        else:
            cores = len(allowed) if allowed is not None else (os.cpu_count() or 1)
            what = t("peaks.logical_cpus")
            note = t("peaks.logical_note")
        return derive(t("peaks.cpu_label"), "cores * ghz * flop_per_cycle", "GFLOP/s",
                      note=t("peaks.cpu_note", what=what, note=note),
                      cores=cores, ghz=mhz / 1e3, flop_per_cycle=cpu_fp32_flop_per_cycle(flags, vendor, family))
    for pattern, figure_id in _FP32_PEAKS.items():
        if re.search(pattern, device.name):
            fig = reported(figure_id)
            return Figure(fig.label, fig.value * 1e3, "GFLOP/s", fig.kind, fig.origin, fig.note)
    return None
