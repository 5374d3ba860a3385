"""One diagnosis line shared by ``doctor`` and ``doctor --stack``: the ``Check`` record, its marks, package versions."""

from __future__ import annotations

import importlib.metadata
from dataclasses import asdict, dataclass

MARKS = {"ok": "✓", "warn": "!", "fail": "✗", "skip": "-"}


@dataclass
class Check:
    """One diagnosis: id, status (ok/warn/fail/skip), a Chinese message and a Chinese fix (may be empty)."""

    id: str
    status: str
    message: str
    fix: str = ""

    def as_dict(self) -> dict:
        """The JSON form: exactly id, status, message, fix."""
        return asdict(self)


def metadata_version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None (missing or broken metadata never raises)."""
    try:
        return importlib.metadata.version(name)
    except Exception:
        return None
