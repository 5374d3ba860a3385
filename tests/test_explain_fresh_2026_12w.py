"""Fresh set "2026-12w" (tests/data/explain_fresh_2026_12w) of issue 36: error logs and healthy or non-Ascend logs
from public GitHub threads and public web pages that neither the catalog nor any other explain set cites, collected
and labelled before the next round of message-reading rules, without reading those rules or running explain."""
from explain_fresh_set import FreshSetChecks, print_report

FOLDER = "explain_fresh_2026_12w"


class TestFresh2026_12w(FreshSetChecks):
    FOLDER = FOLDER
    SIZES = (20, 7, 4, 9)  # when collected (README)
    WEB_PAGES = True
    FLOOR = None  # the lead fills this in once the set is measured
    OPEN = None


if __name__ == "__main__":
    print_report(FOLDER)
