"""lint-npu round 25: the TORCH_CHECKs the NPU kernels of torch_npu's fused operators make on their scalar parameters
(scripts/extract_op_plugin_checks.py over Ascend/op-plugin's ``op_plugin/ops/opapi/*.cpp`` → npulab/data/
op_plugin_checks.yaml → npulab.lint.op_cpp_checks). The reading is shown on C++ written for the test in the forms of
those files; the data file through lint-npu's entry point on an operator no labelled set uses (npu_moe_init_routing)."""

from __future__ import annotations

import ast

from test_lint_env_parsers import _load
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.core.paths import load_yaml
from npulab.lint import op_cpp_checks

extract = _load("extract_op_plugin_checks")

KERNELS = r'''
namespace op_api {
constexpr int64_t MODE_MAX = 2;  // a constant the file defines

at::Tensor npu_test_kernel(const at::Tensor &x, int64_t mode, double ratio, c10::string_view layout,
                           int64_t group, c10::optional<at::Tensor> bias)
{
    auto y = x.clone();
    TORCH_CHECK(mode >= 0 && mode <= MODE_MAX, "mode must be in [0, 2], but got ", mode, OPS_ERROR(ErrCode::VALUE));
    TORCH_CHECK(ratio > 0, "ratio must > 0", OPS_ERROR(ErrCode::VALUE));
    TORCH_CHECK(layout == "BSH" || layout == "BNSD", "layout ", layout);
    TORCH_CHECK(x.dim() == 2, "x must be 2D");  /* a tensor's rank: the meta functions speak of those */
    if (group == 0) {
        group = 1;
    }
    TORCH_CHECK(group > 0, "group changed above: not the caller's value any more");
    if (mode == 1) {
        return y;
    }
    TORCH_CHECK(ratio < 1, "after a return: conditional, left out");
    return y;
}
}
'''


def test_top_level_checks_on_scalar_parameters_become_python_conditions():
    found = [(name, condition, python) for name, _, condition, python in extract.checks(KERNELS, "Test.cpp")]
    assert found == [
        ("npu_test_kernel", "mode >= 0 && mode <= MODE_MAX", "mode >= 0 and mode <= 2"),
        ("npu_test_kernel", "ratio > 0", "ratio > 0"),
        ("npu_test_kernel", 'layout == "BSH" || layout == "BNSD"', "layout == 'BSH' or layout == 'BNSD'"),
    ]
    lines = [line for _, line, _, _ in extract.checks(KERNELS, "Test.cpp")]
    assert [KERNELS.splitlines()[n - 1].strip()[:20] for n in lines] == \
        ["TORCH_CHECK(mode >= ", "TORCH_CHECK(ratio > ", "TORCH_CHECK(layout ="]


def test_the_data_file_cites_one_commit_and_holds_python_tests():
    data = load_yaml(op_cpp_checks.CHECKS)
    assert data["rules"]
    for rule in data["rules"]:
        assert rule["function"].startswith("torch_npu.npu_")
        ast.parse(rule["refused"], mode="eval")
        assert f"github.com/Ascend/op-plugin/blob/{data['commit']}/op_plugin/ops/opapi/" in rule["source"]


ROUTING = """import torch
import torch_npu
x = torch.randn(8, 16).npu()
row_idx = torch.arange(16, dtype=torch.int32).reshape(8, 2).npu()
expert_idx = torch.randint(0, 4, (8, 2), dtype=torch.int32).npu()
out = torch_npu.npu_moe_init_routing(x, row_idx, expert_idx, active_num={n})
"""


def test_a_kernel_check_judges_a_cells_call(lint):  # noqa: F811
    found = lint(ROUTING.format(n=-1))
    assert [f.kind for f in found] == ["argument-value"], found
    assert "`active_num >= 0`" in found[0].message and "MoeInitRoutingKernelNpuOpApi.cpp" in found[0].message
    assert lint(ROUTING.format(n=8)) == []
