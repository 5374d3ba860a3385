"""npulab.ascend_tools.atc: atc command lines that can work are built with reasons; the rest are refused in Chinese."""

from __future__ import annotations

import pytest
import torch
from torch import nn

from npulab.ascend_tools import atc, onnx_export
from npulab.ascend_tools.atc import AtcError, command
from npulab.ascend_tools.smi import parse_info, samples


@pytest.fixture(scope="module")
def onnx_model(tmp_path_factory):
    """A small static-shape ONNX model with a non-default input name."""
    net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
    path = tmp_path_factory.mktemp("atc") / "tiny.onnx"
    onnx_export.export_onnx(net, torch.randn(1, 3, 32, 32), path, input_names=("images",))
    return path


@pytest.fixture(scope="module")
def dynamic_model(tmp_path_factory):
    net = nn.Sequential(nn.Flatten(), nn.Linear(12, 2))
    path = tmp_path_factory.mktemp("atc") / "dyn.onnx"
    onnx_export.export_onnx(net, torch.randn(2, 3, 4), path, input_names=("x",), dynamic_batch=True)
    return path


def test_a_full_command_with_a_reason_for_every_option(onnx_model):
    cmd = command(onnx_model, soc_version="Ascend910B3", input_shape="images:1,3,32,32", input_format="NCHW",
                  precision_mode="force_fp16")
    assert cmd.argv == ["atc", f"--model={onnx_model}", "--framework=5", f"--output={onnx_model.with_suffix('')}_Ascend910B3",
                        "--soc_version=Ascend910B3", "--input_shape=images:1,3,32,32", "--input_format=NCHW",
                        "--precision_mode=force_fp16", "--log=error"]
    assert [opt for opt, _ in cmd.reasons] == cmd.argv[1:]
    assert cmd.om_path.endswith("_Ascend910B3.om") and not cmd.warnings
    assert "FP16" in cmd.explain() and cmd.line.startswith("atc --model=")


def test_static_model_needs_no_input_shape_and_default_precision_is_explained(onnx_model):
    cmd = command(onnx_model, soc_version="Ascend910B3", output="out/tiny")
    assert not any(a.startswith("--input_shape") for a in cmd.argv)
    reasons = dict(cmd.reasons)
    assert "[1, 3, 32, 32]" in reasons["（不写 --input_shape）"]
    default_reason = reasons["（不写 --precision_mode）"]
    assert "ATC 文档：默认 force_fp16" in default_reason and "不是 ATC 的" in default_reason  # AOE ≠ ATC
    assert any("must_keep_origin_dtype" in w for w in cmd.warnings)  # training chip: say how to keep FP32
    quiet = command(onnx_model, soc_version="Ascend310P3")  # inference card: FP16 is what one wants
    assert "force_fp16" in dict(quiet.reasons)["（不写 --precision_mode）"] and not quiet.warnings


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"soc_version": "ascend910b3"}, "区分大小写"),
    ({"soc_version": "910B3"}, "Ascend 前缀"),
    ({"soc_version": "Ascend910B9"}, "是不是"),
    ({"soc_version": "Ascend910B3", "framework": 2}, "没有 2 和 4"),
    ({"soc_version": "Ascend910B3", "framework": 3}, "不一致"),
    ({"soc_version": "Ascend910B3", "input_shape": "input:1,3,32,32"}, "真实的输入名是：images"),
    ({"soc_version": "Ascend910B3", "input_shape": "images:1,3,32"}, "4 维"),
    ({"soc_version": "Ascend910B3", "input_shape": "images:1,3,64,64"}, "固定为 32"),
    ({"soc_version": "Ascend910B3", "input_shape": "images:-1,3,32,32"}, "正整数"),
    ({"soc_version": "Ascend910B3", "input_shape": "images=1,3,32,32"}, "名字:维度"),
    ({"soc_version": "Ascend910B3", "input_shape": "images:a,b"}, "整数"),
    ({"soc_version": "Ascend910B3", "input_format": "NHWC"}, "NCHW, ND, NCDHW"),
    ({"soc_version": "Ascend910B3", "input_format": "NC1HWC0"}, "无效"),
    ({"soc_version": "Ascend910B3", "input_format": "NCDHW"}, "5 维"),
    ({"soc_version": "Ascend910B3", "precision_mode": "fp16"}, "未知的 --precision_mode"),
    ({"soc_version": "Ascend910B3", "precision_mode": "force_fp61"}, "是不是"),
    ({"soc_version": "Ascend310P3", "precision_mode": "allow_mix_precision_bf16"}, "BF16"),
    ({"soc_version": "Ascend910B3", "log": "verbose"}, "--log"),
    ({"soc_version": "Ascend910B3", "mode": 1}, "JSON"),
    ({"soc_version": "Ascend910B3", "mode": 2}, "--mode=2"),
    ({"soc_version": "Ascend910B3", "weight": "x.caffemodel"}, "只用于 Caffe"),
])
def test_arguments_that_cannot_work(onnx_model, kwargs, message):
    if kwargs.get("input_format") == "NCDHW":
        kwargs["input_shape"] = "images:1,3,32,32"
    with pytest.raises(AtcError, match=message):
        command(onnx_model, **kwargs)


