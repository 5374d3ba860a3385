"""lint-npu rounds 25 and 26: the TORCH_CHECKs the NPU kernels of torch_npu's fused operators make on their scalar
parameters, and (round 26) those of the op-plugin functions an operator calls with them (scripts/
extract_op_plugin_checks.py over Ascend/op-plugin's ``op_plugin/ops/opapi/*.cpp`` and ``op_plugin/utils`` →
npulab/data/op_plugin_checks.yaml → npulab.lint.op_cpp_checks). The reading is shown on C++ written for the test in
the forms of those files; a rule an operator's own documented example breaks on a page written for the test; the data
file through lint-npu's entry point on operators no labelled set uses (npu_moe_init_routing,
npu_fused_infer_attention_score_v2, npu_fusion_attention_v2)."""

from __future__ import annotations

import ast

import pytest
from test_lint_env_parsers import _load
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.core.paths import load_yaml
from npulab.lint import op_cpp_checks, op_docs
from npulab.lint.signatures import Signature, SourceTree

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


def _found(checks):
    return [(c.function, c.condition, c.python) for c in checks]


def test_top_level_checks_on_scalar_parameters_become_python_conditions():
    found = extract.checks(KERNELS, "Test.cpp")
    assert _found(found) == [
        ("npu_test_kernel", "mode >= 0 && mode <= MODE_MAX", "mode >= 0 and mode <= 2"),
        ("npu_test_kernel", "ratio > 0", "ratio > 0"),
        ("npu_test_kernel", 'layout == "BSH" || layout == "BNSD"', "layout == 'BSH' or layout == 'BNSD'"),
    ]
    assert [KERNELS.splitlines()[c.line - 1].strip()[:20] for c in found] == \
        ["TORCH_CHECK(mode >= ", "TORCH_CHECK(ratio > ", "TORCH_CHECK(layout ="]


CALLING = r'''
namespace op_api {
constexpr int64_t GROUP_MAX = 8;

namespace {
void check_test_layout(const at::Tensor &x, std::string layout, int64_t group, double eps)
{
    TORCH_CHECK(layout == "ND" || layout == "NZ", "layout ", layout, OPS_ERROR(ErrCode::PARAM))
    TORCH_CHECK(group > 0 && group <= GROUP_MAX, "group must be in [1, 8]");
    TORCH_CHECK(eps > 0, "the caller gives a literal here: no parameter of the operator is read");
    if (x.dim() == 2) {
        return;
    }
    TORCH_CHECK(group != 6, "after a return: conditional, left out");
}

int64_t scaled_test(int64_t ratio)
{
    ratio = ratio * 2;
    TORCH_CHECK(ratio < 100, "assigned above: not the caller's value any more");
    return ratio;
}

void check_test_branch(int64_t group)
{
    TORCH_CHECK(group < 4, "called in a branch only: conditional, left out");
}
}

at::Tensor npu_test_calling(const at::Tensor &x, c10::string_view layout_in, int64_t groups, int64_t ratio,
                            int64_t mode, bool flag)
{
    std::string layout_str = std::string(layout_in);
    check_test_layout(x, layout_str, groups, 1e-5);
    if (flag) {
        check_test_branch(groups);
    }
    auto scaled = scaled_test(ratio);
    check_util_mode(mode);
    return npu_test_inner(x, groups);
}

at::Tensor npu_test_inner(const at::Tensor &x, int64_t group)
{
    TORCH_CHECK(group != 3, "group must not be 3");
    return x;
}
}
'''

UTILS = r'''
inline void check_util_mode(int64_t mode)
{
    TORCH_CHECK(mode == 0 || mode == 1, "mode must be 0 or 1");
}
'''


def test_a_call_is_followed_once_with_the_callees_parameters_bound_to_the_operators():
    helpers = {d.name: [("op_plugin/utils/TestUtils.h", d, {})] for d in extract.definitions(UTILS)}
    found = [c for c in extract.checks(CALLING, "Calling.cpp", helpers) if c.function == "npu_test_calling"]
    assert _found(found) == [
        ("npu_test_calling", 'layout == "ND" || layout == "NZ"', "layout_in == 'ND' or layout_in == 'NZ'"),
        ("npu_test_calling", "group > 0 && group <= GROUP_MAX", "groups > 0 and groups <= 8"),
        ("npu_test_calling", "mode == 0 || mode == 1", "mode == 0 or mode == 1"),
        ("npu_test_calling", "group != 3", "groups != 3"),  # in the return statement's call
    ]
    layout, group, mode, inner = found
    assert (layout.callee, layout.path, layout.bound) == ("check_test_layout", "Calling.cpp", {"layout": "layout_in"})
    assert CALLING.splitlines()[layout.line - 1].strip().startswith('TORCH_CHECK(layout == "ND"')
    assert CALLING.splitlines()[layout.call_line - 1].strip().startswith("check_test_layout(x, layout_str")
    assert (mode.callee, mode.path, mode.bound) == ("check_util_mode", "op_plugin/utils/TestUtils.h", {})
    assert (inner.callee, inner.bound) == ("npu_test_inner", {"group": "groups"})
    rule = extract._rule(layout, "npu_test_calling", "c0ffee")
    assert rule["refused"] == "not (layout_in == 'ND' or layout_in == 'NZ')"
    assert "`check_test_layout`" in rule["rule"] and "其中 `layout` 即 `layout_in`" in rule["rule"]
    assert rule["source_en"].startswith(f"check_test_layout, called by npu_test_calling at line {layout.call_line}: ")
    assert rule["source_en"].endswith(f"Calling.cpp#L{layout.line}")  # the URL last


