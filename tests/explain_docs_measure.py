"""What the documented troubleshooting entries (npulab/data/explain_docs.yaml) change on the labelled sets (issue 36).

Every folder with a ``sources.yaml`` under ``tests/data/explain_*`` (or only the folders given as arguments) is scored
twice with ``evaluate``: without the documented entries (``documented=()``, row ``rules``) and with the packaged ones
(row ``docs``); everything else as ``explain`` runs by default (the reported cases too when ``NEIGHBOURS`` is on,
leave-one-set-out as ``evaluate`` does), so the difference is the documented entries' alone. Printed:
one row per set (top folder) and reader, the total, and every log whose verdict changed (hit ↔ miss, or silent ↔
spoken), with what ``explain`` said before and after; then the logs whose findings changed without a verdict changing.

Usage (from the repository root): ``PYTHONPATH=. python tests/explain_docs_measure.py [--kb FILE] [FOLDER …]``
(``--kb``: another knowledge base file than the packaged one).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from explain_heldout_eval import DATA, evaluate  # noqa: E402

from npulab.env.explain.documented import load_documented  # noqa: E402

GROUPS = ("known", "unanticipated", "silent", "healthy")
HEADS = ("known", "fix named", "silent", "healthy")  # "unanticipated": the causes the catalog lacks
READERS = ("rules", "docs")


def folders(args: list[str]) -> list[Path]:
    """The folders given, or every labelled folder of every explain set."""
    if args:
        return [Path(a).resolve() for a in args]
    return sorted(p.parent for p in DATA.glob("explain_*/**/sources.yaml"))


def name_of(folder: Path) -> str:
    return folder.relative_to(DATA).parts[0] if folder.is_relative_to(DATA) else folder.name


def measure(chosen: list[Path], entries: tuple | None = None) -> dict[str, dict[str, dict]]:
    """Per folder: ``evaluate``'s result with the rules alone and with the documented entries (default: packaged)."""
    entries = load_documented() if entries is None else entries
    return {str(f): {"rules": evaluate(f, documented=()), "docs": evaluate(f, documented=entries)} for f in chosen}


def _add(sums: dict[str, list[int]], rates: dict) -> None:
    for g in GROUPS:
        sums[g][0] += rates[g][0]
        sums[g][1] += rates[g][1]


def table(results: dict[str, dict[str, dict]]) -> list[str]:
    """Rows per set and reader, then the total: known, fix named (unanticipated), silent, healthy."""
    per_set: dict[str, dict[str, dict[str, list[int]]]] = {}
    for folder, by_reader in results.items():
        row = per_set.setdefault(name_of(Path(folder)), {r: {g: [0, 0] for g in GROUPS} for r in READERS})
        for reader in READERS:
            _add(row[reader], by_reader[reader]["rates"])
    total = {r: {g: [0, 0] for g in GROUPS} for r in READERS}
    for row in per_set.values():
        for reader in READERS:
            _add(total[reader], {g: tuple(v) for g, v in row[reader].items()})
    out = [f"{'set':36} {'reader':6} " + " ".join(f"{g:>14}" for g in HEADS)]
    for name, row in [*sorted(per_set.items()), ("TOTAL", total)]:
        for reader in READERS:
            out.append(f"{name:36} {reader:6} " + " ".join(f"{'{}/{}'.format(*row[reader][g]):>14}" for g in GROUPS))
    return out


def changes(results: dict[str, dict[str, dict]]) -> tuple[list[str], list[str]]:
    """The logs whose verdict changed, and those whose findings changed with the same verdict."""
    verdicts, findings = [], []
    for folder, by_reader in results.items():
        for before, after in zip(by_reader["rules"]["rows"], by_reader["docs"]["rows"], strict=True):
            where = f"{name_of(Path(folder))}/{Path(folder).name}/{before['log']}"
            line = f"{where}  expect={before['expect']}  rules={before['got']}  docs={after['got']}"
            if (before["hit"], before["silent"]) != (after["hit"], after["silent"]):
                mark = "GAINED" if after["hit"] and not before["hit"] else "LOST" if before["hit"] else "CHANGED"
                verdicts.append(f"{mark:8}{line}")
            elif before["got"] != after["got"]:
                findings.append(f"        {line}")
    return verdicts, findings


def main(args: list[str]) -> None:
    kb = None
    if "--kb" in args:
        at = args.index("--kb")
        kb, args = args[at + 1], args[:at] + args[at + 2:]
    entries = load_documented(kb)
    print(f"documented entries: {len(entries)} ({kb or 'packaged'})")
    results = measure(folders(args), entries)
    print("\n".join(table(results)))
    verdicts, findings = changes(results)
    print(f"\nverdict changed ({len(verdicts)}):")
    print("\n".join(verdicts) or "  none")
    print(f"\nfindings changed, verdict the same ({len(findings)}):")
    print("\n".join(findings) or "  none")


if __name__ == "__main__":
    main(sys.argv[1:])
