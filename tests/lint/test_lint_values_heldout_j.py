"""Held-out set J of planted value/type errors for lint-npu (tests/data/lint_values_heldout_j, issue 36), scored as
every set is (tests/lint/heldout_values.py). Written on 2026-12-06 from public documentation and the pinned wheels by a
session that read lint-npu only through its public entry point, while round 10 was written, to measure that round once
afterwards. Baseline (main at fbb9ff5, round 9): 24/114, 15/91 of the unlisted classes; one correct twin flagged by a
lint defect (README), so the twin check is a strict xfail until it is fixed."""

import pytest
from heldout_values import PlantedSetChecks, print_report

FOLDER = "lint_values_heldout_j"


class TestSetJ(PlantedSetChecks):
    FOLDER = FOLDER
    EARLIER = ("lint_values_dev", "lint_values_heldout", "lint_values_heldout_c", "lint_values_heldout_d",
               "lint_values_heldout_e", "lint_values_heldout_f", "lint_values_heldout_g", "lint_values_heldout_h",
               "lint_values_heldout_i")
    MIN_CASES, MIN_WEAK, MIN_CLI, MIN_ENV = 110, 30, 8, 4
    FLOOR = (0, 0)
    OPEN = ("not every planted error is caught (baseline 24/114, 15/91 of the unlisted classes; round 10 is measured on "
            "it once, README)")
    # One twin is flagged by a lint-npu defect at the baseline (README "Baseline"): MindSpore nn.ReflectionPad2d's int
    # padding, which its docstring allows (Union[int, tuple]) and the CPU build runs, read as a tuple-only argument.
    # Strict, so the mark has to go once it is fixed.
    TWINS_OPEN = "a correct twin flagged at the baseline by a lint defect: ms_nn_reflection_pad_too_large (README)"

    def test_no_regression_and_no_twin_flagged(self, result, request):
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=self.TWINS_OPEN))
        super().test_no_regression_and_no_twin_flagged(result)


if __name__ == "__main__":
    print_report(FOLDER)
