import torch

from npulab.pytorch.resnet import forward_flop_per_image, resnet50


def test_parameter_count_and_names_match_torchvision():
    model = resnet50()
    assert sum(p.numel() for p in model.parameters()) == 25_557_032
    keys = model.state_dict().keys()
    for name in ("conv1.weight", "bn1.running_mean", "layer1.0.downsample.0.weight", "layer4.2.bn3.bias", "fc.weight"):
        assert name in keys
    assert len([k for k in keys if k.endswith("num_batches_tracked")]) == 53


def test_forward_shape_on_small_images():
    out = resnet50(num_classes=10).eval()(torch.randn(2, 3, 64, 64))
    assert out.shape == (2, 10)


def test_forward_flop_is_about_4_1_gmac():
    flop = forward_flop_per_image(224)
    assert 8.0e9 < flop < 8.4e9  # ≈ 4.1 GMAC per 224×224 image (He et al. report 3.8 GFLOPs counting MACs)
