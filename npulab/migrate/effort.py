"""The porting-effort summary of a scan, from the corrected cost table (``npulab/data/migration_costs.yaml``)."""

from __future__ import annotations

from collections import Counter

from npulab.core.paths import DATA_DIR, load_yaml
from npulab.migrate import tables
from npulab.migrate.model import AUTO, MANUAL, SEVERITIES

COSTS_FILE = DATA_DIR / "migration_costs.yaml"
KERNEL_RULES = {"cuda-source", "cpp-extension"}


def costs() -> dict:
    """The cost table (scenarios from the least to the most work, thresholds, corrections)."""
    return load_yaml(COSTS_FILE)


def _triggered(result) -> dict[str, list[str]]:
    """Scenario id → the reasons (Chinese) a scan falls into it."""
    table = costs()
    reasons: dict[str, list[str]] = {}
    counts = result.counts()
    if counts[AUTO]:
        reasons.setdefault("device_strings", []).append(f"{counts[AUTO]} 处可自动改写")
    if counts[MANUAL]:
        reasons.setdefault("env_debugging", []).append(f"{counts[MANUAL]} 处需人工判断")
    kernels = sum(s.kernels for s in result.cuda_sources)
    lines = sum(s.lines for s in result.cuda_sources)
    builds = sum(1 for f in result.findings if f.rule == "cpp-extension")
    packages = dict.fromkeys(f.detail for f in result.findings if f.rule in ("cuda-package", "pip-package"))
    for name in packages:
        spec = tables.load()["packages"].get(name, {})
        scenario = spec.get("scenario", "env_debugging")
        reasons.setdefault(scenario, []).append(f"依赖 {name}")
    if kernels or builds:
        limit = table["complex_kernel_threshold"]
        complex_ = kernels + builds >= limit["kernels"] or lines >= limit["cuda_lines"]
        scenario = "complex_kernel" if complex_ else "simple_kernel"
        parts = [f"{len(result.cuda_sources)} 个 CUDA 源文件（{lines} 行，{kernels} 个 __global__ 内核）"] if lines else []
        parts += [f"{builds} 处 CUDA 扩展构建"] if builds else []
        reasons.setdefault(scenario, []).append("，".join(parts))
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
        "source": f"{table['source']}：{table['source_section']}",
    }


def _public(row: dict) -> dict:
    return {key: row[key] for key in ("id", "label", "seed_row", "seed_estimate", "days", "reasons")}


def describe(summary: dict) -> str:
    """A few Chinese lines for the text report."""
    counts = summary["counts"]
    names = {"auto": "可自动改写", "manual": "需人工判断", "blocker": "暂无 NPU 路径"}
    lines = ["；".join(f"{names[s]} {counts[s]}" for s in SEVERITIES)]
    row = summary["scenario"]
    if row is None:
        lines.append("没有发现 CUDA 专用代码。")
    else:
        lines.append(f"工作量：{row['label']}——对应原文成本表「{row['seed_row']}」，原文估计 {row['seed_estimate']}"
                     f"（{'；'.join(row['reasons'])}）。")
        t = summary["transfer_to_npu"]
        lines.append(f"transfer_to_npu 在运行时能处理其中 {t['covered']} 处、部分处理 {t['partly']} 处，管不到 {t['not_covered']} 处。")
        lines.append(summary["note"])
    return "\n".join(lines)