def test_frameworks_and_products():
    with pytest.raises(AtcError, match="Caffe"):
        command("net.prototxt", soc_version="Ascend910B3", weight="net.caffemodel")  # no Caffe on A2
    caffe = command("net.prototxt", soc_version="Ascend310P3", weight="net.caffemodel", input_shape="data:1,3,224,224")
    assert "--framework=0" in caffe.argv and "--weight=net.caffemodel" in caffe.argv
    with pytest.raises(AtcError, match="caffemodel"):
        command("net.prototxt", soc_version="Ascend310P3")
    tf = command("frozen.pb", soc_version="Ascend910B3", input_format="NHWC", input_shape="x:1,224,224,3")
    assert "--framework=3" in tf.argv
    assert any("未与模型核对" in w or "未核对" in w for w in command("frozen.pb", soc_version="Ascend910B3").warnings)
    with pytest.raises(AtcError, match="推断框架"):
        command("model.mindir", soc_version="Ascend910B3")
    bf16 = command("m.air", soc_version="Ascend910_9391", precision_mode="allow_mix_precision_bf16")
    assert "--framework=1" in bf16.argv


def test_dynamic_inputs_must_be_given(dynamic_model):
    with pytest.raises(AtcError, match="动态维度"):
        command(dynamic_model, soc_version="Ascend910B3")
    ok = command(dynamic_model, soc_version="Ascend910B3", input_shape={"x": [8, 3, 4]})
    assert "--input_shape=x:8,3,4" in ok.argv


def test_output_with_om_suffix_and_unreadable_model(onnx_model, tmp_path):
    assert any("不要带 .om" in w and "_<os>_<arch>.om" in w
               for w in command(onnx_model, soc_version="Ascend910B3", output="m.om").warnings)
    cmd = command(onnx_model, soc_version="Ascend910B3", output="m")
    assert cmd.om_paths == ["m.om", "m_<os>_<arch>.om"] and cmd.om_path == "m.om"  # atlasatcparam_16_0029
    missing = command(tmp_path / "missing.onnx", soc_version="Ascend910B3", input_shape="input:1,3,224,224")
    assert any("无法读取" in w for w in missing.warnings)


def test_existing_om_picks_whichever_name_atc_wrote(onnx_model, tmp_path):
    # ATC writes <output>.om or <output>_<os>_<arch>.om (atlasatcparam_16_0029): the NPU cells use the one that exists
    cmd = command(onnx_model, soc_version="Ascend910B3", output=str(tmp_path / "resnet"))
    with pytest.raises(FileNotFoundError, match="没有找到 ATC 的输出"):
        cmd.existing_om()
    (tmp_path / "resnet_linux_aarch64.om").write_bytes(b"om")
    assert cmd.existing_om() == str(tmp_path / "resnet_linux_aarch64.om")
    (tmp_path / "resnet.om").write_bytes(b"om")
    assert cmd.existing_om() == str(tmp_path / "resnet.om")


def test_seed_command_line_is_checked(onnx_model):
    line = (f'atc --model={onnx_model} --framework=5 --output=resnet50_910B3 --soc_version=Ascend910B3 '
            f'--input_shape="images:1,3,32,32" --input_format=NCHW')
    cmd = atc.check_line(line)
    assert "--output=resnet50_910B3" in cmd.argv and cmd.warnings  # no --precision_mode on a training chip
    with pytest.raises(AtcError, match="输入名"):
        atc.check_line(line.replace("images:", "input:"))
    with pytest.raises(AtcError):
        atc.check_line("python train.py")


def test_soc_names_from_real_npu_smi_samples():
    names = {c.name for n in samples.names("info") for c in parse_info(samples.text(n)).chips}
    mapping = {name: atc.soc_from_chip_name(name) for name in names}
    assert mapping["910B3"] == "Ascend910B3" and mapping["910B1"] == "Ascend910B1"
    assert mapping["310"] == "Ascend310" and mapping["910A"] == "Ascend910A"
    assert mapping["310B"] is None  # a family name: read the chip name from -t board
    assert atc.soc_from_chip_name("Ascend910") is None  # A3 boards print this


def test_data_file_is_consistent():
    socs = [s for line in atc.facts()["product_lines"].values() for s in line["socs"]]
    assert len(socs) == len(set(socs)) == len(atc.soc_versions())
    for soc in socs:
        value, why = atc.default_precision(soc)
        assert value == "force_fp16" and why
    assert "must_keep_origin_dtype" in atc.default_precision("Ascend910B3")[1]  # named as AOE's, not ATC's
    assert "AOE" not in atc.default_precision("Ascend310P3")[1]
    assert set(atc.facts()["frameworks"]) == {0, 1, 3, 5}


def test_force_fp32_is_documented_as_cube_fp16in_fp32out():
    """ATC docs (atlasatcparam_16_0067): force_fp32 and cube_fp16in_fp32out have the same effect."""
    modes = atc.facts()["precision_modes"]
    assert modes["force_fp32"]["alias_of"] == "cube_fp16in_fp32out"
    assert "FP16 输入" in modes["force_fp32"]["what"] and "模型不会变小" not in modes["force_fp32"]["what"]
    assert "force_fp32" in atc.facts()["precision_defaults"]["observation"]
    assert atc.facts()["precision_modes_v2"]["fp16"]["what"].startswith("默认值")
