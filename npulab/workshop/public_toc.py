"""The public site: the book without the solutions."""

from __future__ import annotations

from pathlib import Path

from npulab.core.i18n import t

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


def solution_leaks(site: Path | str) -> list[str]:
    """Files of a built site that carry a solution: its page, its source (``_sources``), a download, or a link to one."""
    import re

    site = Path(site)
    found = []
    link = re.compile(r"""(?:href|src)=["'][^"']*(?:solutions/|_solution\b)""")
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if "solutions/" in rel or "_solution" in path.name:
            found.append(rel)
        elif path.suffix == ".html" and link.search(path.read_text(encoding="utf-8", errors="replace")):
            found.append(t("workshop.tools.check_public.links_to_solution", page=rel))
    return found
