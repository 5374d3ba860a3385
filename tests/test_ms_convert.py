"""PyTorch state_dict → MindSpore parameters and checkpoint: names, layouts, round trip, same logits."""

import numpy as np
import pytest
import torch

from npulab.mindspore import convert as ms_convert
from npulab.mindspore import resnet as ms_models
from npulab.pytorch import resnet

SMALL = (1, 1, 1, 1)  # the same builder with one bottleneck per stage: fast on CPU


def small_pair(seed=0, classes=10):
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        pt = resnet.ResNet(SMALL, classes)
        pt.train()
        with torch.no_grad():  # non-trivial BN running statistics
            pt(torch.randn(4, 3, 32, 32))
    net = ms_models.ResNet(SMALL, classes)
    ms_convert.load_torch_state_dict(net, pt.state_dict())
    return pt.eval(), net


def images(n=2, size=32, seed=1):
    return np.random.default_rng(seed).standard_normal((n, 3, size, size)).astype(np.float32)


def test_batchnorm_names_map_and_everything_else_is_kept():
    bn = {"bn1", "layer1.0.downsample.1"}
    assert ms_convert.ms_name("bn1.weight", bn) == "bn1.gamma"
    assert ms_convert.ms_name("bn1.bias", bn) == "bn1.beta"
    assert ms_convert.ms_name("layer1.0.downsample.1.running_var", bn) == "layer1.0.downsample.1.moving_variance"
    assert ms_convert.ms_name("bn1.num_batches_tracked", bn) is None
    assert ms_convert.ms_name("conv1.weight", bn) == "conv1.weight"
    assert ms_convert.ms_name("fc.bias", bn) == "fc.bias"  # a Linear's bias is not a BN beta
    assert ms_convert.torch_name("bn1.moving_mean", bn) == "bn1.running_mean"
    assert ms_convert.batchnorm_prefixes(["a.running_mean", "a.weight", "b.weight"]) == {"a"}


def test_resnet50_structure_and_names_match_the_pytorch_network():
    pt = resnet.resnet50()
    net = ms_models.resnet50()
    assert ms_models.count_parameters(net) == 25_557_032 == sum(p.numel() for p in pt.parameters())
    mapped = set(ms_convert.name_map(pt.state_dict()).values())
    assert mapped == {p.name for p in net.get_parameters()}
    shapes = {p.name: tuple(p.shape) for p in net.get_parameters()}
    for name, tensor in pt.state_dict().items():  # layouts: identical, no transposes anywhere
        target = ms_convert.ms_name(name, ms_convert.batchnorm_prefixes(pt.state_dict()))
        if target is not None:
            assert shapes[target] == tuple(tensor.shape), name


def test_resnet50_gives_the_same_logits_in_both_frameworks():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        pt = resnet.resnet50(num_classes=10).eval()
    net = ms_models.resnet50(num_classes=10)
    assert ms_convert.load_torch_state_dict(net, pt.state_dict()) == 267  # 53 BN × 4 + 53 conv + fc weight and bias
    result = ms_convert.compare_logits(pt, net, images(2, 32))
    assert result.within(ms_convert.LOGITS_RTOL), (result.max_abs, result.scale)
    assert result.same_argmax


def test_small_network_logits_match_with_trained_batchnorm_statistics():
    pt, net = small_pair()
    result = ms_convert.compare_logits(pt, net, images(3, 32))
    assert result.within(ms_convert.LOGITS_RTOL) and result.same_argmax


def test_checkpoint_round_trip(tmp_path):
    pt, net = small_pair(seed=3)
    path = ms_convert.save_checkpoint(pt.state_dict(), tmp_path / "small.ckpt")
    loaded = ms_convert.load_checkpoint(path)
    assert set(loaded) == {p.name for p in net.get_parameters()}
    back = ms_convert.to_torch(loaded, template=pt.state_dict())
    assert set(back) == set(pt.state_dict())
    for name, tensor in pt.state_dict().items():
        assert torch.equal(back[name], tensor), name
    fresh = resnet.ResNet(SMALL, 10)
    fresh.load_state_dict(back, strict=True)
    from_cell = ms_convert.to_torch(net)  # straight from a Cell, num_batches_tracked set to 0
    assert from_cell["bn1.num_batches_tracked"].item() == 0
    assert torch.equal(from_cell["layer1.0.bn2.running_var"], pt.state_dict()["layer1.0.bn2.running_var"])


def test_mismatched_weights_are_rejected_with_a_chinese_message():
    pt, net = small_pair()
    state = dict(pt.state_dict())
    del state["fc.bias"]
    with pytest.raises(ValueError, match="网络里有、权重里没有.*fc.bias"):
        ms_convert.load_torch_state_dict(net, state)
    wrong = resnet.ResNet(SMALL, 7).state_dict()  # 7 classes into a 10-class network
    with pytest.raises(ValueError, match="形状不同.*fc.weight"):
        ms_convert.load_torch_state_dict(net, wrong)
