"""Held-out set N of planted value/type errors for lint-npu (tests/data/lint_values_heldout_n, issue 36), scored as
every set is (tests/lint/heldout_values.py). Written on 2026-12-07 from public documentation and the pinned wheels by a
session that read lint-npu only through its public entry point. Baseline (main at 8ee5703): 69/126, 51/64 of the
unlisted classes, one correct twin flagged (npu_fused_floyd_attention_head_dim_16, README)."""

import pytest
from heldout_values import PlantedSetChecks, print_report

FOLDER = "lint_values_heldout_n"


class TestSetN(PlantedSetChecks):
    FOLDER = FOLDER
    EARLIER = ("lint_values_dev", "lint_values_heldout", "lint_values_heldout_c", "lint_values_heldout_d",
               "lint_values_heldout_e", "lint_values_heldout_f", "lint_values_heldout_g", "lint_values_heldout_h",
               "lint_values_heldout_i", "lint_values_heldout_j", "lint_values_heldout_k", "lint_values_heldout_l",
               "lint_values_heldout_m")
    MIN_CASES, MIN_KINDS, MIN_WEAK, MIN_UNLISTED, MIN_CLI, MIN_ENV = 120, 12, 60, 60, 9, 18
    FLOOR = (69, 51)
    OPEN = ("not every planted error is caught (baseline on main at 8ee5703: 69/126, 51/64 of the unlisted classes, "
            "1/126 twins flagged; README)")
    # The twin the baseline flagged although it follows the operator page of the pinned wheel (README). Any other
    # flagged twin fails; this one is a strict xfail until lint-npu stops flagging it.
    KNOWN_FLAGGED_TWINS = frozenset({"npu_fused_floyd_attention_head_dim_16"})

    def test_no_regression_and_no_twin_flagged(self, result, request):
        caught, unlisted = self.FLOOR
        assert result["caught"][0] >= caught and result["caught_unlisted"][0] >= unlisted, \
            (result["caught"], result["caught_unlisted"])
        flagged = {r["id"] for r in result["rows"] if r["twin"]}
        assert flagged <= self.KNOWN_FLAGGED_TWINS, sorted(flagged - self.KNOWN_FLAGGED_TWINS)
        if flagged:
            request.node.add_marker(pytest.mark.xfail(strict=True, reason="known flagged twin (README): "
                                                      + ", ".join(sorted(flagged))))
        super().test_no_regression_and_no_twin_flagged(result)


if __name__ == "__main__":
    print_report(FOLDER)
