"""lint-npu round 7 (issue 36): torch_npu operator limits read from the operators' documentation in the wheel
(npulab.lint.op_docs, phrases in npulab.lint.op_doc_phrases). The snippets are not the case sets': other operators,
other parameters and other values."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint import op_docs

HEAD = "import torch\nimport torch_npu\n"

TEXT = """
torch_npu.npu_demo(Tensor x, int mode=0, str layout="BSH", float ratio=0.5, int block=64, bool padded=False, int? a=None, int? b=None) -> Tensor

参数说明:
x (Tensor): 输入张量，取值范围[0, 1]。
mode (int): 计算模式，可取值0或1。
layout (str): 可选参数，支持"BSH"、"BNSD"，默认"BSH"。
ratio (float): 可选参数，取值范围(0, 1]。
block (int): 可选参数，必须是32的倍数。
padded (bool): 可选参数，目前仅支持为False。
a (int): 可选参数，不支持a和b同时传None。
b (int): 可选参数，当x为float16时仅支持2。

约束说明:
目前仅支持输入的最后一个维度(dim=-1)。
"""


def _rules() -> dict[str, str]:
    return {r["refused"]: r["rule_en"] for r in op_docs.limits_of_text(TEXT, "npu_demo", (), "0")}


def test_phrases_become_refused_rules():
    rules = _rules()
    assert "isinstance(mode, int) and mode not in (0, 1,)" in rules
    assert "isinstance(layout, str) and layout not in ('BSH', 'BNSD',)" in rules
    assert "not (0 < ratio and ratio <= 1)" in rules
    assert "block % 32 != 0" in rules
    assert "padded is not False" in rules
    assert "a is None and b is None" in rules
    assert all("_op_plugin_docs" not in r for r in rules)  # the words; the source cites the file


def test_what_is_not_one_parameters_limit_is_left_out():
    rules = " ".join(_rules())
    assert "x" not in {n for r in _rules() for n in r.replace("(", " ").split()}  # a tensor's value range
    assert "b not in" not in rules  # stated under a condition ("当x为float16时")
    assert "dim" not in rules  # dim is not a parameter of the operator


def test_a_limit_the_default_breaks_is_dropped():
    text = TEXT.replace("int block=64", "int block=48")
    assert "block % 32 != 0" not in {r["refused"] for r in op_docs.limits_of_text(text, "npu_demo", (), "0")}


@pytest.mark.parametrize("call", [
    "torch_npu.npu_giou(a, b, mode=2)",
    "torch_npu.npu_prefetch(w, None, 1024, offset=-1)",
    "torch_npu.npu_mhc_sinkhorn(x, num_iters=0)",
    "torch_npu.npu_moe_token_unpermute(t, order, padded_mode=True)",
    "torch_npu.npu_anti_quant(x, scale, src_dtype=torch.float16)",
    "torch_npu.npu_quantize(x, s, None, torch.quint8, -1, False)",
    "torch_npu.npu_dynamic_block_quant(x, row_block_size=2)",
])
def test_documented_operator_limits_are_read(lint, call):  # noqa: F811
    found = lint(HEAD + f"out = {call}")
    assert [f.kind for f in found] == ["argument-value"], found
    assert "_op_plugin_docs.py" in found[0].message


@pytest.mark.parametrize("call", [
    "torch_npu.npu_giou(a, b, mode=1)",
    "torch_npu.npu_giou(a, b, mode=m)",  # a value the cell computes is not checked
    "torch_npu.npu_prefetch(w, None, 1024, offset=0)",
    "torch_npu.npu_anti_quant(x, scale, src_dtype=torch.int8, dst_dtype=torch.half)",
    "torch_npu.npu_quantize(x, s, None, torch.quint4x2, -1, False)",
    "torch_npu.npu_quantize(x, s, None, torch.quint8, -1, True)",
    "torch_npu.npu_dynamic_block_quant(x, row_block_size=1, col_block_size=128)",
])
def test_documented_values_pass(lint, call):  # noqa: F811
    assert lint(HEAD + f"out = {call}") == []


ROUND8_TEXT = """
torch_npu.npu_other(Tensor x, str act="relu", int kind=0, int fill=1, int level=2) -> Tensor

参数说明:
act (str): 可选参数，激活函数。目前仅支持relu、sigmoid、tanh.
kind (int): 可选参数，默认值为0 - 0为左对齐，1为右对齐，2为居中。
fill (int): 可选参数，支持的枚举值为1和3。
level (int): 可选参数，当x为float16时0为关闭，2为开启。
"""


def test_round8_phrases_unquoted_lists_described_values_and_enumerations():
    rules = {r["refused"] for r in op_docs.limits_of_text(ROUND8_TEXT, "npu_other", (), "0")}
    assert "isinstance(act, str) and act not in ('relu', 'sigmoid', 'tanh',)" in rules
    assert "isinstance(kind, int) and kind not in (0, 1, 2,)" in rules
    assert "isinstance(fill, int) and fill not in (1, 3,)" in rules
    assert not any("level" in r for r in rules)  # stated under a condition (当x为float16时)
