"""ResNet-50 training throughput, FP32 or AMP: the seed's 910B3 table, measured with a method you can defend.

Defaults are the seed's set-up on an accelerator (batch 64, 224×224, random data) and a small problem on
a CPU (batch 8, 64×64), printed either way. Unlike the seed's script, warm-up steps include the backward
pass, every timed step ends with a device sync, the median is reported with the spread, and a
back-to-back window shows what per-step syncing costs. Data loading and host→device copies are not
included (the batch stays on the device), as in the seed's timing.
"""

from __future__ import annotations

SEED_FIGURES = {"fp32": ("seed.resnet50.fp32_img_s", "seed.resnet50.fp32_peak_hbm_mb"),
                "amp": ("seed.resnet50.amp_img_s", "seed.resnet50.amp_peak_hbm_mb")}
SEED_SETUP = (64, 224)


def add_arguments(parser) -> None:
    parser.add_argument("--amp", action="store_true", help="混合精度：CUDA/NPU 上 float16 + GradScaler，CPU 上 bfloat16")
    parser.add_argument("--batch", type=int, help="batch 大小（默认见 npulab.core.sizes：加速器 64，CPU 4）")
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
            raise UsageError(f"--{key.replace('_', '-')} 须 ≥ {low}，收到 {settings[key]}")
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
        "method": "合成数据常驻设备；预热含反向传播；每个计时步以设备同步结束，取中位数；另测一段不逐步同步的连续窗口",
    }
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return 0
    note = "" if device.is_accelerator else "（CPU：问题规模已缩小，不能与原文的 910B3 数字比较）"
    print(f"ResNet-50 训练，{device}，{precision.name}，batch {settings['batch']}，{settings['image_size']}×"
          f"{settings['image_size']}，预热 {settings['warmup']} 步，计时 {settings['steps']} 步{note}")
    print(f"  首个训练步：{doc['first_step_ms']:.1f} ms（含一次性开销）")
    print(f"  中位步时：{doc['median_step_ms']:.1f} ms（离散度 {result.timing.spread:.0%}）→ {result.images_per_s:.1f} img/s")
    print(f"  连续窗口（不逐步同步）：{result.window_images_per_s:.1f} img/s")
    if doc["peak_memory_mib"] is not None:
        print(f"  峰值显存：{doc['peak_memory_mib']:.0f} MiB")
    print(f"  推导：{flop.value} GFLOP/图 × {result.images_per_s:.1f} img/s = {achieved:.3g} TFLOPS")
    if comparable:
        print(f"  原文（报告）：{seed_rate.value:g} img/s，峰值 {seed_memory.value:g} MB；实测 / 报告 = "
              f"{result.images_per_s / seed_rate.value:.2f}。原文的方法：{doc['reported']['method']}")
    return 0
