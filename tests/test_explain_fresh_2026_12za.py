"""Fresh set "2026-12za" (tests/data/explain_fresh_2026_12za) of issue 36: public logs nobody writing the rules has seen, collected before the next round of rules."""
from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12za"


class TestFresh2026_12za(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (20, 6, 8, 6)  # when collected (README)
    WEB_PAGES = True
    FLOOR = None  # the lead fills this in once the set is measured
    OPEN = None


if __name__ == "__main__":
    print_report(FOLDER)
