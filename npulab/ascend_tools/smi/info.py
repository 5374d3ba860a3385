"""``npu-smi info``: the default table (version line, two text rows per chip) and the process table.

Format rules this parser relies on (hiascend 300Ipro_015 and atlasdg_11_0151, and the captures in ``npulab/data/samples``), never on offsets:

- a table line starts with ``|`` and its cells are separated by ``|``; separator lines start with ``+``
  (``+===…`` before a new NPU, ``+---…`` before the next chip or die of the same NPU);
- two header rows name the columns: ``NPU  Name | Health | Power(W)  Temp(C)  Hugepages-Usage(page)`` and
  ``Chip [Device|Phy-ID] | Bus-Id | AICore(%)  Memory-Usage(MB)  [HBM-Usage(MB)]``; within a cell, columns
  are separated by ≥ 2 spaces. Columns come and go between products and driver versions, so values are
  matched to the header that is actually printed;
- each chip has an NPU row (id, name, health, power, temperature, hugepages) and a chip row (chip id,
  Bus-Id, AI Core %, memory, HBM); A3 products print two chips (dies) per NPU, the second with power ``-``;
- ``NA``/``-`` mean no value; ``used / total`` may lose its spaces; NPU ids need not start at 0;
- the process table (``NPU  Chip | Process id | Process name | Process memory(MB)``, or ``NPU ID`` on
  Ascend 950) lists one process per row or says ``No running processes found in NPU n``.

Input cut off mid-table yields a result with ``partial=True`` and a Chinese warning; text that is not this
table raises ``SmiParseError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from npulab.ascend_tools.smi.common import (
    SmiParseError,
    integer,
    is_annotation,
    is_command_line,
    join_pairs,
    number,
    real,
    split_columns,
    text_value,
    used_total,
)
from npulab.core.i18n import t

CHIP_FIELDS = (
    "npu_id", "chip_id", "phy_id", "name", "health", "power_w", "temp_c", "hugepages_used", "hugepages_total",
    "bus_id", "aicore_pct", "memory_used_mb", "memory_total_mb", "hbm_used_mb", "hbm_total_mb",
)
PROCESS_FIELDS = ("npu_id", "chip_id", "pid", "name", "memory_mb")
HEALTH_WORDS = frozenset({"OK", "WARNING", "ALARM", "CRITICAL", "UNKNOWN", "GENERAL WARNING",
                          "IMPORTANT WARNING", "URGENT WARNING"})

_BDF = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f]")
_SEPARATOR = re.compile(r"\+[=\-+|]*[=\-][=\-+|]*")
_VERSION = re.compile(r"npu-smi\s+(?P<smi>\S+)(?:.*?Version:\s*(?P<driver>\S+))?", re.I)
_IDLE = re.compile(r"No running processes found in NPU\s*(?P<npu>\d+)?", re.I)
_KNOWN_LABEL = re.compile(
    r"NPU|Name|Chip|Device|Phy-ID|Health|Bus-Id|Power\(W\)|Temp\(C\)|Hugepages-Usage\(page\)|AI ?Core\(%\)|"
    r"Memory-Usage\(MB\)|HBM-Usage\(MB\)", re.I)
# header label (letters only, lower case) → field; checked in order, by prefix
_CHIP_KEYS = (
    ("npu", "npu_id"), ("name", "name"), ("health", "health"), ("power", "power_w"), ("temp", "temp_c"),
    ("hugepages", "hugepages"), ("phyid", "phy_id"), ("device", "phy_id"), ("chip", "chip_id"),
    ("busid", "bus_id"), ("aicore", "aicore_pct"), ("memory", "memory"), ("hbm", "hbm"),
)
_PROCESS_KEYS = {"npu": "npu_id", "npuid": "npu_id", "chip": "chip_id", "chipid": "chip_id", "processid": "pid",
                 "processname": "name", "processmemorymb": "memory_mb", "processmemory": "memory_mb"}
# what an Atlas A2 table prints, used only when the input starts below the header rows
_DEFAULT_HEADER = [["NPU", "Name"], ["Health"], ["Power(W)", "Temp(C)", "Hugepages-Usage(page)"]]
_DEFAULT_HEADER2 = [["Chip"], ["Bus-Id"], ["AICore(%)", "Memory-Usage(MB)", "HBM-Usage(MB)"]]


@dataclass
class Chip:
    """One chip (one die on A3): the NPU row and the chip row merged; absent columns are None."""

    npu_id: int | None = None
    chip_id: int | None = None
    phy_id: int | None = None
    name: str | None = None
    health: str | None = None
    power_w: float | None = None
    temp_c: int | float | None = None
    hugepages_used: int | None = None
    hugepages_total: int | None = None
    bus_id: str | None = None
    aicore_pct: int | float | None = None
    memory_used_mb: int | None = None
    memory_total_mb: int | None = None
    hbm_used_mb: int | None = None
    hbm_total_mb: int | None = None
    extra: dict[str, str] = field(default_factory=dict)  # columns this parser does not know, by header label

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in CHIP_FIELDS}

    @property
    def hbm_free_mb(self) -> int | None:
        """HBM not in use (None when the table has no HBM column)."""
        if self.hbm_total_mb is None or self.hbm_used_mb is None:
            return None
        return self.hbm_total_mb - self.hbm_used_mb


@dataclass
class Process:
    """One row of the process table."""

    npu_id: int | None
    chip_id: int | None
    pid: int | None
    name: str | None
    memory_mb: int | None
    extra: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in PROCESS_FIELDS}


@dataclass
class SmiInfo:
    """The parsed ``npu-smi info`` table."""

    smi_version: str | None = None
    driver_version: str | None = None
    chips: list[Chip] = field(default_factory=list)
    processes: list[Process] = field(default_factory=list)
    idle_npus: list[int] = field(default_factory=list)  # "No running processes found in NPU n"
    partial: bool = False
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The JSON form; ``partial`` and ``warnings`` appear only when the input was incomplete or odd."""
        out = {"smi_version": self.smi_version, "driver_version": self.driver_version,
               "chips": [c.to_dict() for c in self.chips], "processes": [p.to_dict() for p in self.processes]}
        if self.partial:
            out["partial"] = True
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out

    def npu_ids(self) -> list[int]:
        """NPU ids in the order printed (they need not start at 0 or be contiguous)."""
        return list(dict.fromkeys(c.npu_id for c in self.chips if c.npu_id is not None))

    def summary(self) -> str:
        """One Chinese sentence: how many NPUs and chips, which names, how many processes."""
        names = t("smi.list_separator").join(dict.fromkeys(c.name for c in self.chips if c.name)) or t("smi.unknown_model")
        state = t("smi.partial") if self.partial else ""
        return t("smi.info_summary", npus=len(self.npu_ids()), chips=len(self.chips), names=names,
                 processes=len(self.processes), state=state)


