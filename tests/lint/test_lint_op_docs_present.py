"""lint-npu round 24 (issue 36): the operator pages' "at present" sentences read as the parameter's own value set
(npulab.lint.op_docs, phrases in npulab.lint.op_doc_phrases). ``当前`` ("at present") was read as ``当`` ("when"), so
every ``当前版本仅支持…`` was taken for a condition and dropped; a sentence naming one product still limits that
product only. The operator text is written for the test; the real calls are to operators no case set calls."""

from __future__ import annotations

import pytest
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint import op_docs

TEXT = """
torch_npu.npu_present(Tensor x, str reduce="max", int turn=0, int mode=1, bool flip=False, str act="erf", int pad=0, str form="NZ", int lanes=4, int width=2) -> Tensor

参数说明:
x (Tensor): 输入张量。
reduce (str): 规约类型, 当前版本仅支持'max', 默认值: 'max'.
turn (int): 切分粒度, 默认值: 0. 当前版本仅支持输入0.
mode (int): 计算模式, 当前仅支持取值1、2、5, 取值3、4暂未实现.
flip (bool): 可选参数, 默认值为False, 当前版本仅支持False。
act (str): 可选参数, 支持"erf"(精确版本)和"sigmoid"(近似版本).
pad (int): 可选参数, 取值范围为0, 默认值为0.
form (str): 可选参数, 当前支持NZ、ND，默认值"NZ"。
lanes (int): 可选参数。Atlas 推理系列产品: 当前只支持传入4。
width (int): 可选参数，当x为float16时仅支持2。
"""


def _rules() -> set[str]:
    return {r["refused"] for r in op_docs.limits_of_text(TEXT, "npu_present", (), "0")}


def test_at_present_sentences_give_the_value_set():
    rules = _rules()
    assert "isinstance(reduce, str) and reduce not in ('max',)" in rules
    assert "isinstance(turn, int) and turn not in (0,)" in rules  # a full stop ends the text after the number
    assert "isinstance(mode, int) and mode not in (1, 2, 5,)" in rules  # a list after "only supports"
    assert "flip is not False" in rules
    assert "isinstance(act, str) and act not in ('erf', 'sigmoid',)" in rules  # each word with its gloss
    assert "isinstance(pad, int) and pad not in (0,)" in rules  # a range of one value
    assert "isinstance(form, str) and form not in ('NZ', 'ND',)" in rules  # closed by the default's clause


def test_a_product_or_a_condition_still_closes_nothing():
    rules = " ".join(_rules())
    assert "lanes" not in rules  # one product's limit
    assert "width" not in rules  # under a condition (当x为float16时)


def test_a_decimal_is_not_read_as_a_number_and_its_full_stop():
    text = TEXT.replace("当前版本仅支持输入0.", "当前版本仅支持输入0.5")
    assert not any(r.startswith("isinstance(turn") for r in
                   (r["refused"] for r in op_docs.limits_of_text(text, "npu_present", (), "0")))


ARGS = "q, k, qi, ki, w, sm, ss"
BSND, TND = "1, 1, 1, 1", "1, 1, 1"
SPARSE, DENSE = "torch_npu.npu_sparse_lightning_indexer_grad_kl_loss", "torch_npu.npu_dense_lightning_indexer_grad_kl_loss"


def _cell(shape: str, call: str) -> str:
    """The call with each tensor of the dtype its paragraph states (the dense operator's softmax_* float32)."""
    softmax = "float32" if call.startswith(DENSE) else "float16"
    return ("import torch\nimport torch_npu\n"
            f"q = k = qi = ki = w = idx = torch.zeros({shape}, dtype=torch.float16)\n"
            f"sm = ss = smi = ssi = torch.zeros({shape}, dtype=torch.{softmax})\n"
            f"out = {call}")


@pytest.mark.parametrize("call", [
    f"{SPARSE}({ARGS}, idx, 1.0, layout='SBH')",
    f"{DENSE}({ARGS}, smi, ssi, 1.0, layout='BNSD')",
])
def test_an_at_present_list_refuses_a_value_outside_it(lint, call):  # noqa: F811
    found = lint(_cell(BSND, call))
    assert [f.kind for f in found] == ["argument-value"], found
    assert "_op_plugin_docs.py" in found[0].message and "BSND" in found[0].message


@pytest.mark.parametrize(("shape", "call"), [
    (TND, f"{SPARSE}({ARGS}, idx, 1.0, layout='TND')"),
    (BSND, f"{DENSE}({ARGS}, smi, ssi, 1.0, layout='BSND')"),
])
def test_its_values_pass(lint, shape, call):  # noqa: F811
    assert lint(_cell(shape, call)) == []
