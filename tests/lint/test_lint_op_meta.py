"""lint-npu round 25: torch_npu's fused operators judged by the meta functions the pinned wheel registers for them
(npulab.lint.op_meta, ``torch_npu/op_plugin/meta/_meta_registrations.py`` read from the wheel, never imported). The
end-to-end cells use operators no labelled set uses (npu_quant_matmul_dequant, npu_mhc_pre); the mechanism's edges are
shown on a module written for the test in the wheel module's forms."""

from __future__ import annotations

import sys

import pytest
import torch
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint import op_docs, op_meta
from npulab.lint.signatures import Signature, SourceTree

MODULE = '''
import torch
import torch_npu
from torch.library import Library, impl
from torch_npu.utils._error_code import ErrCode, ops_error
from torch_npu.npu._backends import get_soc_version
TORCH_DTYPE_ENUM_VALUE_TO_SCALAR_TYPE_MAP = {0: torch.uint8, 3: torch.int32, 6: torch.float32, 290: torch.uint8}
m = Library("npu", "IMPL", "Meta")
m_aten = Library("aten", "IMPL", "Meta")
has_side_effect(torch.ops.npu.npu_test_rank.default)


@impl(m, "npu_test_rank")
def npu_test_rank_meta(x, round_mode=0):
    torch._check(x.dim() == 2, lambda: f"x must be 2D, but got {x.dim()}D." + ops_error(ErrCode.VALUE))
    torch._check(round_mode == 0 or round_mode == 1, lambda: "round_mode is " + int(round_mode))
    return torch.empty_like(x)


@impl(m, "npu_test_soc")
def npu_test_soc_meta(x):
    torch._check(get_soc_version() >= 260 or x.dim() == 2, lambda: "x must be 2D on this SoC")
    return torch.empty_like(x)


@impl(m, "npu_test_raise")
def npu_test_raise_meta(x, weight=None, layout="ND"):
    if layout not in ("ND", "NZ"):
        raise RuntimeError("layout must be ND or NZ" + ops_error(ErrCode.PARAM))
    torch._check(weight.size(0) == x.size(-1), lambda: "weight must match x")
    return x.new_empty(x.shape[:-1] + weight.shape[1:])


@impl(m, "npu_test_cast")
def npu_test_cast_meta(self, dtype):
    torch._check(dtype in TORCH_DTYPE_ENUM_VALUE_TO_SCALAR_TYPE_MAP, lambda: f"dtype {dtype} not found")
    return self.new_empty(self.shape, dtype=TORCH_DTYPE_ENUM_VALUE_TO_SCALAR_TYPE_MAP[dtype])


@impl(m_aten, "npu_test_rank")
def aten_meta(x):
    raise RuntimeError("never registered for torch_npu's namespace")
'''


PAGES = '''
_add_torch_npu_docstr("npu_test_raise", """
调用示例
>>> import torch, torch_npu
>>> x = torch.randn(2, 3).npu()
>>> y = torch_npu.npu_test_raise(x, torch.randn(3, 4).npu(), "NCHW")
""")
'''


@pytest.fixture(scope="module")
def tree():
    schema = Signature(positional=["self", "dtype"], required=2, origin="schema", types={"self": "Tensor", "dtype": "int"})
    return SourceTree("torch_npu", "0.test", {op_meta.MODULE: MODULE, op_docs.MODULE: PAGES}, {"torch_npu"},
                      schemas={"npu_test_cast": [schema]})


def _meta(*shape):
    return torch.empty(*shape, device="meta")


def test_a_check_that_refuses_speaks_in_its_own_words_or_by_its_condition(tree):
    assert op_meta.refused(tree, "npu_test_rank", (_meta(2, 3, 4),), {}) == \
        ("npu_test_rank_meta", "x must be 2D, but got 3D.")
    # the message itself fails to build ("…" + int): the check did refuse, and its condition says why
    assert op_meta.refused(tree, "npu_test_rank", (_meta(2, 3),), {"round_mode": 2}) == \
        ("npu_test_rank_meta", "round_mode == 0 or round_mode == 1")
    assert op_meta.refused(tree, "npu_test_rank", (torch.zeros(2, 3),), {"round_mode": 1}) is None  # a CPU copy too
    assert op_meta.refused(tree, "npu_test_raise", (_meta(2, 3),), {"weight": _meta(3, 5), "layout": "NCHW"}) == \
        ("npu_test_raise_meta", "layout must be ND or NZ")


