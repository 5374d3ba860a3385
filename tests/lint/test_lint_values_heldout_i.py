"""Held-out set I of planted value/type errors for lint-npu (tests/data/lint_values_heldout_i, issue 36), scored as
every set is (tests/lint/heldout_values.py). Written on 2026-12-06 from public documentation and the pinned wheels by a
session that read lint-npu only through its public entry point, while round 9 was written, to measure that round once
afterwards. Baseline (main at 24215af, round 8): 48/130, 33/90 of the unlisted classes, 2 twins flagged by lint
defects (README), so the twin check is a strict xfail until they are fixed."""

import pytest
from heldout_values import PlantedSetChecks, print_report

FOLDER = "lint_values_heldout_i"


class TestSetI(PlantedSetChecks):
    FOLDER = FOLDER
    EARLIER = ("lint_values_dev", "lint_values_heldout", "lint_values_heldout_c", "lint_values_heldout_d",
               "lint_values_heldout_e", "lint_values_heldout_f", "lint_values_heldout_g", "lint_values_heldout_h")
    MIN_CASES, MIN_WEAK, MIN_CLI, MIN_ENV = 120, 30, 8, 5
    FLOOR = (0, 0)
    OPEN = "not every planted error is caught (the set is new; round 9 is measured on it once, README)"
    # Two twins are flagged by lint-npu defects at the baseline (README "Baseline"): ASCEND_MODULE_LOG_LEVEL missing
    # from the variables' table (env-unknown) and ops.tensor_split's indices_or_sections taken for a bool. Strict, so
    # the mark has to go once both are fixed.
    TWINS_OPEN = ("two correct twins flagged at the baseline by lint defects: env_ascend_module_log_level_name, "
                  "ms_ops_tensor_split_zero (README)")

    def test_no_regression_and_no_twin_flagged(self, result, request):
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=self.TWINS_OPEN))
        super().test_no_regression_and_no_twin_flagged(result)


if __name__ == "__main__":
    print_report(FOLDER)
