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

The verdicts may be worded in either language of the course (``npulab.core.i18n``): the checks read the record's
numbers and the interval "low–high" that both languages print, and accept the words of either language where
they look at words (a wide headline must say 不可靠 / unreliable; a ratio printed as 0 after 比值 or "ratio").
The problems are reported in npulab's language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from npulab.core.comparison import FASTER, NOISY, SAME, SLOWER, VERDICT_KEY
from npulab.core.i18n import t
from npulab.core.machine import FOOTER_KEY

UNRELIABLE = re.compile(r"不可靠|\bunreliable\b|\bnot reliable\b", re.IGNORECASE)  # how a wide headline says so


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
    r, where = p.record, t("audit.where", cell=p.cell, claim=p.record.get("claim"))
    if p.text != r.get("text"):
        return [t("audit.text_differs", where=where)]
    if r.get("kind") == "best":
        return _best_problems(r, where)
    low, high, margin, said = r["low"], r["high"], r["margin"], r["verdict"]
    out = []
    lo, hi = f"{low:.3f}", f"{high:.3f}"
    if said == FASTER and not low > 1:
        out.append(t("audit.not_faster", where=where, a=r["a"], b=r["b"], low=lo, high=hi))
    elif said == SLOWER and not high < 1:
        out.append(t("audit.not_slower", where=where, b=r["b"], low=lo, high=hi))
    elif said == SAME and not (low >= 1 / (1 + margin) - 1e-12 and high <= 1 + margin + 1e-12):
        out.append(t("audit.not_same", where=where, low=lo, high=hi, margin=f"{margin:.0%}"))
    elif said == NOISY and r.get("decisive") and (low > 1 + margin or high < 1 / (1 + margin)):
        out.append(t("audit.not_noisy", where=where, low=lo, high=hi))
    elif said not in (FASTER, SLOWER, SAME, NOISY):
        out.append(t("audit.unknown_verdict", where=where, verdict=repr(said)))
    if f"{low:.2f}–{high:.2f}" not in p.text:
        out.append(t("audit.no_interval", where=where, interval=f"{low:.2f}–{high:.2f}"))
    return out


def _best_problems(r: dict, where: str) -> list[str]:
    out = []
    lows = r["lows"]
    if lows[r["index"]] < max(lows):
        out.append(t("audit.best_not_highest", where=where, label=r["labels"][r["index"]]))
    if not r["low"] <= r["value"] <= r["high"]:
        out.append(t("audit.best_outside", where=where, value=f"{r['value']:.4g}", low=f"{r['low']:.4g}",
                     high=f"{r['high']:.4g}"))
    if not r["spread_ok"] and not UNRELIABLE.search(r["text"]):
        out.append(t("audit.best_unreliable", where=where))
    return out


ZERO_RATIO = re.compile(r"(?:比值|之比|倍数)[：:\s]*[0０](?![.\d])")  # a ratio printed with too few digits
ZERO_RATIO_EN = re.compile(r"\bratios?\b[:=\s]*0(?![.\d])", re.IGNORECASE)  # the same in an English sentence


def zero_ratios(nb) -> list[str]:
    """Ratios printed as a bare 0 (04/02 once printed MindSpore/PyTorch = 0.18 with ``:.0f`` as "比值 0")."""
    found = []
    for number, cell in enumerate(nb.get("cells", [])):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            text = out.get("text") or out.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            found += [t("audit.zero_ratio", cell=number, text=m.group())
                      for pattern in (ZERO_RATIO, ZERO_RATIO_EN) for m in pattern.finditer(text)]
    return found


def audit(nb) -> list[str]:
    """All problems of an executed notebook's verdicts, ratios printed as 0, and a missing machine footer."""
    found = [problem for p in printed(nb) for problem in problems_of(p)] + zero_ratios(nb)
    if printed(nb) and not printed(nb, FOOTER_KEY):
        found.append(t("audit.no_footer"))
    return found


def summary(folder) -> str:
    """The verdicts of each ``make test-verdicts`` run side by side: lesson, claim, ratio, interval, verdict, load."""
    import json
    from pathlib import Path

    lines = []
    for run in sorted(Path(folder).glob("load*")):
        lines.append(t("audit.run", run=run.name, busy=run.name.removeprefix("load")))
        for path in sorted(run.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            loads = [f"{f['load_start']:.1f}→{f['load_end']:.1f}" for f in data["footers"] if f['load_start'] is not None]
            lines.append(t("audit.lesson", lesson=data["lesson"], seconds=data["seconds"], loads=", ".join(loads) or "—"))
            for r in data["verdicts"]:
                if r.get("kind") == "best":
                    lines.append(t("audit.best_line", claim=r["claim"], label=r["labels"][r["index"]],
                                   value=f"{r['value'] / 1e9:,.1f}", low=f"{r['low'] / 1e9:,.1f}",
                                   high=f"{r['high'] / 1e9:,.1f}", reliable=r["spread_ok"]))
                else:
                    lines.append(f"   {r['claim']}: {r['a']}/{r['b']} = {r['ratio']:.3f} [{r['low']:.3f}, {r['high']:.3f}] "
                                 f"→ {r['verdict']}")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(summary(sys.argv[1] if len(sys.argv) > 1 else "_build/verdicts"))
