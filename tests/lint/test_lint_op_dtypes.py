"""lint-npu round 15: the data types torch_npu's operator texts state for tensor arguments (npulab.lint.op_dtypes),
checked on the meta device by npulab.lint.op_ranks. Operator texts written for the test, in the forms of the pages of
the torch_npu 2.12.0 wheel's ``_op_plugin_docs.py`` (npu_fast_gelu's product lines, npu_swiglu's ``“x”`` and
``dtype支持FP32、FP16或BF16类型``, npu_masked_fill_range's ``int32 3D张量``); and the round's other readings: a named
axis's range (npu_fused_floyd_attention's ``D：取值范围为32~256`` on its ``[BHMND]`` layout, npu_batch_gather_matmul's
``R需要是16的整数倍且取值范围为[16, 128]``) and a list of only settings (npu_nsa_compress_attention's
``目前仅支持compress_block_size=32, compress_stride=16, …``)."""

from __future__ import annotations

import ast

import torch

from npulab.lint import meta_run, op_axes, op_docs, op_dtypes, op_ranks

OPERATOR = """
接口原型
torch_npu.npu_test_op(Tensor self, Tensor weight, Tensor? index=None, Tensor? scale=None, *, int mode=0) -> Tensor

参数说明
“x”：Tensor类型，shape支持1-8维，dtype支持FP32、FP16或BF16类型。
weight (Tensor) - 数据格式支持ND。
Atlas 训练系列产品: 数据类型支持float16、float32.
Atlas A2 训练系列产品/Atlas 800I A2 推理产品: 数据类型支持float16、float32、bfloat16.
index (Tensor) - shape为(num,N)的int32 3D张量。
scale (Tensor) - 数据类型支持FLOAT，数据格式支持ND。
mode (Int，默认值为0) - 0表示普通模式，1表示快速模式。

调用示例
>>> import torch, torch_npu
>>> x = torch.randn(2, 4, 8).npu()
>>> w = torch.randn(8, 16, dtype=torch.float16).npu()
>>> y = torch_npu.npu_test_op(x, w)
"""


def _sets(text: str) -> dict[str, list[str]]:
    return {p: sorted(d) for p, (d, _) in op_dtypes.dtypes_of_text(text, "npu_test_op").items()}


def test_dtype_sentences_are_read_without_case_with_abbreviations_and_across_product_lines():
    assert _sets(OPERATOR) == {"self": ["bfloat16", "float16", "float32"],  # “x” documents the prototype's self
                               "weight": ["bfloat16", "float16", "float32"], "index": ["int32"], "scale": ["float32"]}
    _, said = op_dtypes.dtypes_of_text(OPERATOR, "npu_test_op")["weight"]
    assert said.startswith("Atlas A2")  # the product line that names the most


def test_a_condition_a_mode_an_unmapped_or_open_list_or_a_tie_closes_nothing():
    changed = {
        "数据类型支持FLOAT，": "非量化场景下数据类型支持FLOAT，",
        "shape为(num,N)的int32 3D张量": "per-token模式下为int32 3D张量",
        "数据类型支持float16、float32.": "数据类型支持float16、float32、INT4.",
        "dtype支持FP32、FP16或BF16类型": "dtype支持FP32、FP16等类型",
    }
    text = OPERATOR
    for old, new in changed.items():
        text = text.replace(old, new)
    assert _sets(text) == {}
    tied = OPERATOR.replace("数据类型支持FLOAT，", "数据类型与weight一致，")
    assert "scale" not in _sets(tied)
    headed = OPERATOR.replace("scale (Tensor) - 数据类型支持FLOAT", "scale (Tensor) - mode为1时:\n数据类型支持FLOAT")
    assert "scale" not in _sets(headed)


def test_an_example_that_breaks_a_dtype_rule_drops_it():
    found = op_dtypes.dtypes_of_text(OPERATOR, "npu_test_op")
    assert not op_ranks._example_refused(OPERATOR, "npu_test_op", ({}, {}, found))
    int_example = OPERATOR.replace("torch.randn(8, 16, dtype=torch.float16)", "torch.ones(8, 16, dtype=torch.int8)")
    assert op_ranks._example_refused(int_example, "npu_test_op", ({}, {}, found))
    tree = _Tree(int_example)
    assert op_ranks.rules(tree, "npu_test_op")[2] == {}
    assert op_ranks.rules(_Tree(OPERATOR), "npu_test_op")[2]["index"][0] == {"int32"}


class _Tree:
    """The pinned wheel's source tree, as far as op_docs reads it: one _op_plugin_docs.py holding ``text``."""

    version = "2.12.0"

    def __init__(self, text: str):
        self.source = f"_add_torch_npu_docstr('npu_test_op', {text!r})\n"

    def tree(self, module: str):
        return ast.parse(self.source) if module == op_docs.MODULE else None


