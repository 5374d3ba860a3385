"""``npu-smi info -t topo``: the NPU-to-NPU link matrix, each NPU's CPU affinity and the legend.

The output looks like ``nvidia-smi topo -m``: a header row of column labels (``NPU0 … NPU7`` and, on newer
products, other endpoints such as ``NIC0``), then one row per NPU with the link type to every column
(``X`` = itself, ``HCCS``, ``PIX``, ``PHB``, ``SYS``, ``SIO``, ``HCCS_SW``, ``UB`` …) and, where printed, a
``CPU Affinity`` column, followed by a legend. Rows are read by whitespace, never by character offset.
On products without the query npu-smi prints one sentence instead (``SmiUnsupported``).
Note that ``npu-smi info -l`` is *not* the topology: it lists cards (hiascend npusmi_005: ``-l`` is the card list, ``-t topo`` the link matrix).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from npulab.ascend_tools.smi.common import SmiParseError, SmiUnsupported, is_null, split_columns, unsupported_sentence
from npulab.core.i18n import t

_LABEL = re.compile(r"[A-Za-z][A-Za-z_]*\d+")  # NPU0, NPU15, NIC0 …
_CPU_LIST = re.compile(r"\d+(?:-\d+)?(?:,\d+(?:-\d+)?)*")  # 0-23 / 144-167 / 0-23,48-71
_LEGEND = re.compile(r"^\s*(?P<key>[A-Za-z_#]+)\s*=\s*(?P<text>.*?)\s*$")
_EXTRA_WORDS = {"CPU", "NUMA", "AFFINITY", "ID"}


@dataclass
class Topology:
    """The parsed matrix: ``links[(a, b)]`` is the link type from row ``a`` to column ``b`` (a ≠ b)."""

    devices: list[str]
    links: dict[tuple[str, str], str]
    cpu_affinity: dict[str, str | None]
    legend: dict[str, str]
    columns: list[str] = field(default_factory=list)  # every matrix column (the devices, then e.g. NICs)
    partial: bool = False
    warnings: list[str] = field(default_factory=list)

    def link(self, a: str, b: str) -> str | None:
        """Link type between ``a`` and ``b`` (None when not in the matrix)."""
        return self.links.get((a, b))

    def link_counts(self) -> Counter:
        """How many ordered device pairs use each link type (columns that are not devices excluded)."""
        names = set(self.devices)
        return Counter(kind for (a, b), kind in self.links.items() if a in names and b in names)

    def is_full_mesh(self, kind: str = "HCCS") -> bool:
        """True when every ordered pair of distinct devices is joined by ``kind``."""
        n = len(self.devices)
        return n > 1 and self.link_counts().get(kind, 0) == n * (n - 1)

    def asymmetric_pairs(self) -> list[tuple[str, str]]:
        """Pairs whose two directions disagree (a sign of a damaged or hand-edited matrix)."""
        return [(a, b) for (a, b), kind in self.links.items()
                if a < b and (b, a) in self.links and self.links[(b, a)] != kind]

    def cpus(self, device: str) -> list[int]:
        """The CPU ids of ``device``'s affinity list (``"144-167"`` → 144 … 167); empty when unknown."""
        return expand_cpu_list(self.cpu_affinity.get(device))

    def to_dict(self) -> dict:
        """JSON form: the links as a nested matrix ``{"NPU0": {"NPU1": "HCCS", …}, …}``."""
        matrix: dict[str, dict[str, str]] = {}
        for (a, b), kind in self.links.items():
            matrix.setdefault(a, {})[b] = kind
        out = {"devices": self.devices, "columns": self.columns, "links": matrix,
               "cpu_affinity": self.cpu_affinity, "legend": self.legend}
        if self.partial:
            out["partial"] = True
        if self.warnings:
            out["warnings"] = self.warnings
        return out

    def summary(self) -> str:
        """One Chinese sentence describing the matrix."""
        counts = self.link_counts()
        kinds = t("smi.list_separator").join(f"{k} × {v}" for k, v in counts.most_common())
        mesh = t("smi.topo_full_mesh") if self.is_full_mesh() else ""
        return t("smi.topo_summary", devices=len(self.devices), links=len(self.links), kinds=kinds or t("smi.none"),
                 mesh=mesh)


def expand_cpu_list(text: str | None) -> list[int]:
    """``"0-3,8"`` → [0, 1, 2, 3, 8]; None, ``NA`` or malformed text → []."""
    if is_null(text) or not _CPU_LIST.fullmatch(text.strip()):
        return []
    cpus: list[int] = []
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def _is_label(token: str) -> bool:
    return bool(_LABEL.fullmatch(token))


