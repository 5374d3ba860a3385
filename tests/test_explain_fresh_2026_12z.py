"""Fresh set "2026-12z" (tests/data/explain_fresh_2026_12z) of issue 36: 20 public logs (8 with a catalogued cause, 6 whose cause the catalogue lacks but the source names a fix, 6 healthy or non-Ascend) collected blind before the next round of message-reading rules."""
from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12z"


class TestFresh2026_12z(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (20, 8, 6, 6)  # when collected (README)
    WEB_PAGES = True
    FLOOR = None  # the lead fills this in once the set is measured
    OPEN = None


if __name__ == "__main__":
    print_report(FOLDER)
