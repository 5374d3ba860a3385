"""Training-step timing, the GradScaler demo, FLOPs/MFU and the ResNet-50 benchmark command."""

import itertools
import json
import subprocess
import sys

import pytest
import torch

from npulab.core import provenance
from npulab.core.device import Device
from npulab.pytorch import train

CPU = Device("cpu", "test CPU")


def tiny(num_classes: int) -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                               torch.nn.Linear(4, num_classes))


def test_precision_follows_the_device():
    assert train.amp_precision(CPU) == train.Precision("bf16", "bfloat16", False)
    assert train.amp_precision(Device("npu", "x")).scaler and train.amp_precision(Device("cuda", "x")).dtype == "float16"
    assert train.FP32.dtype is None and not train.FP32.scaler


def test_time_training_structure_with_a_counting_clock():
    ticks = itertools.count()
    result = train.time_training(CPU, batch=2, image_size=32, steps=4, warmup=3, num_classes=5, model_fn=tiny,
                                 clock=lambda: float(next(ticks)))
    assert result.first_step == 1.0 and result.timing.times == (1.0,) * 4 and result.window == 0.25
    assert result.timing.warmup == 2 and len(result.losses) == 1 + 2 + 4 + 4
    assert result.images_per_s == 2.0 and result.peak_memory is None
    assert [f.kind for f in result.figures(CPU)] == [provenance.Kind.MEASURED] * 3


def test_time_training_runs_amp_and_rejects_bad_sizes():
    result = train.time_training(CPU, precision=train.amp_precision(CPU), batch=2, image_size=32, steps=2,
                                 warmup=1, num_classes=5, model_fn=tiny)
    assert result.precision == "bf16" and result.median > 0 and all(map(lambda x: x == x, result.losses))
    with pytest.raises(ValueError):
        train.time_training(CPU, steps=0)


def test_step_lowers_the_loss():
    torch.manual_seed(0)
    model = tiny(3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    images, labels = train.synthetic_batch(8, 32, 3, CPU)
    step = train.make_step(model, optimizer, images, labels, CPU)
    losses = [float(step()) for _ in range(20)]
    assert losses[-1] < losses[0]


def test_gradscaler_demo_is_deterministic():
    rows = train.gradscaler_demo(CPU)
    assert [r.scale_after for r in rows] == [65536.0, 32768.0, 16384.0, 8192.0, 8192.0, 8192.0, 16384.0, 16384.0]
    assert [r.skipped for r in rows] == [r.forced_overflow for r in rows] == [False, True, True, True] + [False] * 4


def test_flop_and_mfu_of_the_seed_figures():
    flop = train.training_flop_per_image(224)
    assert 24.0 < flop.value < 25.0 and flop.kind == provenance.Kind.DERIVED
    peak = provenance.derived("peak", 294.912, "TFLOPS", "20 × 4096 × 2 × 1.8 GHz")
    assert train.mfu(provenance.reported("seed.resnet50.fp32_img_s"), flop, peak).value == pytest.approx(4.5, abs=0.1)
    assert train.mfu(1254, flop, peak).value == pytest.approx(10.4, abs=0.1)


def test_profile_table_lists_operators():
    model = tiny(3)
    images, labels = train.synthetic_batch(2, 32, 3, CPU)
    step = train.make_step(model, torch.optim.SGD(model.parameters(), lr=0.1), images, labels, CPU)
    assert "aten::" in train.profile_table(step, CPU, steps=1)


def bench(*args):
    return subprocess.run([sys.executable, "-m", "npulab", "bench", "resnet50", *args], capture_output=True, text=True)


def test_bench_resnet50_json_and_usage_errors():
    r = bench("--device", "cpu", "--batch", "2", "--image-size", "32", "--steps", "1", "--warmup", "1", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["precision"] == "fp32" and doc["batch"] == 2 and doc["images_per_s"] > 0
    assert doc["reported"]["images_per_s"] == 545 and doc["comparable_with_reported"] is False
    for bad in (["--batch", "1"], ["--image-size", "8"], ["--steps", "x"]):
        r = bench(*bad)
        assert r.returncode == 2 and "Traceback" not in r.stderr and "错误" in r.stderr


def test_bench_resnet50_help_quotes_the_sizes_table():
    import argparse

    from npulab.bench import resnet50
    from npulab.core.sizes import SIZES

    parser = argparse.ArgumentParser()
    resnet50.add_arguments(parser)
    helps = {a.dest: a.help for a in parser._actions}
    sizes = SIZES["resnet50_train"]
    for key in ("batch", "image_size", "steps", "warmup"):
        assert f"加速器 {sizes['accelerator'][key]}，CPU {sizes['cpu'][key]}" in helps[key], key