def test_a_copy_of_a_parameter_in_the_operators_own_body_is_the_parameter():
    text = 'at::Tensor npu_test_copy(c10::string_view layout, c10::string_view mode) {\n' \
           '    std::string layout_str = std::string(layout);\n' \
           '    std::string mode_str = std::string(mode);\n' \
           '    TORCH_CHECK(layout_str == "ND", "ND only");\n' \
           '    for (auto &c : mode_str) {\n        c = toupper(c);\n    }\n' \
           '    TORCH_CHECK(mode_str == "FAST", "upper-cased through a reference: not the caller\'s value any more");\n' \
           '    layout_str = "NZ";\n' \
           '    TORCH_CHECK(layout_str == "NZ", "assigned again: not the caller\'s value any more");\n' \
           '    return at::empty({});\n}\n'
    (check,) = extract.checks(text, "Copy.cpp")
    assert (check.python, check.callee, check.bound) == ("layout == 'ND'", None, {"layout_str": "layout"})
    assert "，其中 `layout_str` 即 `layout`" in extract._rule(check, "npu_test_copy", "c0ffee")["rule"]


def test_a_name_stays_the_callers_value_only_while_it_is_only_read():
    for read in ('x == "ND" || x != y', "f(a, x, b)", "auto n = x * 2;", "x.size() > 0", "!x", 'TORCH_CHECK(x > 0, "x ", x)'):
        assert extract._only_read("x", read), read
    for changed in ("x++;", "++x;", "x[0] = 'a';", "std::transform(x.begin(), x.end(), x.begin(), ::toupper);",
                    "auto *p = &x;", "for (auto &c : x) {}"):
        assert not extract._only_read("x", changed), changed


def test_a_kernel_is_named_as_the_operator_its_schema_declares():
    declared = {"npu_test_op"}
    assert extract._public("npu_test_op", declared) == "npu_test_op"
    assert extract._public("npu_test_op_symint", declared) == "npu_test_op"  # op-plugin's generator adds _symint
    assert extract._public("npu_test_op_common", declared) is None  # a helper no schema declares


PAGES = '''
_add_torch_npu_docstr("npu_test_op", """
npu_test_op(Tensor x, *, int mode=0, str layout="ND") -> Tensor

调用示例
>>> import torch, torch_npu
>>> x = torch.randn(2, 3).npu()
>>> out = torch_npu.npu_test_op(x, mode=3,
...                             layout="ND")
class TestOp(TestCase):
    def test_op(self):
        y = torch_npu.npu_test_op(x, mode=1)
""")
'''
RULES = [{"function": "torch_npu.npu_test_op", "refused": f"not ({test})", "rule": "written for the test",
          "rule_en": "written for the test", "source": "Test.cpp#L1", "source_en": "Test.cpp#L1"}
         for test in ("mode >= 0 and mode <= 2", "layout == 'ND' or layout == 'NZ'")]


def test_a_rule_an_operators_own_example_breaks_is_not_used(monkeypatch):
    tree = SourceTree("torch_npu", "0.test", {op_docs.MODULE: PAGES}, {"torch_npu"})
    sig = Signature(positional=["x"], required=1, keyword_only=["mode", "layout"], origin="schema")
    calls = op_cpp_checks.example_calls(op_docs.texts(tree)["npu_test_op"], "npu_test_op")
    assert [ast.unparse(c) for c in calls] == ["torch_npu.npu_test_op(x, mode=3, layout='ND')",
                                               "torch_npu.npu_test_op(x, mode=1)"]
    monkeypatch.setattr(op_cpp_checks, "_rules", lambda: {"torch_npu.npu_test_op": RULES})
    call = ast.parse("torch_npu.npu_test_op(x, mode=5, layout='BAD')", mode="eval").body
    found = op_cpp_checks.problems(tree, "torch_npu.npu_test_op", call, sig, set())
    assert [read for read, _ in found] == [["layout"]]  # the example gives mode=3: the page and the kernel disagree


def test_the_data_file_cites_one_commit_and_holds_python_tests():
    data = load_yaml(op_cpp_checks.CHECKS)
    assert data["rules"]
    for rule in data["rules"]:
        assert rule["function"].startswith("torch_npu.npu_") and not rule["function"].endswith("_symint")
        ast.parse(rule["refused"], mode="eval")
        assert f"github.com/Ascend/op-plugin/blob/{data['commit']}/op_plugin/" in rule["source"]
    assert any("called by" in rule["source_en"] for rule in data["rules"])


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


ATTENTION = """import torch
import torch_npu
q = torch.randn(1, 16, 1024, dtype=torch.float16).npu()
k = torch.randn(1, 16, 1024, dtype=torch.float16).npu()
v = torch.randn(1, 16, 1024, dtype=torch.float16).npu()
{call}
"""


@pytest.mark.parametrize(("call", "said"), [
    ('out, lse = torch_npu.npu_fused_infer_attention_score_v2(q, k, v, num_query_heads={n}, input_layout="BSH")',
     "`construct_fia_output_tensor_v2`"),
    ('out = torch_npu.npu_fusion_attention_v2(q, k, v, 16, "{layout}", keep_prob={p})', "`npu_fusion_attention_common`"),
])
def test_a_check_read_through_a_call_judges_a_cells_call(lint, call, said):  # noqa: F811
    found = lint(ATTENTION.format(call=call.format(n=0, layout="BSH", p=1.5)))
    assert [f.kind for f in found] == ["argument-value"], found
    assert said in found[0].message and "op-plugin" in found[0].message
    # npu_fusion_attention_common upper-cases its copy of input_layout before checking it: "bsh" is not judged
    assert lint(ATTENTION.format(call=call.format(n=8, layout="bsh", p=0.9))) == []
