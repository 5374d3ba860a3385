"""Read back the verdicts an executed lesson printed and check each against the numbers it carries.

``npulab.core.comparison`` prints every verdict with a structured copy in the output's metadata (``VERDICT_KEY``)
and ``npulab.core.machine`` its footer (``FOOTER_KEY``). The audit does not re-run the rule that chose the words;
it checks what the words imply against the numbers beside them:

- "B faster" needs the whole interval of A/B above 1; "B slower" needs it below 1; "the same" needs it inside the
  stated band; "too noisy" is always allowed (saying less is never a contradiction) — except that a ratio verdict
  whose interval is decisive must not be called noisy when enough repeats were taken;
- the printed sentence is the recorded one and shows the interval it rests on;
- a sweep's headline is the point with the highest lower end, its value lies inside its interval, and a headline
  with a wide interval says it is unreliable;
- no printed ratio reads a bare "0" (a format with too few digits hides which side is faster).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from npulab.core.comparison import FASTER, NOISY, SAME, SLOWER, VERDICT_KEY
from npulab.core.machine import FOOTER_KEY


@dataclass(frozen=True)
class Printed:
    """One structured output of a cell: its cell number, the text shown and the record."""

    cell: int
    text: str
    record: dict


def printed(nb, key: str = VERDICT_KEY) -> list[Printed]:
    """Every output of an executed notebook that carries ``key`` in its metadata, in order."""
    found = []
    for number, cell in enumerate(nb.get("cells", [])):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            record = out.get("metadata", {}).get(key)
            if record is not None:
                text = out.get("data", {}).get("text/plain", "")
                found.append(Printed(number, "".join(text) if isinstance(text, list) else text, dict(record)))
    return found


def problems_of(p: Printed) -> list[str]:
    """What is wrong with one printed verdict (empty when its words agree with its numbers)."""
    r, where = p.record, f"单元 {p.cell}（{p.record.get('claim')}）"
    if p.text != r.get("text"):
        return [f"{where}：显示的句子与记录的不同"]
    if r.get("kind") == "best":
        return _best_problems(r, where)
    low, high, margin, said = r["low"], r["high"], r["margin"], r["verdict"]
    out = []
    if said == FASTER and not low > 1:
        out.append(f"{where}：说 {r['b']} 更快，但 {r['a']}/{r['b']} 的区间 {low:.3f}–{high:.3f} 不全在 1 之上")
    elif said == SLOWER and not high < 1:
        out.append(f"{where}：说 {r['b']} 更慢，但区间 {low:.3f}–{high:.3f} 不全在 1 之下")
    elif said == SAME and not (low >= 1 / (1 + margin) - 1e-12 and high <= 1 + margin + 1e-12):
        out.append(f"{where}：说两者相同，但区间 {low:.3f}–{high:.3f} 超出了 ±{margin:.0%}")
    elif said == NOISY and r.get("decisive") and (low > 1 + margin or high < 1 / (1 + margin)):
        out.append(f"{where}：区间 {low:.3f}–{high:.3f} 已能下结论，却说测不出")
    elif said not in (FASTER, SLOWER, SAME, NOISY):
        out.append(f"{where}：未知的判定 {said!r}")
    if f"{low:.2f}–{high:.2f}" not in p.text:
        out.append(f"{where}：句子里没有它依据的区间 {low:.2f}–{high:.2f}")
    return out


def _best_problems(r: dict, where: str) -> list[str]:
    out = []
    lows = r["lows"]
    if lows[r["index"]] < max(lows):
        out.append(f"{where}：标题尺寸 {r['labels'][r['index']]} 的区间下端不是最高的")
    if not r["low"] <= r["value"] <= r["high"]:
        out.append(f"{where}：标题数字 {r['value']:.4g} 不在它的区间 {r['low']:.4g}–{r['high']:.4g} 之内")
    if not r["spread_ok"] and "不可靠" not in r["text"]:
        out.append(f"{where}：标题尺寸的区间很宽，句子却没有说它不可靠")
    return out


ZERO_RATIO = re.compile(r"(?:比值|之比|倍数)[：:\s]*[0０](?![.\d])")  # a ratio printed with too few digits


def zero_ratios(nb) -> list[str]:
    """Ratios printed as a bare 0 (04/02 once printed MindSpore/PyTorch = 0.18 with ``:.0f`` as "比值 0")."""
    found = []
    for number, cell in enumerate(nb.get("cells", [])):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            text = out.get("text") or out.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            found += [f"单元 {number}：比值印成了 0（“{m.group()}”）：用有效数字格式（如 .2g）" for m in ZERO_RATIO.finditer(text)]
    return found


def audit(nb) -> list[str]:
    """All problems of an executed notebook's verdicts, ratios printed as 0, and a missing machine footer."""
    found = [problem for p in printed(nb) for problem in problems_of(p)] + zero_ratios(nb)
    if printed(nb) and not printed(nb, FOOTER_KEY):
        found.append("有判定却没有测量环境的脚注（npulab.core.machine.LoadWatch.footer）")
    return found


def summary(folder) -> str:
    """The verdicts of each ``make test-verdicts`` run side by side: lesson, claim, ratio, interval, verdict, load."""
    import json
    from pathlib import Path

    lines = []
    for run in sorted(Path(folder).glob("load*")):
        lines.append(f"== {run.name}（忙碌进程数 {run.name.removeprefix('load')}）")
        for path in sorted(run.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            loads = [f"{f['load_start']:.1f}→{f['load_end']:.1f}" for f in data["footers"] if f['load_start'] is not None]
            lines.append(f"-- {data['lesson']}（{data['seconds']} s；1 分钟负载 {', '.join(loads) or '—'}）")
            for r in data["verdicts"]:
                if r.get("kind") == "best":
                    lines.append(f"   {r['claim']}: {r['labels'][r['index']]} {r['value'] / 1e9:,.1f} GFLOP/s "
                                 f"[{r['low'] / 1e9:,.1f}, {r['high'] / 1e9:,.1f}] 可靠={r['spread_ok']}")
                else:
                    lines.append(f"   {r['claim']}: {r['a']}/{r['b']} = {r['ratio']:.3f} [{r['low']:.3f}, {r['high']:.3f}] "
                                 f"→ {r['verdict']}")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(summary(sys.argv[1] if len(sys.argv) > 1 else "_build/verdicts"))
