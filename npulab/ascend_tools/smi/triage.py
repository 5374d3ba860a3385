"""Health, ECC and PCIe-error triage: which counters matter, the thresholds, and what to do next.

Thresholds and their origin:

- Health (``-t health``; also the Health column of ``npu-smi info``): ``OK`` is healthy; ``Warning`` is a
  minor alarm; ``Alarm``/``Critical`` are major/critical alarms; ``UNKNOWN`` means the device is absent or
  not started (hiascend npu-smi field tables, 300Ipro_015).
- ECC (``-t ecc``): a *double-bit* (multi-bit) error cannot be corrected — any count above 0 calls for a
  hardware check; *single-bit* errors are corrected — watch their rate (the seed article's rule of thumb:
  worth attention above about 1000 a day, which needs two readings a day apart); *isolated pages* are
  memory pages the driver has retired — a count that grows means the HBM is degrading (hiascend npu-smi ``-t ecc`` reference, npusmi_009 and neighbours).
- PCIe errors (``-t pcie-err``): every counter should be 0 on a healthy link; non-zero counters point at
  the slot, riser or signal quality (``ascend-dmi --sq``).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from npulab.core.i18n import t

SINGLE_BIT_PER_DAY = 1000  # seed article's rule of thumb (a rate, not a total)
LEVELS = ("ok", "warn", "fail")
_ERROR_COUNTER = re.compile(r"err|retry|lcrc|ecrc|fail|cnt|count")


@dataclass(frozen=True)
class Finding:
    """One observation: level ``ok``/``warn``/``fail``, where (NPU/chip), which field, its value, advice."""

    level: str
    where: str
    field: str
    value: object
    message: str

    def as_dict(self) -> dict:
        return asdict(self)


def _records(result: dict | None) -> list[dict]:
    if not result:
        return []
    nested = result.get("chips") or result.get("cards")
    top = {k: v for k, v in result.items() if k not in ("chips", "cards", "partial", "warnings")}
    return [{**top, **r} for r in nested] if nested else [top]


def _where(record: dict, default: str) -> str:
    npu, chip = record.get("npu_id"), record.get("chip_id")
    if npu is None and chip is None:
        return default
    return t("smi.where", npu=npu if npu is not None else "?", chip=chip if chip is not None else "?")


def health_findings(health: dict | None, where: str = "") -> list[Finding]:
    """Findings from ``-t health`` output (``health_status``, ``error_code``, ``error_information``)."""
    out = []
    for record in _records(health):
        status = record.get("health_status", record.get("health"))
        if status is None:
            continue
        place = _where(record, where)
        upper = str(status).upper()
        detail = " ".join(str(record[k]) for k in ("error_code", "error_information") if record.get(k))
        if upper == "OK":
            out.append(Finding("ok", place, "health_status", status, t("smi.health_ok")))
        elif upper == "WARNING" or "WARNING" in upper:
            out.append(Finding("warn", place, "health_status", status,
                               t("smi.health_warning", detail=t("smi.detail", detail=detail) if detail else "")))
        elif upper == "UNKNOWN":
            out.append(Finding("fail", place, "health_status", status, t("smi.health_unknown")))
        else:
            out.append(Finding("fail", place, "health_status", status,
                               t("smi.health_alarm", detail=t("smi.detail", detail=detail) if detail else "")))
    return out


def ecc_findings(ecc: dict | None, where: str = "") -> list[Finding]:
    """Findings from ``-t ecc`` counters (DDR and HBM, single/double bit, isolated pages)."""
    out = []
    for record in _records(ecc):
        place = _where(record, where)
        for key, value in record.items():
            if not isinstance(value, int) or key in ("npu_id", "chip_id", "chip_count"):
                continue
            if "double_bit" in key and "isolated" not in key:
                if value > 0:
                    out.append(Finding("fail", place, key, value, t("smi.ecc_double_bit")))
            elif "isolated" in key:
                if value > 0:
                    out.append(Finding("warn", place, key, value, t("smi.ecc_isolated")))
            elif "single_bit" in key and value > SINGLE_BIT_PER_DAY:
                out.append(Finding("warn", place, key, value,
                                   t("smi.ecc_single_bit", value=value, limit=SINGLE_BIT_PER_DAY)))
        if not any(f.where == place for f in out):
            out.append(Finding("ok", place, "ecc", 0, t("smi.ecc_ok")))
    return out


def pcie_findings(pcie: dict | None, where: str = "") -> list[Finding]:
    """Findings from ``-t pcie-err``: any non-zero error counter."""
    out = []
    for record in _records(pcie):
        place = _where(record, where)
        bad = {k: v for k, v in record.items()
               if isinstance(v, int) and v > 0 and _ERROR_COUNTER.search(k) and k not in ("chip_count", "card_count")}
        for key, value in bad.items():
            out.append(Finding("warn", place, key, value, t("smi.pcie_errors")))
        if not bad:
            out.append(Finding("ok", place, "pcie", 0, t("smi.pcie_ok")))
    return out


def worst(findings: list[Finding]) -> str:
    """The most severe level among ``findings`` (``ok`` when there are none)."""
    return max((f.level for f in findings), key=LEVELS.index, default="ok")
