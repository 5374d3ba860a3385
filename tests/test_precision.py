"""npulab.pytorch.precision: the first non-finite module and the layer-by-layer comparison, on models built
so that the answer is known in advance (overflow in one module, NaN from underflow in another, none)."""

from __future__ import annotations

import math
from collections import OrderedDict

import pytest
import torch
from torch import nn

from npulab.pytorch import precision


class Normalize(nn.Module):
    """x / sum(x): finite in float32 for tiny positive x, 0/0 = NaN once float16 flushes x to zero."""

    def forward(self, x):
        return x / x.sum(dim=-1, keepdim=True)


class Scale(nn.Module):
    def __init__(self, factor: float):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


def overflow_model() -> nn.Module:
    """'blow' multiplies by 1e3 → outputs ≈ 1e5 > 65504 (float16's largest finite value)."""
    torch.manual_seed(0)
    proj = nn.Linear(4, 4)
    with torch.no_grad():
        proj.weight.copy_(torch.eye(4))
        proj.bias.zero_()
    return nn.Sequential(OrderedDict(proj=proj, act=nn.ReLU(), blow=Scale(1e3), head=nn.Linear(4, 2)))


def underflow_model() -> nn.Module:
    return nn.Sequential(OrderedDict(shrink=Scale(1e-4), block=nn.Sequential(OrderedDict(norm=Normalize())),
                                     out=nn.Identity()))


def test_overflow_is_found_at_the_module_that_overflows():
    x = torch.full((2, 4), 100.0)
    model = overflow_model()
    assert precision.first_nonfinite(model, x, dtype=torch.float16) == "blow"
    assert precision.first_nonfinite(model, x, dtype=torch.float32) is None
    assert precision.first_nonfinite(model, x, dtype=torch.bfloat16) is None  # bfloat16 has float32's range


def test_nan_from_underflow_is_reported_at_the_innermost_module():
    x = torch.full((3, 5), 1e-4)  # ×1e-4 = 1e-8: below float16's smallest subnormal (≈6e-8) → 0 → 0/0
    model = underflow_model()
    assert precision.first_nonfinite(model, x, dtype=torch.float16) == "block.norm"
    assert precision.first_nonfinite(model, x, dtype=torch.float32) is None


def test_no_problem_gives_none_and_the_model_is_untouched():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    assert precision.first_nonfinite(model, torch.randn(4, 8)) is None
    assert all(v.dtype == torch.float32 and torch.equal(v, before[k]) for k, v in model.state_dict().items())
    assert not model[0]._forward_hooks  # hooks went onto the copy only


def test_root_module_is_named_by_the_empty_string():
    class Square(nn.Module):
        def forward(self, x):
            return x * x  # no submodules: only the root can be blamed

    assert precision.first_nonfinite(Square(), torch.full((1,), 300.0), dtype=torch.float16) == ""


def test_integer_inputs_are_not_cast():
    emb = nn.Sequential(nn.Embedding(10, 4), Scale(1e5))
    assert precision.first_nonfinite(emb, torch.tensor([[1, 2, 3]]), dtype=torch.float16) == "1"


def test_relative_error_definition():
    ref = torch.tensor([3.0, 4.0])
    assert precision.relative_error(ref, ref) == 0.0
    assert precision.relative_error(torch.tensor([3.0, 4.5]), ref) == pytest.approx(0.5 / 5.0)
    assert precision.relative_error(torch.tensor([math.inf, 4.0]), ref) == math.inf


def test_compare_layers_finds_the_first_module_past_a_threshold():
    model = overflow_model()
    x = torch.full((2, 4), 100.0)
    cmp16 = precision.compare_layers(model, x, dtype=torch.float16)
    assert [r.name for r in cmp16.rows] == ["proj", "act", "blow", "head", ""]
    assert cmp16.rows[0].rel_error < 1e-3  # 100 is exact in float16
    assert cmp16.first_over(1e-2).name == "blow" and cmp16.rows[2].rel_error == math.inf
    cmp_bf = precision.compare_layers(model, x, dtype=torch.bfloat16)
    assert cmp_bf.first_over(1e-1) is None
    assert all(r.rel_error < 1e-2 for r in cmp_bf.rows)