def test_what_needs_a_device_or_another_argument_stays_unknown(tree):
    assert op_meta.refused(tree, "npu_test_soc", (_meta(2, 3, 4),), {}) is None  # get_soc_version: a stand-in
    assert op_meta.refused(tree, "npu_test_raise", (_meta(2, 3),), {}) is None  # weight None: not the check's word
    assert op_meta.refused(tree, "npu_test_rank", (_meta(2, 3),), {"mode": 1}) is None  # not its signature
    assert op_meta.refused(tree, "npu_test_unknown", (_meta(2, 3),), {}) is None  # no meta function


def test_a_value_the_cell_did_not_give_is_never_handed_to_the_function(tree):
    """A name of torch_npu (``torch_npu.float4_e2m1fn_x2``) reaches the check as meta_run's stand-in, not as its
    value: the call is not judged (the lead's mend after set T, whose correct ``npu_dtype_cast`` twin was flagged)."""
    class StandIn:  # what meta_run hands over for a torch_npu attribute
        pass

    assert op_meta.refused(tree, "npu_test_cast", (_meta(2, 3), StandIn()), {}) is None
    assert op_meta.refused(tree, "npu_test_cast", (_meta(2, 3),), {"dtype": [StandIn()]}) is None
    assert op_meta.refused(tree, "npu_test_cast", (_meta(2, 3), torch.int8), {}) is not None  # a plain dtype is


def test_a_dtype_given_for_an_int_of_the_schema_reaches_the_function_as_the_modules_own_enum_value(tree):
    assert op_meta.refused(tree, "npu_test_cast", (_meta(2, 3), torch.int32), {}) is None  # 3
    assert op_meta.refused(tree, "npu_test_cast", (_meta(2, 3),), {"dtype": torch.uint8}) is None  # 0, not 290
    assert op_meta.refused(tree, "npu_test_cast", (_meta(2, 3), torch.int8), {}) == \
        ("npu_test_cast_meta", "dtype torch.int8 not found")


def test_an_operator_whose_documented_example_fails_its_meta_function_is_not_judged(tree):
    check = op_meta.refusal(tree)
    assert op_meta.refused(tree, "npu_test_raise", (_meta(2, 3), _meta(3, 4), "NCHW"), {}) is not None
    assert check("npu_test_raise", (_meta(2, 3), _meta(3, 4), "NCHW"), {}) is None  # the page's example: refused too
    assert check("npu_test_rank", (_meta(2, 3, 4),), {}).count("x must be 2D, but got 3D.") == 1  # no example


def test_the_wheel_module_registers_nothing_and_torch_npu_is_never_imported(tree):
    op_meta.refused(tree, "npu_test_rank", (_meta(2, 3, 4),), {})
    assert "torch_npu" not in sys.modules
    with pytest.raises((AttributeError, RuntimeError)):
        torch.ops.npu.npu_test_rank  # noqa: B018 - nothing was registered with torch.library


DEQUANT = """import torch
import torch_npu
x = torch.randn(8, 64, dtype=torch.float16).npu()
w = torch.randint(-8, 8, (32, {k}), dtype=torch.int8).npu()
s = torch.ones(32).npu()
y = torch_npu.npu_quant_matmul_dequant(x, w, s)
"""
MHC = """import torch
import torch_npu
x = torch.randn(4, 3, 64).npu()
phi = torch.randn(8, 192).npu()
alpha = torch.ones({n}).npu()
bias = torch.zeros(8).npu()
outs = torch_npu.npu_mhc_pre(x, phi, alpha, bias)
"""


@pytest.mark.parametrize(("planted", "twin", "said"), [
    (DEQUANT.format(k=48), DEQUANT.format(k=64), "x shape[1] not equal to quantized_weight shape[1]"),
    (MHC.format(n=4), MHC.format(n=3), "Input alpha must have 3 elements, but got 4."),
], ids=["npu_quant_matmul_dequant", "npu_mhc_pre"])
def test_the_wheels_meta_function_judges_a_cells_call(lint, planted, twin, said):  # noqa: F811
    found = lint(planted)
    assert [f.kind for f in found] == ["shape-check"], found
    assert said in found[0].message and op_meta.FILE in found[0].message
    assert lint(twin) == []
