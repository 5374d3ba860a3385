"""What a migration scan produces: findings (with the edits of the safe rewrites), errors, the result."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from npulab.core.i18n import t

AUTO, MANUAL, BLOCKER = "auto", "manual", "blocker"
SEVERITIES = (AUTO, MANUAL, BLOCKER)
SEVERITY_NAMES = {AUTO: "可自动改写", MANUAL: "需人工判断", BLOCKER: "暂无 NPU 路径"}  # Chinese; see severity_name


def severity_name(severity: str) -> str:
    """The severity as the report names it, in the reader's language (可自动改写 / auto-fixable ...)."""
    names = {AUTO: lambda: t("migrate.auto"), MANUAL: lambda: t("migrate.manual"), BLOCKER: lambda: t("migrate.blocker")}
    return names[severity]()


def cell_label(cell: int | None) -> str:
    """``[单元 N]`` / ``[cell N]`` for a notebook cell, "" outside notebooks."""
    return t("migrate.cell", cell=cell) if cell is not None else ""


@dataclass(frozen=True)
class Edit:
    """Replace ``old`` (lines ``line``..``end_line``, 1-based; columns 0-based characters) by ``new``.

    Coordinates are those of the text as stored: the file, or the raw source of a notebook cell.
    """

    line: int
    col: int
    end_line: int
    end_col: int
    old: str
    new: str


@dataclass(frozen=True)
class Finding:
    """One CUDA-specific use. ``line``/``col`` are 1-based; in a notebook they count inside code cell ``cell``."""

    path: str
    line: int
    col: int
    rule: str
    severity: str  # "auto" | "manual" | "blocker"
    message: str
    suggestion: str
    cell: int | None = None
    edits: tuple[Edit, ...] = field(default=(), repr=False, compare=False)
    detail: str = field(default="", repr=False, compare=False)  # e.g. the package of a cuda-package finding

    def to_dict(self) -> dict:
        """The JSON form: path, line, col, rule, severity, message, suggestion (and cell in notebooks)."""
        out = {"path": self.path, "line": self.line, "col": self.col, "rule": self.rule, "severity": self.severity,
               "message": self.message, "suggestion": self.suggestion}
        if self.cell is not None:
            out["cell"] = self.cell
        return out

    @property
    def where(self) -> str:
        """``path:line:col`` (with the code cell in notebooks)."""
        return f"{self.path}{cell_label(self.cell)}:{self.line}:{self.col}"


@dataclass(frozen=True)
class ScanError:
    """A file (or notebook cell) that could not be scanned, and why."""

    path: str
    message: str

    def to_dict(self) -> dict:
        return {"path": self.path, "message": self.message}


@dataclass
class ScanData:
    """What a scan found: files, findings, errors (behaviour that needs the cost table or rewrites: ``ScanResult``)."""

    files_scanned: int = 0
    findings: list[Finding] = field(default_factory=list)
    errors: list[ScanError] = field(default_factory=list)
    files: dict = field(default_factory=dict, repr=False)  # display path -> sources.SourceFile (for rewrites)
    cuda_sources: list = field(default_factory=list, repr=False)  # sources.CudaSource of .cu/.cuh files

    def counts(self) -> dict[str, int]:
        """Number of findings per severity (every severity present, zeros included)."""
        counted = Counter(f.severity for f in self.findings)
        return {s: counted.get(s, 0) for s in SEVERITIES}
