"""Fresh set "2026-12r" (tests/data/explain_fresh_2026_12r) of issue 36: error logs and healthy or non-Ascend logs
from public threads that neither the catalog nor any other explain set cites, collected and labelled before the next
round of message-reading rules, by someone who did not read the rules and did not run ``explain`` on them (README).
``python tests/test_explain_fresh_2026_12r.py`` prints the table."""

from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12r"


class TestFresh2026_12r(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (18, 6, 3, 9)  # logs, known, lacking, healthy when collected (README)
    # not measured yet: the lead measures it once
    FLOOR = None
    OPEN = None


if __name__ == "__main__":
    print_report(FOLDER)
