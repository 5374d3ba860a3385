"""The machine and the load a measurement ran on, as one line under the numbers.

A timing printed on a page means little without the machine and what else ran on it: the same cell moves by up to
10× on a busy two-core machine. ``LoadWatch`` notes the load average when a measurement starts, and ``footer()``
prints one line at its end: CPU model and cores, the device, the 1-minute load average at start and end, the date.
The load average counts runnable processes; above the number of cores, the measurement shared the CPU.

>>> watch = LoadWatch("cpu")
>>> watch.footer(print_it=False).startswith("测量环境：")
True
"""

from __future__ import annotations

import datetime
import os
import sys
from dataclasses import dataclass, field

from npulab.core.device import Device, cpu_name
from npulab.core.i18n import t

FOOTER_KEY = "npulab/machine"  # key of the structured copy in a display output's metadata


def load_average() -> float | None:
    """The 1-minute load average (None where the system has none, e.g. Windows)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def last_level_cache_bytes(root: str = "/sys/devices/system/cpu/cpu0/cache") -> int | None:
    """Size of the CPU's last-level cache in bytes, from Linux sysfs (None where it cannot be read)."""
    from pathlib import Path

    best: tuple[int, int] | None = None
    for index in Path(root).glob("index*"):
        try:
            level = int((index / "level").read_text())
            text = (index / "size").read_text().strip().upper()
        except (OSError, ValueError):
            continue
        scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        digits = text.rstrip("KMG")
        if digits.isdigit() and (best is None or level > best[0]):
            best = (level, int(digits) * scale)
    return best[1] if best else None


def torch_threads() -> int | None:
    """Intra-op threads torch computes with in this process (None when torch is not imported): fewer than the cores
    when ``OMP_NUM_THREADS`` limits it, e.g. two notebooks sharing a two-core machine in the course's CI."""
    torch = sys.modules.get("torch")
    return torch.get_num_threads() if torch is not None else None


def _load_text(value: float | None) -> str:
    return t("footer.unknown") if value is None else f"{value:.2f}"


@dataclass
class LoadWatch:
    """Started when a measurement starts; ``footer()`` at its end says where and under what load it ran."""

    device: Device | str = "cpu"
    start_load: float | None = field(default_factory=load_average)
    end_load: float | None = None  # read once, by the first ``record()`` / ``footer()``: the measurement's end

    def record(self) -> dict:
        if self.end_load is None:
            self.end_load = load_average()
        device = self.device.torch if isinstance(self.device, Device) else str(self.device)
        return {"cpu": cpu_name(), "cores": os.cpu_count(), "threads": torch_threads(), "device": device,
                "load_start": self.start_load,
                "load_end": self.end_load, "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")}

    def busy(self) -> str | None:
        """Why the measurement shared the CPU (load average above the cores at its start or end), or None."""
        r = self.record()
        loads = [x for x in (r["load_start"], r["load_end"]) if x is not None]
        cores = r["cores"] or 1
        if not loads or max(loads) <= cores:
            return None
        return t("footer.busy", load=f"{max(loads):.2f}", cores=cores)

    def footer(self, print_it: bool = True) -> str | None:
        """One line: machine, device, load average at start and end, date (also stored as output metadata).

        Printed, it returns None, so a cell that ends with ``watch.footer()`` shows the line once (a returned string
        would be shown a second time, quoted, as the cell's result); ``print_it=False`` returns the text instead.
        """
        r = self.record()
        busy = [x for x in (r["load_start"], r["load_end"]) if x is not None]
        shared = t("footer.shared", cores=r["cores"]) if busy and max(busy) > (r["cores"] or 1) else ""
        threads = r["threads"]
        limited = t("footer.threads", threads=threads) if threads and r["cores"] and threads < r["cores"] else ""
        text = t("footer.line", cpu=r["cpu"], limited=limited, device=r["device"], start=_load_text(r["load_start"]),
                 end=_load_text(r["load_end"]), shared=shared, date=r["date"])
        if print_it:
            from npulab.core.comparison import show_verdict

            show_verdict(text, {"claim": "machine", **r}, key=FOOTER_KEY)
            return None
        return text
