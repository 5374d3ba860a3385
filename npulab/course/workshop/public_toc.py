"""The public site: the book without the solutions."""

from __future__ import annotations

SOLUTIONS_PREFIX = "notebooks/solutions/"


def _without_solutions(entries: list[dict]) -> list[dict]:
    out = []
    for entry in entries:
        if str(entry.get("file", "")).startswith(SOLUTIONS_PREFIX):
            continue
        entry = dict(entry)
        for key in ("sections", "chapters"):
            if key in entry:
                entry[key] = _without_solutions(entry[key])
                if not entry[key]:
                    del entry[key]
        if "file" in entry or entry.get("chapters") or entry.get("sections"):
            out.append(entry)
    return out


def public_toc(toc: dict) -> dict:
    """The table of contents without any page under ``notebooks/solutions/`` (and without parts left empty)."""
    out = dict(toc)
    if "parts" in out:
        out["parts"] = _without_solutions(out["parts"])
    for key in ("chapters", "sections"):
        if key in out:
            out[key] = _without_solutions(out[key])
    return out