def test_a_tensor_outside_the_documented_dtypes_is_a_finding_that_quotes_the_page():
    check = op_ranks.refusal(_Tree(OPERATOR))
    cell = ("import torch\nimport torch_npu\nx = torch.randn(4, 8, dtype=torch.float16).npu()\n"
            "w = torch.randn(8, 16).npu()\ni = torch.zeros(2, 3, 4, dtype=torch.int64).npu()\n"
            "y = torch_npu.npu_test_op(x, w, index=i)\n")
    found = meta_run.findings(ast.parse(cell), {"torch": "torch", "torch_npu": "torch_npu"}, check)
    assert [(line, written) for line, written, _ in found] == [(6, "torch_npu.npu_test_op")]
    assert "`index` 是 torch.int64 张量" in found[0][2] and "torch.int32" in found[0][2] and "int32 3D张量" in found[0][2]
    right = check("npu_test_op", (torch.empty(4, 8, device="meta", dtype=torch.bfloat16),
                                  torch.empty(8, 16, device="meta")), {"index": torch.empty(2, 3, 4, dtype=torch.int32,
                                                                                             device="meta")})
    assert right is None


def test_an_example_through_numpy_that_names_a_dtype_no_rule_admits_drops_the_dtype_rules():
    """npu_rotated_iou's page says float32 and its example passes ``np.random.uniform(…).astype(np.float16)`` through
    ``torch.from_numpy``, which the interpreter does not run: the dtype the example names drops the rules."""
    numpy_example = OPERATOR.replace(">>> w = torch.randn(8, 16, dtype=torch.float16).npu()",
                                     ">>> w = torch.from_numpy(np.ones((8, 16)).astype(np.int8)).npu()")
    assert op_dtypes.named_in_code(op_ranks._example(numpy_example)) == {"int8"}
    assert op_ranks.rules(_Tree(numpy_example), "npu_test_op")[2] == {}
    assert op_dtypes.named_in_code("x.half(); y.to(torch.long); z = np.float") == {"float16", "int64"}


AXES = """
接口原型
torch_npu.npu_test_op(Tensor query, Tensor weight, int block_size, int stride, int mode=0) -> Tensor

参数说明
query (Tensor) - 输入shape支持[BHMND]，数据类型支持FLOAT16。
weight (Tensor) - shape支持4维：[W, L, R, H1]，R需要是16的整数倍且取值范围为[16, 128]。
block_size (int) - 必选参数。
stride (int) - 必选参数。

约束说明
B：取值范围为1~2K。
D：取值范围为32~256。
目前仅支持block_size=32, stride=16。
"""


def test_a_named_axis_range_a_layout_without_separators_and_a_list_of_only_settings_are_read():
    rules = op_axes.axes_of_text(AXES, "npu_test_op")
    assert [(axis, kind, value) for _, axis, kind, value, _ in rules["query"]] == [("D", "range", (32, 256))]  # 2K: not read
    assert op_axes.broken(torch.empty(1, 2, 8, 16, 16), rules["query"])[:3] == ("D", 16, "range")
    assert op_axes.broken(torch.empty(1, 2, 8, 16, 64), rules["query"]) is None
    assert {(axis, kind, value) for _, axis, kind, value, _ in rules["weight"]} == {("R", "multiple", 16),
                                                                                    ("R", "range", (16, 128))}
    assert op_axes.broken(torch.empty(2, 1, 256, 16), rules["weight"])[:2] == ("R", 256)
    values = {r["refused"] for r in op_docs.limits_of_text(AXES, "npu_test_op", (), "2.12.0")}
    assert {"block_size != 32", "stride != 16"} <= values
    conditional = AXES.replace("目前仅支持block_size=32", "mode为1时仅支持block_size=32")
    assert not {"block_size != 32", "stride != 16"} & {r["refused"] for r in
                                                        op_docs.limits_of_text(conditional, "npu_test_op", (), "2.12.0")}


def test_an_only_setting_under_a_parameter_given_is_read_with_its_condition():
    """npu_dequant_swiglu_quant: "当 group_index 非 None 时，仅支持动态量化（quant_mode=1）" holds only with a group_index."""
    given = AXES.replace("目前仅支持block_size=32, stride=16。", "当 query 非 None 时，仅支持快速模式（block_size=32）。")
    values = {r["refused"] for r in op_docs.limits_of_text(given, "npu_test_op", (), "2.12.0")}
    assert "query is not None and block_size != 32" in values and "block_size != 32" not in values


