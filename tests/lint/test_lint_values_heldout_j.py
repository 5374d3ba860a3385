"""Held-out set J of planted value/type errors for lint-npu (tests/data/lint_values_heldout_j, issue 36), scored as
every set is (tests/lint/heldout_values.py). Written on 2026-12-06 from public documentation and the pinned wheels by a
session that read lint-npu only through its public entry point, while round 10 was written, to measure that round once
afterwards. Baseline: see the README."""

from heldout_values import PlantedSetChecks, print_report

FOLDER = "lint_values_heldout_j"


class TestSetJ(PlantedSetChecks):
    FOLDER = FOLDER
    EARLIER = ("lint_values_dev", "lint_values_heldout", "lint_values_heldout_c", "lint_values_heldout_d",
               "lint_values_heldout_e", "lint_values_heldout_f", "lint_values_heldout_g", "lint_values_heldout_h",
               "lint_values_heldout_i")
    MIN_CASES, MIN_WEAK, MIN_CLI, MIN_ENV = 110, 30, 8, 4
    FLOOR = (0, 0)
    OPEN = "not every planted error is caught (the set is new; round 10 is measured on it once, README)"


if __name__ == "__main__":
    print_report(FOLDER)