def _cells(line: str) -> tuple[list[str], bool]:
    """Cells of a table line and whether the line is closed by ``|`` (a cut line is not)."""
    body = line.strip()
    closed = len(body) > 1 and body.endswith("|")
    body = body[1:-1] if closed else body[1:]
    return body.split("|"), closed


def header_labels(cell: str) -> list[str]:
    """Column titles inside one header cell (``"Power(W)    Temp(C)"`` → two titles)."""
    labels: list[str] = []
    for part in split_columns(cell):
        words = part.split()
        if len(words) > 1 and all(_KNOWN_LABEL.fullmatch(w) for w in words):
            labels.extend(words)  # whitespace compressed to single spaces
        else:
            labels.append(part)
    return labels


def _positions(cell: str, labels: list[str]) -> list[int]:
    out, start = [], 0
    for label in labels:
        at = cell.find(label, start)
        out.append(at if at >= 0 else start)
        start = (at if at >= 0 else start) + len(label)
    return out


def cell_values(cell: str, labels: list[str], header_cell: str = "") -> list[str]:
    """The values of one data cell, one per header label (``""`` where nothing is printed)."""
    n = len(labels)
    if n == 0:
        return []
    if n == 1:
        return [cell.strip()]
    joined = join_pairs(cell)
    for tokens in (split_columns(joined), joined.split()):
        if len(tokens) == n:
            return tokens
    # fall back on alignment: each value belongs to the header title that starts nearest to it
    starts = _positions(header_cell, labels) if header_cell else [i * (len(cell) // n) for i in range(n)]
    found = [(m.start(), join_pairs(m.group())) for m in re.finditer(r"\S+\s*/\s*\S+|\S+", cell)]
    values: list[list[str]] = [[] for _ in labels]
    for at, token in found:
        index = min(range(n), key=lambda i: (abs(starts[i] - at), i))
        values[index].append(token)
    return [" ".join(v) for v in values]


def _chip_key(label: str) -> str | None:
    letters = re.sub(r"[^a-z]", "", label.lower())
    return next((key for prefix, key in _CHIP_KEYS if letters.startswith(prefix)), None)


def _row_fields(cells: list[str], header: list[list[str]], header_cells: list[str],
                keyer) -> tuple[dict[str, str], dict[str, str]]:
    known: dict[str, str] = {}
    extra: dict[str, str] = {}
    for i, cell in enumerate(cells):
        labels = header[i] if i < len(header) else []
        raw_header = header_cells[i] if i < len(header_cells) else ""
        for label, value in zip(labels, cell_values(cell, labels, raw_header), strict=True):
            key = keyer(label)
            if key and key not in known:
                known[key] = value
            else:
                extra[label] = value
    return known, extra


def _row_kind(cells: list[str], waiting_for_chip: bool) -> str:
    """``"npu"`` for the NPU row of a chip (2nd cell = health), ``"chip"`` for the chip row (2nd cell = Bus-Id)."""
    second = cells[1].strip() if len(cells) > 1 else ""
    if _BDF.fullmatch(second) or second.upper() in ("NA", "-", "N/A"):
        return "chip"
    if second.upper() in HEALTH_WORDS:
        return "npu"
    return "chip" if waiting_for_chip else "npu"


def _looks_like_data_row(cells: list[str]) -> bool:
    """A row read without a header must look like npu-smi's: an id, then a health word or a Bus-Id."""
    if len(cells) < 2 or not re.match(r"\s*\d+(\s|$)", cells[0]):
        return False
    second = cells[1].strip()
    return bool(_BDF.fullmatch(second)) or second.upper() in HEALTH_WORDS or second.upper() in ("NA", "-", "N/A")


def _make_chip(fields: dict[str, str], extra: dict[str, str], warnings: list[str]) -> Chip:
    hp_used, hp_total = used_total(fields.get("hugepages"))
    mem_used, mem_total = used_total(fields.get("memory"))
    hbm_used, hbm_total = used_total(fields.get("hbm"))
    chip = Chip(
        npu_id=integer(fields.get("npu_id")), chip_id=integer(fields.get("chip_id")),
        phy_id=integer(fields.get("phy_id")), name=text_value(fields.get("name")),
        health=text_value(fields.get("health")), power_w=real(fields.get("power_w")),
        temp_c=number(fields.get("temp_c")), hugepages_used=hp_used, hugepages_total=hp_total,
        bus_id=text_value(fields.get("bus_id")), aicore_pct=number(fields.get("aicore_pct")),
        memory_used_mb=mem_used, memory_total_mb=mem_total, hbm_used_mb=hbm_used, hbm_total_mb=hbm_total,
        extra=extra,
    )
    raw_id = fields.get("npu_id", "")
    if chip.npu_id is None and raw_id.strip():
        warnings.append(t("smi.bad_npu_id", value=repr(raw_id.strip())))
    return chip


def _make_process(cells: list[str], header: list[list[str]], header_cells: list[str]) -> Process:
    known, extra = _row_fields(cells, header, header_cells,
                               lambda label: _PROCESS_KEYS.get(re.sub(r"[^a-z]", "", label.lower())))
    return Process(integer(known.get("npu_id")), integer(known.get("chip_id")), integer(known.get("pid")),
                   text_value(known.get("name")), integer(known.get("memory_mb")), extra)


def parse_info(text: str) -> SmiInfo:
    """Parse the text of ``npu-smi info``; raise ``SmiParseError`` (Chinese) when it is not that table."""
    info = SmiInfo()
    warn = info.warnings
    header1 = header2 = proc_header = None
    cells1: list[str] = []
    cells2: list[str] = []
    proc_cells: list[str] = []
    section = None  # "chips" | "procs"
    npu_fields: dict[str, str] | None = None
    npu_extra: dict[str, str] = {}
    waiting_for_chip = False
    last_line = None  # "sep" | "row": the kind of the last table line seen
    seen_table = False
    skipped = 0  # table-like rows rejected because no header says how to read them
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or is_command_line(stripped) or is_annotation(stripped):
            continue
        if _SEPARATOR.fullmatch(stripped):
            last_line, seen_table = "sep", True
            continue
        if not stripped.startswith("|"):
            continue
        seen_table, last_line = True, "row"
        cells, closed = _cells(stripped)
        if not closed:
            info.partial = True
            warn.append(t("smi.row_not_closed", line=repr(stripped[:60])))
        joined = " ".join(cells)
        first = cells[0].strip()
        version = _VERSION.search(joined)
        if version and first.lower().startswith("npu-smi"):
            info.smi_version, info.driver_version = version["smi"], version["driver"]
            continue
        if re.search(r"Process\s+id", joined, re.I) and re.match(r"NPU", first, re.I):
            proc_header, proc_cells, section = [header_labels(c) for c in cells], cells, "procs"
            continue
        if re.match(r"NPU\b", first) and re.search(r"Name|Health", joined):
            header1, cells1, section = [header_labels(c) for c in cells], cells, "chips"
            continue
        if re.match(r"Chip\b", first) and section == "chips":
            header2, cells2 = [header_labels(c) for c in cells], cells
            continue
        if section == "procs":
            idle = _IDLE.search(joined)
            if idle:
                if idle["npu"] is not None:
                    info.idle_npus.append(int(idle["npu"]))
                continue
            if len(cells) < 2:
                warn.append(t("smi.bad_process_row", line=repr(stripped[:60])))
                continue
            info.processes.append(_make_process(cells, proc_header, proc_cells))
            continue
        if header1 is None and section in (None, "chips") and not _looks_like_data_row(cells):
            skipped += 1  # without a header, only rows shaped like npu-smi's NPU or chip rows count
            continue
        if section is None:  # the input starts below the header rows
            warn.append(t("smi.no_header_row"))
            section = "chips"
        if len(cells) < 2:
            warn.append(t("smi.bad_table_row", line=repr(stripped[:60])))
            continue
        kind = _row_kind(cells, waiting_for_chip)
        expected = len((header1 if kind == "npu" else header2) or _DEFAULT_HEADER)
        if len(cells) < expected:
            info.partial = True
            warn.append(t("smi.short_row", cells=len(cells), expected=expected))
        if kind == "npu":
            if waiting_for_chip:  # the previous NPU row never got its chip row
                info.chips.append(_make_chip(npu_fields, dict(npu_extra), warn))
                info.partial = True
                warn.append(t("smi.npu_without_chip"))
            npu_fields, npu_extra = _row_fields(cells, header1 or _DEFAULT_HEADER, cells1, _chip_key)
            waiting_for_chip = True
        else:
            chip_fields, chip_extra = _row_fields(cells, header2 or _DEFAULT_HEADER2, cells2, _chip_key)
            if npu_fields is None:
                warn.append(t("smi.chip_without_npu"))
            merged = {**(npu_fields or {}), **chip_fields}
            info.chips.append(_make_chip(merged, {**npu_extra, **chip_extra}, warn))
            waiting_for_chip = False
    if skipped and header1 is None and header2 is None and proc_header is None and not info.chips:
        raise SmiParseError(t("smi.not_info_rows", skipped=skipped))
    if skipped:
        warn.append(t("smi.skipped_rows", skipped=skipped))
    if not seen_table or (section is None and not info.chips):
        raise SmiParseError(t("smi.not_info_table"))
    if waiting_for_chip:
        info.chips.append(_make_chip(npu_fields, dict(npu_extra), warn))
        info.partial = True
        warn.append(t("smi.last_npu_without_chip"))
    if last_line == "row":
        info.partial = True
        warn.append(t("smi.no_closing_separator"))
    if header1 is not None and not info.chips:
        info.partial = True
        warn.append(t("smi.header_only"))
    if info.smi_version is None:
        warn.append(t("smi.no_version_row"))
    return info
