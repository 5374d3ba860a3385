"""``npu-smi info -t <type>`` and ``npu-smi info -l``: the ``Label : value`` outputs.

Rules (from the documented examples kept in ``npulab/data/samples`` and the MindCluster collection guide):

- each line is ``Label : value`` split at the first colon (a value may hold colons, e.g. ``0000:61:00.0``),
  indented by spaces or a tab; some lines hold several pairs separated by ≥ 2 spaces
  (``Process id:207795  Process name:python``);
- a blank line separates the NPU-level block (``NPU ID``, ``Chip Count`` or ``Card Count``) from the per-chip
  or per-card blocks; ``Chip ID`` may open a chip block or close it, depending on the driver; a label that
  repeats also starts a new record;
- labels become keys with their unit: ``Memory Usage Rate(%)`` → ``memory_usage_rate_pct``; values become
  int/float where they are numbers, None for ``NA``, and stay text for ids, versions and names.

The result is a dict: the NPU-level fields, plus ``"chips"`` (or ``"cards"`` for ``-l``) when the output has
per-chip (per-card) blocks.
"""

from __future__ import annotations

import re

from npulab.ascend_tools.smi.common import (
    SmiParseError,
    SmiUnsupported,
    is_annotation,
    is_command_line,
    is_null,
    number,
    snake,
    unsupported_sentence,
)
from npulab.core.i18n import t

_PAIR = re.compile(r"^\s*(?P<label>[A-Za-z][^:|]*?)\s*:\s*(?P<value>.*?)\s*$")
_MORE = re.compile(r"\s{2,}(?=[A-Za-z][\w ()%/.-]*?\s*:)")
# keys whose values are identifiers or text even when they look like numbers (leading zeros, versions)
_TEXT_KEY = re.compile(r"(?:^|_)(?:serial|version|name|[vn]?die|bus|model|manufacturer|information|code|product|"
                       r"vendor|subsystem|date|mac|ip|type|info)(?:_|$)|^(?:board|pcb|class)_id$")


def typed(key: str, raw: str) -> int | float | str | None:
    """The value of ``raw`` for field ``key``: None for NA, a number where it is one, else the text."""
    if is_null(raw):
        return None
    if _TEXT_KEY.search(key):
        return raw.strip()
    value = number(raw)
    return raw.strip() if value is None else value


def paragraphs(text: str) -> list[list[tuple[str, str]]]:
    """The ``(key, raw value)`` pairs of ``text``, grouped by blank lines; other lines are skipped."""
    groups: list[list[tuple[str, str]]] = [[]]
    for line in text.splitlines():
        if not line.strip():
            if groups[-1]:
                groups.append([])
            continue
        if is_command_line(line) or is_annotation(line) or line.lstrip().startswith(("|", "+")):
            continue
        for segment in _MORE.split(line.strip()):
            match = _PAIR.match(segment)
            if match:
                groups[-1].append((snake(match["label"]), match["value"]))
    return [g for g in groups if g]


def records(text: str) -> list[dict]:
    """One dict per block; a blank line or a repeated key starts the next block."""
    out: list[dict] = []
    for group in paragraphs(text):
        current: dict = {}
        for key, raw in group:
            if key in current:
                out.append(current)
                current = {}
            current[key] = typed(key, raw)
        if current:
            out.append(current)
    return out


def parse_kv(text: str, what: str = "npu-smi info -t <type>") -> dict:
    """Parse any ``Label : value`` output; raise ``SmiUnsupported`` / ``SmiParseError`` (Chinese)."""
    sentence = unsupported_sentence(text)
    if sentence:
        raise SmiUnsupported(t("smi.query_unsupported", sentence=sentence))
    blocks = records(text)
    if not blocks:
        raise SmiParseError(t("smi.no_kv_lines", what=what))
    head = blocks[0]
    if len(blocks) == 1:
        return dict(head)
    counts = [k for k in head if k.endswith("_count") and k in ("chip_count", "card_count")]
    if counts and all(k in ("npu_id", "chip_count", "card_count") for k in head):
        out = dict(head)
        out["cards" if "card_count" in head else "chips"] = blocks[1:]
        return out
    return {"chips": blocks}


def all_keys(result: dict) -> set[str]:
    """Keys of the NPU-level fields and of every chip/card record."""
    keys = set(result)
    for name in ("chips", "cards"):
        for record in result.get(name, []) or []:
            keys.update(record)
    return keys - {"chips", "cards"}


def parse_board(text: str) -> dict:
    """``npu-smi info -t board -i <id> [-c <chip>]``: product, serial number, versions, board/PCB/BOM ids."""
    return parse_kv(text, "npu-smi info -t board -i <id>")


def parse_usages(text: str) -> dict:
    """``npu-smi info -t usages -i <id> [-c <chip>]``: memory/HBM capacity and usage rates in %."""
    return parse_kv(text, "npu-smi info -t usages -i <id>")


def parse_memory(text: str) -> dict:
    """``npu-smi info -t memory -i <id> [-c <chip>]``: DDR/HBM capacity, clock, temperature, manufacturer."""
    return parse_kv(text, "npu-smi info -t memory -i <id>")


def parse_health(text: str) -> dict:
    """``npu-smi info -t health -i <id> [-c <chip>]``: ``health_status`` plus error code and information."""
    return parse_kv(text, "npu-smi info -t health -i <id> -c <chip>")


def parse_ecc(text: str) -> dict:
    """``npu-smi info -t ecc -i <id> [-c <chip>]``: single/double-bit error and isolated-page counters."""
    return parse_kv(text, "npu-smi info -t ecc -i <id>")


def parse_temp(text: str) -> dict:
    """``npu-smi info -t temp -i <id> -c <chip>``: chip (and board sensor) temperatures."""
    return parse_kv(text, "npu-smi info -t temp -i <id> -c <chip>")


def parse_power(text: str) -> dict:
    """``npu-smi info -t power -i <id> -c <chip>``: power draw in W."""
    return parse_kv(text, "npu-smi info -t power -i <id> -c <chip>")


def parse_common(text: str) -> dict:
    """``npu-smi info -t common -i <id>``: usage rates, AI Core rated/current frequency, temperature, power."""
    return parse_kv(text, "npu-smi info -t common -i <id>")


def parse_pcie_err(text: str) -> dict:
    """``npu-smi info -t pcie-err -i <id> [-c <chip>]``: PCIe error counters."""
    return parse_kv(text, "npu-smi info -t pcie-err -i <id>")


def parse_phyid_remap(text: str) -> dict:
    """``npu-smi info -t phyid-remap -p <phy_id>``: physical id → logic id, NPU id and chip id."""
    return parse_kv(text, "npu-smi info -t phyid-remap -p <phy_id>")


def parse_list(text: str) -> dict:
    """``npu-smi info -l``: ``card_count`` and one record per card (NPU ID, product, serial, chip count).

    This lists cards; it is not the topology (that is ``-t topo``). The card count is ``card_count`` —
    counting lines that mention "NPU" or "Chip" (as the seed's diag.sh does) counts two lines per card.
    """
    parse_kv(text, "npu-smi info -l")  # raises for unsupported or empty input
    count, cards = None, []
    for block in records(text):
        count = block.pop("card_count", count)
        if block:
            cards.append(block)
    result = {"card_count": count, "cards": cards}
    declared = result.get("card_count")
    if isinstance(declared, int) and declared != len(result["cards"]):
        result["partial"] = True
        result["warnings"] = [t("smi.card_count_short", declared=declared, found=len(result["cards"]))]
    return result