def test_an_integer_bounded_by_a_tensors_axis_is_checked_against_the_tensor_passed():
    """npu_batch_gather_matmul: "layer_idx：…值需要小于weight_b的第二个维度L"."""
    text = AXES.replace("block_size (int) - 必选参数。", "block_size (int) - 必选参数，值需要小于weight的第二个维度L。")
    below = op_axes.below_of_text(text, "npu_test_op")
    assert [(t, i, strict) for t, i, strict, _ in below["block_size"]] == [("weight", 1, True)]
    weight = torch.empty(2, 4, 64, 16, device="meta")
    assert op_axes.below_broken({"block_size": 4, "weight": weight}, below)[:5] == ("block_size", 4, "weight", 2, 4)
    assert op_axes.below_broken({"block_size": 3, "weight": weight}, below) is None
    conditional = text.replace("值需要小于weight", "mode为1时值需要小于weight")
    assert op_axes.below_of_text(conditional, "npu_test_op") == {}


def test_a_tie_to_another_tensor_is_read_as_one_dtype_but_not_under_a_condition_or_for_one_product():
    tied = OPERATOR.replace("scale (Tensor) - 数据类型支持FLOAT，", "scale (Tensor) - 数据类型需要与入参weight保持一致，")
    ties = op_dtypes.ties_of_text(tied, "npu_test_op")
    assert {p: other for p, (other, _) in ties.items()} == {"scale": "weight"}
    half, full = torch.empty(2, device="meta", dtype=torch.float16), torch.empty(2, device="meta")
    assert op_dtypes.tie_broken({"scale": half, "weight": full}, ties)[:4] == ("scale", "float16", "weight", "float32")
    assert op_dtypes.tie_broken({"scale": full, "weight": full}, ties) is None
    for condition in ("量化场景下数据类型需要与入参weight保持一致", "Atlas A3 训练系列产品: 数据类型需要与入参weight保持一致"):
        assert op_dtypes.ties_of_text(tied.replace("数据类型需要与入参weight保持一致", condition), "npu_test_op") == {}


def test_a_dtype_parameter_read_from_only_and_from_each_values_meaning():
    """npu_dynamic_quant_asymmetric's "输入值只能是torch.int8和torch.quint4x2", npu_add_rms_norm_dynamic_quant's
    "None或torch.int8表示INT8（默认）；torch.quint4x2表示INT4，输出为torch.int32" (int32 is the output's, not a value)."""
    text = """
torch_npu.npu_test_op(Tensor x, *, ScalarType? dst_type=None, ScalarType? y_dtype=None) -> Tensor
参数说明
x: Tensor类型。
dst_type: ScalarType类型, 可选输入, 输入值只能是torch.int8和torch.quint4x2, 默认为int8量化.
y_dtype: ScalarType类型，输出数据类型。None或torch.int8表示INT8（默认）；torch.quint4x2表示INT4，输出为torch.int32。
"""
    values = {r["refused"] for r in op_docs.limits_of_text(text, "npu_test_op", (), "2.12.0")}
    assert any("dst_type not in ('torch.int8', 'torch.quint4x2',)" in v for v in values), values
    assert any("y_dtype not in ('torch.int8', 'torch.quint4x2',)" in v for v in values), values


CONSTRAINED = """
接口原型
torch_npu.npu_test_op(Tensor query, Tensor key, Tensor value, Tensor pdf, Tensor x, Tensor mask, int mode=0) -> Tensor

参数说明
query (Tensor) - 数据类型支持float16、bfloat16、float32。
key (Tensor) - 数据格式支持ND。
value (Tensor) - 数据格式支持ND。
pdf (Tensor) - 概率分布。
x (Tensor) - 输入。
mask (Tensor) - 掩码。
mode (int) - 模式。

约束说明
query、key、value 数据类型必须一致且为 float16 或 bfloat16.
pdf的shape为[1, 256]，数据类型为INT32。
进入性能模板需要同时满足以下条件：
    x数据类型要求：bfloat16
mask数据类型为bool。
当 mode 为 1 时，mask 数据类型为 uint8。
"""


def test_a_constraints_sentence_opening_with_tensors_closes_or_narrows_their_dtypes():
    got = {p: sorted(d) for p, (d, _) in op_dtypes.dtypes_of_text(CONSTRAINED, "npu_test_op").items()}
    assert got["query"] == ["bfloat16", "float16"]  # the paragraph's set narrowed by the section
    assert got["key"] == got["value"] == ["bfloat16", "float16"]  # closed by the section alone
    assert got["pdf"] == ["int32"]  # after the shape, in capitals
    assert "x" not in got  # beneath a heading: one template's condition
    assert "mask" not in got  # another sentence names it with uint8: the set is not closed
    rule = op_dtypes.dtypes_of_text(CONSTRAINED, "npu_test_op")["key"]
    assert op_dtypes.broken(torch.empty(2, device="meta", dtype=torch.float32), rule)[0] == "float32"
    assert op_dtypes.broken(torch.empty(2, device="meta", dtype=torch.bfloat16), rule) is None
