"""lint-npu round 5 (issue 36): torch_npu operator limits written only in its documentation (the wheel's
_op_plugin_docs.py), as api_values.yaml ``refused`` rules run by the one evaluator (npulab.lint.relations). The
snippets are not set D's cases: other operators' relatives, other parameters and other wrong values."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

HEAD = "import torch\nimport torch_npu\n"


@pytest.mark.parametrize("call", [
    "torch_npu.npu_prompt_flash_attention(q, k, v, num_heads=256, num_key_value_heads=2, input_layout='BNSD')",
    "torch_npu.npu_prompt_flash_attention(q, k, v, num_heads=12, num_key_value_heads=5, input_layout='BSH')",
    "torch_npu.npu_prompt_flash_attention(q, k, v, num_heads=8, input_layout='BNSD', sparse_mode=8)",
    "torch_npu.npu_incre_flash_attention(q, k, v, num_heads=8, input_layout='BNSD_BSND')",
    "torch_npu.npu_incre_flash_attention(q, k, v, num_heads=8, inner_precise=-1)",
    "torch_npu.npu_geglu(x, dim=-1, approximate=-1)",
    "torch_npu.npu_moe_gating_top_k_softmax(x, None, k=2048)",
])
def test_documented_operator_limits_are_refused(lint, call):  # noqa: F811
    found = lint(HEAD + f"out = {call}")
    assert [f.kind for f in found] == ["argument-value"], found
    assert "_op_plugin_docs.py" in found[0].message


@pytest.mark.parametrize("call", [
    "torch_npu.npu_prompt_flash_attention(q, k, v, num_heads=32, num_key_value_heads=8, input_layout='BNSD', sparse_mode=4)",
    "torch_npu.npu_prompt_flash_attention(q, k, v, num_heads=128, num_key_value_heads=2, input_layout='BSH')",
    "torch_npu.npu_incre_flash_attention(q, k, v, num_heads=8, input_layout='BSND', inner_precise=0)",
    "torch_npu.npu_incre_flash_attention(q, k, v, num_heads=8, num_key_value_heads=0)",
    "torch_npu.npu_geglu(x, approximate=0)",
    "torch_npu.npu_moe_gating_top_k_softmax(x, None, k=1024)",
    "torch_npu.npu_moe_gating_top_k_softmax(x, None, k=n)",  # a value the cell computes is not checked
])
def test_documented_values_pass(lint, call):  # noqa: F811
    assert lint(HEAD + f"out = {call}") == []
