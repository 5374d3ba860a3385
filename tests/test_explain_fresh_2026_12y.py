"""Fresh set "2026-12y" (tests/data/explain_fresh_2026_12y) of issue 36: 17 public logs (11 web pages, 6 GitHub threads) collected before the next round of message-reading rules, to measure it once."""
from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12y"


class TestFresh2026_12y(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (17, 7, 3, 7)  # when collected (README)
    WEB_PAGES = True
    FLOOR = None  # the lead fills this in once the set is measured
    OPEN = None


if __name__ == "__main__":
    print_report(FOLDER)
