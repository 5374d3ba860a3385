"""``python -m npulab smi report DIR``: a diagnostic snapshot of an Ascend host, written into one folder.

The seed article's ``diag.sh`` does this job with three mistakes (its section on diagnostics collection):
it saves ``npu-smi info -l`` as its "topology" (``-l`` lists cards; the link matrix is ``-t topo``), counts
cards with ``grep -c "NPU\\|Chip"`` on that output (two matching lines per card: ``NPU ID`` and
``Chip Count``), and assumes NPU ids run 0 … n-1. Here card ids come from the parsed ``-l`` output, chip ids
from ``-m`` (or the ``npu-smi info`` table), and every step degrades: a missing tool, a failing command or an
unsupported query is recorded in the summary, never fatal. Raw text is kept next to the parsed JSON.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import shutil
from collections.abc import Mapping
from pathlib import Path

from npulab.ascend_tools.smi.common import SmiParseError, SmiUnsupported
from npulab.ascend_tools.smi.info import parse_info
from npulab.ascend_tools.smi.kv import parse_ecc, parse_health, parse_list, parse_pcie_err
from npulab.ascend_tools.smi.mapping import parse_mapping
from npulab.ascend_tools.smi.runner import Runner, run
from npulab.ascend_tools.smi.topo import parse_topo
from npulab.ascend_tools.smi.triage import Finding, ecc_findings, health_findings, pcie_findings, worst
from npulab.core.i18n import t
from npulab.env import cann_install


class _Collector:
    """Writes each step's raw output and parsed JSON, and keeps the summary."""

    def __init__(self, out: Path, runner: Runner):
        self.out, self.runner = out, runner
        self.steps: list[dict] = []
        self.findings: list[Finding] = []

    def write(self, name: str, text: str) -> None:
        (self.out / name).write_text(text, encoding="utf-8")

    def write_json(self, name: str, data: object) -> None:
        self.write(name, json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")

    def step(self, name: str, status: str, detail: str, files: list[str] | None = None) -> None:
        self.steps.append({"step": name, "status": status, "detail": detail, "files": files or []})

    def command(self, name: str, argv: list[str], parser, stem: str):
        """Run ``argv``, keep its text as ``stem.txt`` and its parse as ``stem.json``; return the parse or None."""
        result = self.runner(argv)
        text = result.stdout + (f"\n[stderr]\n{result.stderr}" if result.stderr.strip() else "")
        self.write(f"{stem}.txt", text)
        shown = " ".join(argv)
        if result.missing:
            self.step(name, "missing", t("smi.report_unavailable", command=argv[0], stderr=result.stderr.strip()), [f"{stem}.txt"])
            return None
        if not result.ok:
            self.step(name, "failed", t("smi.report_failed", command=shown, code=result.returncode, stderr=result.stderr.strip()[:200]),
                      [f"{stem}.txt"])
            return None
        try:
            parsed = parser(result.stdout)
        except SmiUnsupported as err:
            self.step(name, "unsupported", str(err), [f"{stem}.txt"])
            return None
        except SmiParseError as err:
            self.step(name, "unparsed", t("smi.report_unparsed", error=err), [f"{stem}.txt"])
            return None
        data = parsed.to_dict() if hasattr(parsed, "to_dict") else parsed
        self.write_json(f"{stem}.json", data)
        partial = isinstance(data, dict) and data.get("partial")
        self.step(name, "partial" if partial else "ok", f"`{shown}`", [f"{stem}.txt", f"{stem}.json"])
        return parsed


def _os_release() -> str | None:
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    value = cann_install.parse_kv(text).get("pretty_name")
    return value.strip("\"'") if value else None


def _versions(root: Path) -> dict:
    report = cann_install.describe(root)
    firmware = None
    text, _ = cann_install.read_text(root / "firmware" / "version.info")
    if text:
        firmware = cann_install.parse_kv(text).get("version")
    return {"cann": report.as_dict(), "firmware_version": firmware}


def _chips(info, mapping, cards) -> list[tuple[int, int]]:
    """(NPU id, chip id) of every AI chip: from -m (chips with a logic id), else the info table, else -l."""
    if mapping and mapping.get("chips"):
        pairs = [(c["npu_id"], c["chip_id"]) for c in mapping["chips"] if c["logic_id"] is not None]
        if pairs:
            return pairs
    if info and info.chips:
        return list(dict.fromkeys((c.npu_id, c.chip_id if c.chip_id is not None else 0) for c in info.chips
                                  if c.npu_id is not None))
    if cards:
        return [(card["npu_id"], 0) for card in cards.get("cards", []) if isinstance(card.get("npu_id"), int)]
    return []


def collect(out_dir: Path | str, *, runner: Runner = run, npu_smi: str | None = None, ascend_dmi: str | None = None,
            root: Path | str | None = None, environ: Mapping[str, str] | None = None) -> dict:
    """Write the snapshot into ``out_dir`` (created if needed) and return the summary dict."""
    env = os.environ if environ is None else environ
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    col = _Collector(out, runner)
    root = Path(root) if root is not None else cann_install.DEFAULT_ROOT
    path = env.get("PATH", os.defpath)
    npu_smi = npu_smi or shutil.which("npu-smi", path=path)
    ascend_dmi = ascend_dmi or shutil.which("ascend-dmi", path=path)

    system = {"os": _os_release(), "kernel": platform.release(), "machine": platform.machine(),
              "python": platform.python_version(), "date": dt.datetime.now().isoformat(timespec="seconds")}
    col.write_json("system.json", system)
    col.step("system", "ok", t("smi.report_system", os=system["os"] or t("smi.report_unknown_os"), machine=system["machine"]),
             ["system.json"])
    versions = _versions(root)
    col.write_json("versions.json", versions)
    cann_version = versions["cann"].get("version")
    col.step("versions", "ok" if cann_version else "missing",
             t("smi.report_versions", cann=cann_version or t("smi.report_not_found"),
               driver=versions["cann"].get("driver_version") or t("smi.report_not_found"),
               firmware=versions["firmware_version"] or t("smi.report_not_found"), root=root), ["versions.json"])

    info = mapping = cards = topo = None
    if npu_smi is None:
        col.step("npu-smi", "missing", t("smi.report_no_npu_smi"))
    else:
        info = col.command("info", [npu_smi, "info"], parse_info, "npu-smi_info")
        cards = col.command("cards", [npu_smi, "info", "-l"], parse_list, "npu-smi_list")
        mapping = col.command("mapping", [npu_smi, "info", "-m"], parse_mapping, "npu-smi_mapping")
        chips = _chips(info, mapping, cards)
        for npu, chip in chips:  # health is per chip (-i and -c)
            where = t("smi.where", npu=npu, chip=chip)
            health = col.command(f"health {where}", [npu_smi, "info", "-t", "health", "-i", str(npu), "-c", str(chip)],
                                 parse_health, f"health_npu{npu}_chip{chip}")
            col.findings += health_findings(health, where)
        for npu in dict.fromkeys(n for n, _ in chips):  # ECC and PCIe counters are queried per NPU (-i)
            where = f"NPU {npu}"
            ecc = col.command(f"ecc {where}", [npu_smi, "info", "-t", "ecc", "-i", str(npu)], parse_ecc, f"ecc_npu{npu}")
            pcie = col.command(f"pcie-err {where}", [npu_smi, "info", "-t", "pcie-err", "-i", str(npu)], parse_pcie_err,
                               f"pcie-err_npu{npu}")
            col.findings += ecc_findings(ecc, where) + pcie_findings(pcie, where)
        topo = col.command("topology", [npu_smi, "info", "-t", "topo"], parse_topo, "topo")
        if info is not None:
            for chip in info.chips:
                if chip.health and chip.health.upper() != "OK":
                    col.findings += health_findings({"health_status": chip.health},
                                                    t("smi.where", npu=chip.npu_id, chip=chip.chip_id))
    if ascend_dmi is None:
        col.step("ascend-dmi", "missing", t("smi.report_no_dmi"))
    else:
        col.command("compatible", [ascend_dmi, "-c"], lambda text: {"text": text}, "ascend-dmi_compatible")

    n_cards = cards.get("card_count") if isinstance(cards, dict) else None
    summary = {
        "created": system["date"],
        "card_count": n_cards,
        "npu_ids": [c["npu_id"] for c in cards["cards"]] if isinstance(cards, dict) else (info.npu_ids() if info else []),
        "chips": len(info.chips) if info else None,
        "topology": topo.summary() if topo else None,
        "verdict": worst(col.findings),
        "findings": [f.as_dict() for f in col.findings if f.level != "ok"],
        "steps": col.steps,
    }
    col.write_json("summary.json", summary)
    col.write("summary.md", _markdown(summary))
    return summary


def _markdown(summary: dict) -> str:
    marks = {"ok": "✓", "partial": "!", "missing": "○", "unsupported": "○", "failed": "✗", "unparsed": "✗"}
    unknown = t("smi.report_unknown")
    verdicts = {"ok": lambda: t("smi.report_verdict_ok"), "warn": lambda: t("smi.report_verdict_warn"),
                "fail": lambda: t("smi.report_verdict_fail")}
    lines = [t("smi.report_title", created=summary["created"]), "",
             t("smi.report_cards", count=summary["card_count"] if summary["card_count"] is not None else unknown),
             t("smi.report_npu_ids", ids=", ".join(map(str, summary["npu_ids"])) or unknown),
             t("smi.report_topology", topology=summary["topology"] or t("smi.report_not_collected")),
             t("smi.report_verdict", verdict=verdicts[summary["verdict"]]()), "",
             t("smi.report_steps"), ""]
    lines += [t("smi.report_step", mark=marks.get(s["status"], "?"), step=s["step"], detail=s["detail"])
              for s in summary["steps"]]
    if summary["findings"]:
        lines += ["", t("smi.report_findings"), ""]
        lines += [t("smi.report_finding", level=f["level"], where=f["where"], field=f["field"], value=f["value"],
                    message=f["message"]) for f in summary["findings"]]
    return "\n".join(lines) + "\n"
