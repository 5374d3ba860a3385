"""Sample utilisation, HBM, power and temperature by running ``npu-smi info`` at a fixed interval.

Each sample runs ``npu-smi info`` once and parses it with ``parse_info``, so the monitor reads exactly the
fields the course explains (instead of following the scrolling ``npu-smi info watch`` stream).
"""

from __future__ import annotations

import csv
import datetime as dt
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from npulab.ascend_tools.smi.common import SmiParseError
from npulab.ascend_tools.smi.info import parse_info
from npulab.ascend_tools.smi.runner import Runner, run
from npulab.core.i18n import t

FIELDS = ("time", "npu_id", "chip_id", "phy_id", "aicore_pct", "hbm_used_mb", "hbm_total_mb",
          "memory_used_mb", "memory_total_mb", "power_w", "temp_c", "health")


def sample(npu_smi: str, runner: Runner = run) -> list[dict]:
    """One sample: a row per chip with the FIELDS above; raises ``SmiParseError`` when npu-smi fails."""
    result = runner([npu_smi, "info"])
    if not result.ok:
        raise SmiParseError(t("smi.info_failed", npu_smi=npu_smi, code=result.returncode, stderr=result.stderr.strip()[:200]))
    info = parse_info(result.stdout)
    stamp = dt.datetime.now().isoformat(timespec="seconds")
    return [{"time": stamp, **{k: getattr(c, k) for k in FIELDS[1:]}} for c in info.chips]


def samples(npu_smi: str, count: int, interval: float, runner: Runner = run,
            sleep: Callable[[float], None] = time.sleep) -> Iterator[list[dict]]:
    """``count`` samples, ``interval`` seconds apart."""
    for i in range(count):
        if i:
            sleep(interval)
        yield sample(npu_smi, runner)


def write_csv(path: Path, rows: list[dict]) -> None:
    """Write the sampled rows (all samples) to a CSV file with a header line."""
    with Path(path).open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(FIELDS))
        writer.writeheader()
        writer.writerows(rows)
