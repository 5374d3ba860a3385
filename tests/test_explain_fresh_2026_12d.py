"""Fresh set "2026-12d" (tests/data/explain_fresh_2026_12d) of issue 36: error logs and healthy or non-Ascend logs
from public threads that neither the catalog nor any earlier explain set cites, collected and labelled before the next
round of message-reading rules, by someone who did not read the rules and did not run ``explain`` on them. Measured
once with the rules on main (README, "Measurement"): a floor test keeps that, and the issue's aims are a strict xfail.
``python tests/test_explain_fresh_2026_12d.py`` prints the table."""

from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12d"


class TestFresh2026_12d(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (30, 15, 3, 12)  # logs, known, lacking, healthy when collected (README)
    PER_REPOSITORY = False
    # round 7 (round 6: 12 known; first measurement 9 known, 0 fix named, 11 healthy, 1 silent); fix named since round 6
    FLOOR = dict(known=14, fix_named=1, healthy=12, silent=0)
    OPEN = ("issue 36 aims not met on this set (round 6: 12/15 known, 1/3 fix named, 0/18 silent, 12/12 healthy; "
            "measured first 9/15, 0/3, 1/18, 11/12): explain stays open")


if __name__ == "__main__":
    print_report(FOLDER)