def _is_header(tokens: list[str]) -> bool:
    """A header row starts with a column label followed by another label or by the CPU-affinity title."""
    if not tokens or not _is_label(tokens[0]):
        return False
    return len(tokens) == 1 or _is_label(tokens[1]) or tokens[1].upper() in _EXTRA_WORDS


def _extra_names(remainder: str) -> list[str]:
    """Titles of the columns after the link columns (``CPU Affinity``, possibly ``NUMA Affinity``)."""
    names = split_columns(remainder)
    if len(names) == 1 and re.fullmatch(r"(?:\S+ Affinity\s*){2,}", names[0]):
        names = re.findall(r"\S+ Affinity", names[0])
    return names


def parse_topo(text: str) -> Topology:
    """Parse ``npu-smi info -t topo`` output; raise ``SmiUnsupported`` or ``SmiParseError`` (Chinese) otherwise."""
    sentence = unsupported_sentence(text)
    if sentence:
        raise SmiUnsupported(t("smi.topo_unsupported", sentence=sentence))
    columns: list[str] = []
    extras: list[str] = []
    rows: list[tuple[str, list[str]]] = []
    legend: dict[str, str] = {}
    in_legend = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.lower().startswith("legend"):
            in_legend = True
            continue
        if in_legend:
            match = _LEGEND.match(line)
            if match:
                legend[match["key"]] = match["text"]
            continue
        tokens = stripped.split()
        if not columns and _is_header(tokens):
            lead = 0
            while lead < len(tokens) and _is_label(tokens[lead]):
                lead += 1
            columns = tokens[:lead]
            rest = stripped.split(None, lead)[lead] if len(tokens) > lead else ""
            extras = _extra_names(rest)
        elif _is_label(tokens[0]) and len(tokens) > 1:
            rows.append((tokens[0], tokens[1:]))
    if not rows:
        raise SmiParseError(t("smi.no_topo_matrix"))
    warnings: list[str] = []
    partial = False
    if not columns:
        columns, extras = _infer_columns(rows)
        warnings.append(t("smi.topo_no_header"))
    devices: list[str] = []
    links: dict[tuple[str, str], str] = {}
    affinity: dict[str, str | None] = {}
    n = len(columns)
    for label, values in rows:
        if label in devices:
            warnings.append(t("smi.topo_twice", label=label))
            continue
        devices.append(label)
        if len(values) < n:
            partial = True
            warnings.append(t("smi.topo_short_row", label=label, values=len(values), columns=n))
        for column, kind in zip(columns, values[:n], strict=False):
            if column == label:
                if kind.upper() != "X":
                    warnings.append(t("smi.topo_self", label=label, value=repr(kind)))
                continue
            if kind.upper() == "X":
                warnings.append(t("smi.topo_x_off_diagonal", label=label, column=column))
            links[(label, column)] = kind
        value = _affinity(values[n:], extras)
        affinity[label] = None if is_null(value) else value
    missing = [c for c in columns if c not in devices and _same_kind(c, devices)]
    if missing:
        partial = True
        warnings.append(t("smi.topo_missing_rows", columns=", ".join(missing)))
    return Topology(devices, links, affinity, legend, columns, partial, warnings)


def _affinity(tail: list[str], extras: list[str]) -> str | None:
    """The CPU-affinity cell among the values after the link columns."""
    if not tail:
        return None
    if not extras:
        return tail[0] if _CPU_LIST.fullmatch(tail[0]) else None
    if len(tail) > len(extras):  # a value with spaces inside: keep the overflow in the last column
        tail = tail[: len(extras) - 1] + [" ".join(tail[len(extras) - 1:])]
    index = next((i for i, name in enumerate(extras) if "CPU" in name.upper()), 0)
    return tail[index] if index < len(tail) else None


def _same_kind(column: str, devices: list[str]) -> bool:
    prefix = re.sub(r"\d+$", "", column)
    return any(re.sub(r"\d+$", "", d) == prefix for d in devices)


def _infer_columns(rows: list[tuple[str, list[str]]]) -> tuple[list[str], list[str]]:
    """Without a header: link columns end where the CPU list starts; names follow the row labels' pattern."""
    label, values = rows[0]
    n = next((i for i, v in enumerate(values) if _CPU_LIST.fullmatch(v)), len(values))
    labels = [r[0] for r in rows]
    if len(labels) == n:
        columns = labels
    else:
        prefix = re.sub(r"\d+$", "", label)
        columns = [f"{prefix}{i}" for i in range(n)]
    return columns, (["CPU Affinity"] if n < len(values) else [])
