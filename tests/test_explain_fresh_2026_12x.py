"""Fresh set "2026-12x" (tests/data/explain_fresh_2026_12x) of issue 36: 18 public logs (10 web pages, 8 GitHub threads) collected before the next round of message-reading rules, to measure it once."""
from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12x"


class TestFresh2026_12x(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (18, 5, 4, 9)  # when collected (README)
    WEB_PAGES = True
    FLOOR = None  # the lead fills this in once the set is measured
    OPEN = None


if __name__ == "__main__":
    print_report(FOLDER)
