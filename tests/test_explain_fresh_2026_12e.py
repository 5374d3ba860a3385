"""Fresh set "2026-12e" (tests/data/explain_fresh_2026_12e) of issue 36: error logs and healthy or non-Ascend logs
from public threads that neither the catalog nor any other explain set cites, collected and labelled before the next
round of message-reading rules, by someone who did not read the rules and did not run ``explain`` on them (README).
``python tests/test_explain_fresh_2026_12e.py`` prints the table.

Measured first with the rules that existed before it was collected (README, "Measurement"): a floor test keeps that,
and the issue's aims are a strict xfail."""

from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12e"


class TestFresh2026_12e(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (56, 23, 12, 21)  # logs, known, lacking, healthy when collected (README)
    PER_REPOSITORY = False
    # round 8 (round 6: 20 known, 4 fix named, 21 healthy, 4 silent; round 5: 19, 2, 16, 6)
    FLOOR = dict(known=22, fix_named=5, healthy=21, silent=3)  # round 15: 22 (a dynamic shape the chip lacks)
    OPEN = ("issue 36 aims not met on this set (round 6: 20/23 known, 4/12 fix named, 4/35 silent, 21/21 healthy;"
            " round 5: 19/23, 2/12, 6/35, 16/21): explain stays open")


if __name__ == "__main__":
    print_report(FOLDER)
