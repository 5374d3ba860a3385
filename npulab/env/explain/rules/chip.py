"""A chip of the Atlas inference series named in an error line: Ascend 310 (Atlas 200 DK), 310B (Atlas 200I DK A2,
Orange Pi AIpro) and 310P (Atlas 300I Pro / Duo, 300V). Software for Ascend keeps its own list of supported chips,
centred on the Atlas A2/A3 products; the inference series is outside it or supported only in part (a separate
branch, fewer operators, no bfloat16). An error on such a chip is read as the catalog's ``unsupported_soc`` family,
placed after any family the log shows more directly (data: npulab/data/explain_rules.yaml ``chip``)."""

from __future__ import annotations

import re

from npulab.core.i18n import t
from npulab.env.explain.matcher import Finding
from npulab.env.explain.rules.base import LogFacts, Rule, RuleHit, rule_finding, rules_data

NAME = "inference_chip"
PRIORITY = 2  # after every catalog family (the lowest is above 50), before the rules' own findings
# ASCII boundaries only: a name glued to Chinese text ("昇腾310P3", "设备是300iDuo") is still the chip
_B, _E = r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
_CHIP = re.compile(r"(?i)" + _B + r"(?:(?:ascend|atlas)[ _-]?)?310[pb]\d?" + _E + "|"
                   + _B + r"ascend[ _-]?310" + _E + "|"
                   + _B + r"(?:atlas[ _-]?)?300[ _-]?[iv](?:[ _-]?(?:duo|pro))?" + _E + "|"
                   + _B + r"(?:atlas[ _-]?)?200[ _-]?(?:i[ _-]?)?dk(?:[ _-]?a2)?" + _E + "|"
                   + _B + r"orange[ _-]?pi[ _-]?ai[ _-]?pro" + _E)


def read(line: str) -> dict | None:
    m = _CHIP.search(line)
    return {"chip": m.group(0), "focus": m.group(0)} if m else None


def finding(hits: list[RuleHit], facts: LogFacts) -> Finding | None:
    note = t("explain.chip.note", chip=hits[0].facts["chip"])
    found = rule_finding(NAME, t("explain.chip.title"), note, note, hits, rules_data()["chip"]["sources"],
                         family=rules_data()["chip"]["family"], note=note)
    found.priority = PRIORITY
    return found


RULE = Rule(NAME, (b"310", *(b"300" + sep + kind for sep in (b"", b" ", b"-", b"_") for kind in (b"i", b"v")), b"dk",
                   b"orange"), read, finding, needs_error=True)
