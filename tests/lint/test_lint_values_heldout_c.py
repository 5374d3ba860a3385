"""Held-out set C of planted value/type errors for lint-npu (tests/data/lint_values_heldout_c, issue 36), scored as
every set is (tests/lint/heldout_values.py). Written after set B, from public documentation and the pinned wheels, by
a session that read lint-npu only through its public entry point. Round 3 caught 26/54 (6/24 of the unlisted classes)
when it was measured once; at baseline two twins were flagged (HCCL_RDMA_QPS_PER_CONNECTION and
HCCL_RDMA_PCIE_DIRECT_POST_NOSTRICT, documented in CANN 8.5.0 but missing from the variables' table), learnt after the
measurement. Round 4 was written with this set as development data and catches all of it, so "every planted error
caught" is binding (README)."""

from heldout_values import PlantedSetChecks, print_report

FOLDER = "lint_values_heldout_c"


class TestSetC(PlantedSetChecks):
    FOLDER = FOLDER
    FLOOR = (54, 24)


if __name__ == "__main__":
    print_report(FOLDER)