def test_bfloat16_errors_exceed_float16_errors_in_range():
    torch.manual_seed(2)
    model = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64))
    x = torch.randn(16, 64)
    e16 = precision.compare_layers(model, x, dtype=torch.float16).rows[0].rel_error
    ebf = precision.compare_layers(model, x, dtype=torch.bfloat16).rows[0].rel_error
    assert 0 < e16 < ebf  # bfloat16 keeps 8 significand bits, float16 keeps 11


def test_finfo_rows_show_the_float16_limit():
    rows = {r[0]: r for r in precision.finfo_rows()}
    assert rows["float16"][2] == "65504" and rows["bfloat16"][1] == 16


@pytest.mark.skipif(not __import__("npulab.pytorch.msprobe_cpu", fromlist=["x"]).available(),
                    reason="mindstudio-probe 未安装")
def test_msprobe_dump_and_compare_on_cpu(tmp_path):
    from npulab.pytorch import msprobe_cpu

    run = msprobe_cpu.dump_and_compare(workdir=tmp_path)
    outputs = run.outputs()
    assert [r["NPU Name"].split(".forward")[0] for r in outputs] == [
        "Module.0.Linear", "Module.1.GELU", "Module.2.Linear", "Module.3.LayerNorm", "Module.4.Linear"]
    assert msprobe_cpu.percentage(outputs[0]["NormRelativeErr"]) == 0.0  # identical before the GELU
    assert run.first_over(0.0)["NPU Name"].startswith("Module.1.GELU")  # the tanh approximation differs
    assert {"step0/…/dump.json", "step1/…/dump.json", "step2/…/dump.json"} <= set(run.dump_files)
    assert run.overflow_ops and "linear" in run.overflow_ops[0].lower()  # the float16 run overflows in Linear 0
    assert msprobe_cpu.percentage("N/A") is None


def test_dtype_support_data_names_public_sources():
    data = precision.dtype_support()
    sources = data["sources"]
    assert all(s["url"].startswith("https://") for s in sources.values())
    used = [p["source"] for p in data["product_lines"]] + [s["source"] for s in data["hf32"]["switches"]]
    used += [data["hf32"]["default_source"], data["float64"]["source"]]
    assert set(used) <= set(sources)
    bf16 = {p["name"].split("（")[0]: p["bf16"] for p in data["product_lines"]}
    assert bf16["Atlas 训练系列"] is False and bf16["Atlas 推理系列"] is False and bf16["Atlas A2 训练/推理系列"]
    assert bf16["Atlas 200I/500 A2"] and bf16["Ascend 950"]  # the chip rows, from chips.yaml
    ascend950 = next(p for p in data["product_lines"] if p["name"].startswith("Ascend 950"))
    assert "HiF8" in ascend950["dtypes"] and "E4M3" in ascend950["dtypes"] and ascend950["dtypes_source"] in sources


def test_msprobe_compare_table_has_chinese_headers_and_short_numbers():
    from npulab.pytorch import msprobe_cpu

    row = {"NPU Name": "Module.0.GELU.forward.0.output.0", "NPU Dtype": "torch.float32", "Bench Dtype": "torch.float32",
           "MaxRelativeErr": "0.000123456789%", "NormRelativeErr": "N/A", "Result": "pass"}
    run = msprobe_cpu.CompareRun([row, {**row, "NPU Name": "Functional.linear.0.forward.output.0"}], 1.0, [], [])
    table = run.compare_table("标题")
    assert table.headers == ["模块输出", "待测 / 标杆类型", "最大相对误差", "范数相对误差", "结论"]
    assert table.rows == [["Module.0.GELU.forward.0.output.0", "torch.float32 / torch.float32", "0.000123%", "N/A",
                           "通过（pass）"]]
    assert msprobe_cpu.percent_text("0%") == "0%" and msprobe_cpu.result_text("odd") == "odd"
