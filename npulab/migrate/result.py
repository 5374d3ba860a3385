"""``ScanResult``: a scan's data with what the lesson and the command line do with it (effort, rewrites, reports).

It sits above ``model``, ``effort``, ``rewrite`` and ``display``, which know only ``ScanData``; so the package
has no import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass

from npulab.migrate import display, rewrite
from npulab.migrate.effort import summarize
from npulab.migrate.model import ScanData


@dataclass
class ScanResult(ScanData):
    """The outcome of :func:`npulab.migrate.scan`."""

    def effort(self) -> dict:
        """Porting-effort summary from the corrected cost table (``npulab/data/migration_costs.yaml``)."""
        return summarize(self)

    def changes(self) -> list[rewrite.FileChange]:
        """The files the auto rewrites change (old and new text)."""
        return rewrite.plan(self)

    def diff(self) -> str:
        """A unified diff of every auto rewrite (``import torch_npu`` included where needed)."""
        return rewrite.unified_diff(self.changes())

    def report(self) -> str:
        """The text report of the command line (findings, errors, summary, effort)."""
        return display.text_report(self)

    def _repr_html_(self) -> str:
        return display.findings_table(self)._repr_html_()

    def to_dict(self, *, with_effort: bool = True) -> dict:
        """The ``--json`` document."""
        out = {"files_scanned": self.files_scanned, "findings": [f.to_dict() for f in self.findings],
               "errors": [e.to_dict() for e in self.errors]}
        if with_effort:
            out["effort"] = self.effort()
        return out
