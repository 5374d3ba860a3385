"""npulab.ascend_tools.onnx_export on the course's ResNet-50 (one export, shared) and on a tiny model."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from npulab.ascend_tools import onnx_export


@pytest.fixture(scope="session")
def resnet_onnx(tmp_path_factory):
    path = tmp_path_factory.mktemp("onnx") / "resnet50.onnx"
    model, example, result = onnx_export.export_resnet50(path)
    return model, example, result


def test_resnet50_export_check_and_compare(resnet_onnx):
    model, example, result = resnet_onnx
    assert result.opset == onnx_export.DEFAULT_OPSET == 15 and result.exporter == "torchscript"
    assert 100e6 < result.nbytes < 104e6  # 25,557,032 FP32 parameters ≈ 102.2 MB, one file
    info = onnx_export.check(result.path)
    assert info["opset"]["ai.onnx"] == 15 and info["nodes"] > 100
    assert onnx_export.inputs(result.path) == [onnx_export.TensorSpec("input", (1, 3, 224, 224), "float32")]
    assert onnx_export.outputs(result.path)[0].shape == (1, 1000)
    hist = onnx_export.op_histogram(result.path)
    assert hist["Conv"] == 53 and hist["Gemm"] == 1 and "BatchNormalization" not in hist  # folded into Conv
    cmp = onnx_export.compare_with_torch(model, result.path, example)
    assert cmp.same_argmax and cmp.max_rel < 1e-4


def test_fp16_weights_halve_the_file_and_are_not_runnable(resnet_onnx, tmp_path):
    _, _, result = resnet_onnx
    fp32 = onnx_export.weight_bytes(result.path)
    assert set(fp32) == {"float32"}
    size16 = onnx_export.fp16_weights_copy(result.path, tmp_path / "fp16.onnx")
    assert 0.49 < size16 / result.nbytes < 0.51
    assert onnx_export.weight_bytes(tmp_path / "fp16.onnx") == {"float16": fp32["float32"] // 2}
    assert onnx_export.load_error(result.path) is None
    assert "float16" in onnx_export.load_error(tmp_path / "fp16.onnx")


def test_dynamic_batch_and_exporter_choice(tmp_path):
    tiny = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(2))
    example = torch.randn(2, 3, 8, 8)
    tiny(example)
    result = onnx_export.export_onnx(tiny, example, tmp_path / "tiny.onnx", input_names=("images",), dynamic_batch=True)
    (spec,) = onnx_export.inputs(result.path)
    assert spec.name == "images" and spec.shape == ("batch", 3, 8, 8) and not spec.static
    with pytest.raises(ValueError, match="exporter"):
        onnx_export.export_onnx(tiny, example, tmp_path / "x.onnx", exporter="tf")
