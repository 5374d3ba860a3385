"""Fresh set "2026-12m" (tests/data/explain_fresh_2026_12m) of issue 36: error logs and healthy or non-Ascend logs
from public threads that neither the catalog nor any other explain set cites, collected and labelled before the next
round of message-reading rules, by someone who did not read the rules and did not run ``explain`` on them (README).
``python tests/test_explain_fresh_2026_12m.py`` prints the table."""

from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12m"


class TestFresh2026_12m(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (30, 11, 5, 14)  # logs, known, lacking, healthy when collected (README)
    FLOOR = None  # measured once, after the next round of rules is written (README)
    OPEN = "not measured yet (collected blind on 2026-12-06)"


if __name__ == "__main__":
    print_report(FOLDER)
