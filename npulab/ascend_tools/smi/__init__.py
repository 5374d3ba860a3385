"""Parsers for real npu-smi output, so its tables can be read, compared and plotted on any machine.

- ``parse_info``      ``npu-smi info`` (all table layouts; process table)      → ``SmiInfo``
- ``parse_topo``      ``npu-smi info -t topo``                                 → ``Topology``
- ``parse_mapping``   ``npu-smi info -m``                                      → ``{"chips": [...]}``
- ``parse_list``      ``npu-smi info -l`` (cards, not topology)                → ``{"card_count", "cards"}``
- ``parse_watch``     ``npu-smi info watch``                                   → ``{"columns", "rows"}``
- ``parse_board`` / ``parse_usages`` / ``parse_memory`` / ``parse_health`` / ``parse_ecc`` / ``parse_temp`` /
  ``parse_power`` / ``parse_common`` / ``parse_pcie_err`` / ``parse_phyid_remap``  the ``Label : value`` queries → dict
- ``parse_help``      ``npu-smi info -h``: sub-commands and the ``-t`` types      → dict
- ``templates.parse_template_info``  ``npu-smi info -t template-info`` (vNPU templates, or none) → ``TemplateInfo``
- ``detect(text)`` says which output a text is; ``parse(text)`` detects and parses.

Every parser raises only ``SmiParseError`` (its subclass ``SmiUnsupported`` when npu-smi says the device does
not support the query); input cut off mid-table gives a result marked ``partial`` with Chinese warnings.
Command line: ``python -m npulab smi parse FILE|- [--json]``, ``smi watch``, ``smi report DIR``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from npulab.ascend_tools.smi.common import (
    SmiParseError,
    SmiUnsupported,
    is_annotation,
    is_command_line,
    unsupported_sentence,
)
from npulab.ascend_tools.smi.info import Chip, Process, SmiInfo, parse_info
from npulab.ascend_tools.smi.kv import (
    all_keys,
    parse_board,
    parse_common,
    parse_ecc,
    parse_health,
    parse_kv,
    parse_list,
    parse_memory,
    parse_pcie_err,
    parse_phyid_remap,
    parse_power,
    parse_temp,
    parse_usages,
)
from npulab.ascend_tools.smi.mapping import logic_ids, parse_mapping
from npulab.ascend_tools.smi.queries import parse_help
from npulab.ascend_tools.smi.topo import Topology, expand_cpu_list, parse_topo
from npulab.ascend_tools.smi.watch import parse_watch
from npulab.core.i18n import t

PARSERS: dict[str, Callable[[str], object]] = {
    "info": parse_info, "topo": parse_topo, "mapping": parse_mapping, "list": parse_list, "watch": parse_watch,
    "board": parse_board, "usages": parse_usages, "memory": parse_memory, "health": parse_health,
    "ecc": parse_ecc, "temp": parse_temp, "power": parse_power, "pcie-err": parse_pcie_err,
    "phyid-remap": parse_phyid_remap, "common": parse_common, "help": parse_help, "kv": parse_kv,
}
KINDS = (*PARSERS, "unsupported")
_TOPO_LINE = re.compile(r"^\s*[A-Za-z][A-Za-z_]*\d+\s+(?:X|[A-Z][A-Z_]*|[A-Za-z][A-Za-z_]*\d+)(?:\s|$)")


def _kv_kind(keys: set[str]) -> str:
    def has(*parts: str) -> bool:
        return any(any(p in k for p in parts) for k in keys)

    if has("chip_physical_id", "chip_logic_id"):
        return "phyid-remap"
    if has("curfreq") or (has("freq") and has("usage_rate") and has("power")):
        return "common"
    if "card_count" in keys:
        return "list"
    if has("bit_error", "isolated_pages", "err_cnt"):
        return "ecc"
    if has("health_status") or {"error_code", "error_information"} & keys:
        return "health"
    if has("usage_rate"):
        return "usages"
    if has("board_id", "pcb_id", "bom_id", "chip_type", "firmware_version", "software_version", "product_name"):
        return "board"
    if has("clock_speed", "capacity"):
        return "memory"
    if has("pcie", "lcrc", "ecrc", "retry"):
        return "pcie-err"
    if has("temperature", "temp"):
        return "temp"
    if has("power"):
        return "power"
    return "kv"


_BINARY = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f\ufffd]")


def _binary_share(text: str) -> float:
    """Share of characters that no npu-smi text contains (undecodable bytes, control characters; ESC allowed)."""
    sample = text[:65536]
    return len(_BINARY.findall(sample)) / max(len(sample), 1)


_LABEL_PAIR = re.compile(r"^\s*[A-Za-z][\w ()%/.-]*?\s*:")


def _mostly_pairs(lines: list[str]) -> bool:
    """Generic ``Label : value`` text (no field npu-smi is known for): at least 2 lines and 80 % of them pairs."""
    pairs = sum(1 for ln in lines if _LABEL_PAIR.match(ln))
    return pairs >= 2 and pairs >= 0.8 * len(lines)


def detect(text: str) -> str:
    """Which npu-smi output ``text`` is: one of ``KINDS``; ``SmiParseError`` (Chinese) when none."""
    if not isinstance(text, str) or not text.strip():
        raise SmiParseError(t("smi.empty_input"))
    if _binary_share(text) > 0.05:
        raise SmiParseError(t("smi.binary_input"))
    if unsupported_sentence(text):
        return "unsupported"
    if re.search(r"Usage:\s*npu-smi", text):
        return "help"
    if "ascend-dmi" in text and "npu-smi" not in text:
        raise SmiParseError(t("smi.dmi_output"))
    lines = [ln for ln in text.splitlines() if ln.strip() and not is_command_line(ln) and not is_annotation(ln)]
    if any(ln.lstrip().startswith("|") and re.search(r"Health|Bus-Id|Process\s+id|npu-smi|No running", ln)
           for ln in lines):
        return "info"
    if any(re.search(r"NpuID", ln, re.I) for ln in lines):
        return "watch"
    if any(re.search(r"NPU\s+ID", ln, re.I) and re.search(r"Logic\s+ID", ln, re.I) and ":" not in ln
           for ln in lines):
        return "mapping"
    if any(_TOPO_LINE.match(ln) and ":" not in ln for ln in lines):
        return "topo"
    if any(ln.lstrip().startswith("|") for ln in lines) and any(ln.lstrip().startswith("+") for ln in lines):
        return "info"
    try:
        kind = _kv_kind(all_keys(parse_kv(text)))
    except SmiParseError:
        kind = None
    if kind is not None and (kind != "kv" or _mostly_pairs(lines)):
        return kind
    raise SmiParseError(t("smi.unrecognised"))


def parse(text: str, kind: str | None = None) -> tuple[str, object]:
    """Detect (unless ``kind`` is given) and parse ``text``; returns ``(kind, result)``."""
    kind = kind or detect(text)
    if kind == "unsupported":
        raise SmiUnsupported(t("smi.query_unsupported", sentence=unsupported_sentence(text)))
    if kind not in PARSERS:
        raise SmiParseError(t("smi.unknown_kind", kind=repr(kind), kinds=", ".join(PARSERS)))
    return kind, PARSERS[kind](text)


def as_json(result: object) -> object:
    """A parse result as plain JSON data (dataclasses via their ``to_dict``)."""
    return result.to_dict() if hasattr(result, "to_dict") else result


def build_parser(subparsers, name: str) -> None:
    """Register ``python -m npulab smi …`` (see ``npulab.ascend_tools.smi.cli``)."""
    from npulab.ascend_tools.smi.cli import build_parser as _build

    _build(subparsers, name)


__all__ = [
    "Chip", "KINDS", "PARSERS", "Process", "SmiInfo", "SmiParseError", "SmiUnsupported", "Topology", "as_json",
    "detect", "expand_cpu_list", "logic_ids", "parse", "parse_board", "parse_common", "parse_ecc", "parse_health", "parse_info",
    "parse_help", "parse_kv", "parse_list", "parse_mapping", "parse_memory", "parse_pcie_err", "parse_phyid_remap",
    "parse_power", "parse_temp", "parse_topo", "parse_usages", "parse_watch",
]
