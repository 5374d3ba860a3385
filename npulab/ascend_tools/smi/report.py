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
            self.step(name, "missing", f"{argv[0]} 不可用：{result.stderr.strip()}", [f"{stem}.txt"])
            return None
        if not result.ok:
            self.step(name, "failed", f"`{shown}` 退出码 {result.returncode}：{result.stderr.strip()[:200]}",
                      [f"{stem}.txt"])
            return None
        try:
            parsed = parser(result.stdout)
        except SmiUnsupported as err:
            self.step(name, "unsupported", str(err), [f"{stem}.txt"])
            return None
        except SmiParseError as err:
            self.step(name, "unparsed", f"输出无法解析：{err}", [f"{stem}.txt"])
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
    col.step("system", "ok", f"{system['os'] or '未知系统'}，{system['machine']}", ["system.json"])
    versions = _versions(root)
    col.write_json("versions.json", versions)
    cann_version = versions["cann"].get("version")
    col.step("versions", "ok" if cann_version else "missing",
             f"CANN {cann_version or '未找到'}，驱动 {versions['cann'].get('driver_version') or '未找到'}，"
             f"固件 {versions['firmware_version'] or '未找到'}（{root}）", ["versions.json"])

    info = mapping = cards = topo = None
    if npu_smi is None:
        col.step("npu-smi", "missing", "PATH 中没有 npu-smi：跳过设备、健康、ECC、PCIe 与拓扑各步（驱动未安装或未加入 PATH）")
    else:
        info = col.command("info", [npu_smi, "info"], parse_info, "npu-smi_info")
        cards = col.command("cards", [npu_smi, "info", "-l"], parse_list, "npu-smi_list")
        mapping = col.command("mapping", [npu_smi, "info", "-m"], parse_mapping, "npu-smi_mapping")
        chips = _chips(info, mapping, cards)
        for npu, chip in chips:  # health is per chip (-i and -c)
            where = f"NPU {npu} 芯片 {chip}"
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
                                                    f"NPU {chip.npu_id} 芯片 {chip.chip_id}")
    if ascend_dmi is None:
        col.step("ascend-dmi", "missing", "PATH 中没有 ascend-dmi：跳过版本兼容性检查（它随 toolbox 安装）")
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
    lines = [f"# 昇腾主机诊断快照（{summary['created']}）", "",
             f"- 卡数（npu-smi info -l 的 Card Count）：{summary['card_count'] if summary['card_count'] is not None else '未知'}",
             f"- NPU 编号：{', '.join(map(str, summary['npu_ids'])) or '未知'}",
             f"- 拓扑：{summary['topology'] or '未采集'}",
             f"- 结论：{ {'ok': '未发现问题', 'warn': '有需要关注的项', 'fail': '有必须处理的问题'}[summary['verdict']] }", "",
             "## 步骤", ""]
    lines += [f"- {marks.get(s['status'], '?')} {s['step']}：{s['detail']}" for s in summary["steps"]]
    if summary["findings"]:
        lines += ["", "## 发现", ""]
        lines += [f"- [{f['level']}] {f['where']} {f['field']} = {f['value']}：{f['message']}" for f in summary["findings"]]
    return "\n".join(lines) + "\n"
