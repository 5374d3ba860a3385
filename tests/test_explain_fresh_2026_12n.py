"""Fresh set "2026-12n" (tests/data/explain_fresh_2026_12n) of issue 36: error logs and healthy or non-Ascend logs
from public threads that neither the catalog nor any other explain set cites, collected and labelled before the next
round of message-reading rules, by someone who did not read the rules and did not run ``explain`` on them (README).
``python tests/test_explain_fresh_2026_12n.py`` prints the table."""

from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12n"


class TestFresh2026_12n(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (30, 9, 6, 15)  # logs, known, lacking, healthy when collected (README)
    FLOOR = None
    OPEN = "not measured yet (collected blind on 2026-12-06)"


if __name__ == "__main__":
    print_report(FOLDER)
