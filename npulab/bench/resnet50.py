"""ResNet-50 training throughput, FP32 or AMP: the seed's 910B3 table, measured with a method you can defend.

Defaults are the seed's set-up on an accelerator (batch 64, 224×224, random data) and a small problem on a CPU
(``npulab.core.sizes``, workload ``resnet50_train``), printed either way. Unlike the seed's script, warm-up steps
include the backward pass, every timed step ends with a device sync, the median is reported with the spread, and a
back-to-back window shows what per-step syncing costs. Data loading and host→device copies are not included (the
batch stays on the device), as in the seed's timing.
"""

from __future__ import annotations

from npulab.core.i18n import t

SEED_FIGURES = {"fp32": ("seed.resnet50.fp32_img_s", "seed.resnet50.fp32_peak_hbm_mb"),
                "amp": ("seed.resnet50.amp_img_s", "seed.resnet50.amp_peak_hbm_mb")}
SEED_SETUP = (64, 224)


def add_arguments(parser) -> None:
    # the defaults quoted in the help are npulab.core.sizes' (tests/test_train.py checks that they agree)
    parser.add_argument("--amp", action="store_true", help="混合精度：CUDA/NPU 上 float16 + GradScaler，CPU 上 bfloat16")
    parser.add_argument("--batch", type=int, help="batch 大小（默认见 npulab.core.sizes：加速器 64，CPU 2）")
    parser.add_argument("--image-size", type=int, help="图像边长（默认见 npulab.core.sizes：加速器 224，CPU 64）")
    parser.add_argument("--steps", type=int, help="计时的训练步数（默认见 npulab.core.sizes：加速器 20，CPU 3）")
    parser.add_argument("--warmup", type=int, help="预热步数，含反向传播（默认：加速器 5，CPU 2）")


def _settings(args, device) -> dict:
    from npulab.core.cli import UsageError
    from npulab.core.sizes import problem_size

    defaults = problem_size("resnet50_train", device, show=False)
    settings = {key: getattr(args, key) if getattr(args, key) is not None else value for key, value in defaults.items()}
    for key, low in (("batch", 2), ("image_size", 32), ("steps", 1), ("warmup", 1)):
        if settings[key] < low:
            raise UsageError(t("bench.option_min", option=key.replace("_", "-"), low=low, value=settings[key]))
    return settings


def run(args) -> int:
    import json

    from npulab.core import provenance
    from npulab.core.device import pick_device
    from npulab.pytorch.train import FP32, amp_precision, time_training, training_flop_per_image

    device = pick_device(args.device or None)
    settings = _settings(args, device)
    precision = amp_precision(device) if args.amp else FP32
    result = time_training(device, precision=precision, **settings)
    flop = training_flop_per_image(settings["image_size"])
    achieved = result.images_per_s * flop.value / 1e3
    image_id, memory_id = SEED_FIGURES["amp" if args.amp else "fp32"]
    seed_rate, seed_memory = provenance.reported(image_id), provenance.reported(memory_id)
    comparable = (settings["batch"], settings["image_size"]) == SEED_SETUP and device.is_accelerator
    doc = {
        "device": str(device), "precision": precision.name, **settings,
        "first_step_ms": result.first_step * 1e3, "median_step_ms": result.median * 1e3, "spread": result.timing.spread,
        "images_per_s": result.images_per_s, "window_images_per_s": result.window_images_per_s,
        "peak_memory_mib": None if result.peak_memory is None else result.peak_memory / 2**20,
        "train_gflop_per_image": flop.value, "achieved_tflops": achieved,
        "reported": {"images_per_s": seed_rate.value, "peak_memory_mb": seed_memory.value, "source": seed_rate.origin,
                     "method": provenance.reported(SEED_FIGURES["fp32"][0]).note},
        "comparable_with_reported": comparable,
        "method": t("bench.resnet_method"),
    }
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return 0
    note = "" if device.is_accelerator else t("bench.resnet_cpu_note")
    print(t("bench.resnet_head", device=device, precision=precision.name, batch=settings["batch"],
            size=settings["image_size"], warmup=settings["warmup"], steps=settings["steps"], note=note))
    print(t("bench.resnet_first", ms=f"{doc['first_step_ms']:.1f}"))
    print(t("bench.resnet_median", ms=f"{doc['median_step_ms']:.1f}", spread=f"{result.timing.spread:.0%}",
            rate=f"{result.images_per_s:.1f}"))
    print(t("bench.resnet_window", rate=f"{result.window_images_per_s:.1f}"))
    if doc["peak_memory_mib"] is not None:
        print(t("bench.resnet_memory", mib=f"{doc['peak_memory_mib']:.0f}"))
    print(t("bench.resnet_derived", gflop=flop.value, rate=f"{result.images_per_s:.1f}", tflops=f"{achieved:.3g}"))
    if comparable:
        print(t("bench.resnet_seed", rate=f"{seed_rate.value:g}", memory=f"{seed_memory.value:g}",
                ratio=f"{result.images_per_s / seed_rate.value:.2f}", method=doc["reported"]["method"]))
    return 0
