"""The porting-effort summary of a scan, from the corrected cost table (``npulab/data/migration_costs.yaml``)."""

from __future__ import annotations

from collections import Counter

from npulab.core.i18n import in_language, t
from npulab.core.paths import DATA_DIR, load_yaml
from npulab.migrate import tables
from npulab.migrate.model import AUTO, MANUAL, SEVERITIES, severity_name

COSTS_FILE = DATA_DIR / "migration_costs.yaml"
KERNEL_RULES = {"cuda-source", "cpp-extension"}


def costs(lang: str | None = None) -> dict:
    """The cost table (scenarios from the least to the most work, thresholds, corrections), its texts in the
    reader's language (``lang``, default :func:`npulab.core.i18n.language`): the seed article's estimates and the
    course's corrections, with their English twins from the same file."""
    return in_language(load_yaml(COSTS_FILE), lang)


def _triggered(result) -> dict[str, list[str]]:
    """Scenario id → the reasons (in the reader's language) a scan falls into it."""
    table = costs()
    reasons: dict[str, list[str]] = {}
    counts = result.counts()
    if counts[AUTO]:
        reasons.setdefault("device_strings", []).append(t("effort.auto_reason", n=counts[AUTO]))
    if counts[MANUAL]:
        reasons.setdefault("env_debugging", []).append(t("effort.manual_reason", n=counts[MANUAL]))
    kernels = sum(s.kernels for s in result.cuda_sources)
    lines = sum(s.lines for s in result.cuda_sources)
    builds = sum(1 for f in result.findings if f.rule == "cpp-extension")
    packages = dict.fromkeys(f.detail for f in result.findings if f.rule in ("cuda-package", "pip-package"))
    for name in packages:
        spec = tables.load()["packages"].get(name, {})
        scenario = spec.get("scenario", "env_debugging")
        reasons.setdefault(scenario, []).append(t("effort.depends_on", name=name))
    if kernels or builds:
        limit = table["complex_kernel_threshold"]
        complex_ = kernels + builds >= limit["kernels"] or lines >= limit["cuda_lines"]
        scenario = "complex_kernel" if complex_ else "simple_kernel"
        parts = [t("effort.cuda_sources", files=len(result.cuda_sources), lines=lines, kernels=kernels)] if lines else []
        parts += [t("effort.builds", n=builds)] if builds else []
        reasons.setdefault(scenario, []).append(t("migrate.comma_sep").join(parts))
    return reasons


def summarize(result) -> dict:
    """The summary: counts, rules, what transfer_to_npu would cover, and the cost-table row with its reasons.

    Keys: ``counts`` {auto, manual, blocker}, ``files_scanned``, ``files_with_findings``, ``rules`` {rule: n},
    ``transfer_to_npu`` {covered, partly, not_covered}, ``scenario`` (the most expensive row triggered, or
    None when nothing was found), ``scenarios`` (every row triggered, with ``reasons``), ``note``, ``source``.
    """
    table = costs()
    triggered = _triggered(result)
    rows = [dict(row, reasons=triggered[row["id"]]) for row in table["scenarios"] if row["id"] in triggered]
    coverage = Counter(str(tables.rule(f.rule).get("transfer_to_npu", "no")) for f in result.findings)
    return {
        "counts": result.counts(),
        "files_scanned": result.files_scanned,
        "files_with_findings": len({f.path for f in result.findings}),
        "rules": dict(sorted(Counter(f.rule for f in result.findings).items())),
        "transfer_to_npu": {"covered": coverage.get("yes", 0), "partly": coverage.get("partly", 0),
                            "not_covered": coverage.get("no", 0)},
        "scenario": _public(rows[-1]) if rows else None,
        "scenarios": [_public(row) for row in rows],
        "note": table["note"],
        "source": t("effort.source", source=table["source"], section=table["source_section"]),
    }


def _public(row: dict) -> dict:
    return {key: row[key] for key in ("id", "label", "seed_row", "seed_estimate", "days", "reasons")}


def describe(summary: dict) -> str:
    """A few lines for the text report, in the reader's language."""
    counts = summary["counts"]
    semi = t("migrate.semi_sep")
    lines = [semi.join(t("effort.counts", name=severity_name(s), n=counts[s]) for s in SEVERITIES)]
    row = summary["scenario"]
    if row is None:
        lines.append(t("effort.nothing"))
    else:
        lines.append(t("effort.row", label=row["label"], seed_row=row["seed_row"], estimate=row["seed_estimate"],
                       reasons=semi.join(row["reasons"])))
        lines.append(t("effort.transfer", **summary["transfer_to_npu"]))
        lines.append(summary["note"])
    return "\n".join(lines)
