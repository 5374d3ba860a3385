"""Training steps measured honestly: warm-up with backward, device sync, median, images/s, peak memory.

A training step is ``zero_grad → forward → loss → backward → optimizer step`` on one fixed synthetic
batch that already sits on the device, so the numbers measure the device, not data loading or the
host→device copy (say so when you quote them). Mixed precision follows what each device supports
well: bfloat16 autocast on the CPU (no scaler needed), float16 autocast with a GradScaler on CUDA
and on the NPU (``torch.npu.amp.GradScaler``, torch_npu's own scaler, on the NPU).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from npulab.core.device import Device, synchronize
from npulab.core.i18n import t
from npulab.core.provenance import Figure, derive, measured
from npulab.core.timing import Timing, time_steps


@dataclass(frozen=True)
class Precision:
    """How a step computes: ``name`` for people, the autocast dtype (None = plain FP32), whether to scale the loss."""

    name: str
    dtype: str | None
    scaler: bool


FP32 = Precision("fp32", None, False)


def amp_precision(device: Device) -> Precision:
    """The mixed precision of ``device``: bfloat16 autocast on CPU, float16 + GradScaler on CUDA/NPU."""
    return Precision("bf16", "bfloat16", False) if device.kind == "cpu" else Precision("fp16", "float16", True)


def make_scaler(device: Device, **kwargs):
    """A gradient scaler for ``device``: torch_npu's ``torch.npu.amp.GradScaler`` on the NPU, else ``torch.amp``'s."""
    import torch

    if device.kind == "npu":
        return torch.npu.amp.GradScaler(**kwargs)
    return torch.amp.GradScaler(device.kind, **kwargs)


def synthetic_batch(batch: int, image_size: int, num_classes: int, device: Device, seed: int = 0):
    """A fixed batch of random images (N, 3, H, W) and labels on ``device`` (random data: no accuracy signal)."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    images = torch.randn(batch, 3, image_size, image_size, generator=generator)
    labels = torch.randint(0, num_classes, (batch,), generator=generator)
    return images.to(device.torch), labels.to(device.torch)


def make_step(model, optimizer, images, labels, device: Device, precision: Precision = FP32, scaler=None) -> Callable:
    """A closure running one training step; it returns the loss as a tensor (reading it would sync the device)."""
    import torch
    import torch.nn.functional as F

    dtype = getattr(torch, precision.dtype) if precision.dtype else None

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=device.kind, dtype=dtype, enabled=dtype is not None):
            loss = F.cross_entropy(model(images), labels)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        return loss.detach()

    return step


def reset_peak_memory(device: Device) -> None:
    """Start a new peak-memory window on an accelerator (no-op on CPU)."""
    if device.is_accelerator:
        import torch

        getattr(torch, device.kind).reset_peak_memory_stats(device.torch)


def peak_memory(device: Device) -> int | None:
    """Bytes of device memory allocated at the peak since the last reset; None where the device does not say."""
    if not device.is_accelerator:
        return None
    import torch

    return int(getattr(torch, device.kind).max_memory_allocated(device.torch))


@dataclass(frozen=True)
class TrainTiming:
    """Measured training steps of one configuration on one device."""

    device: str
    precision: str
    batch: int
    image_size: int
    first_step: float  # seconds: the very first step of a fresh model, one-off costs included
    timing: Timing  # per-step times after the warm-up, each ended by a device sync
    window: float  # seconds per step when the same number of steps run back to back, one sync at the end
    peak_memory: int | None  # bytes (max_memory_allocated); None on CPU
    losses: tuple[float, ...]

    @property
    def median(self) -> float:
        return self.timing.median

    @property
    def images_per_s(self) -> float:
        """Throughput at the median step time."""
        return self.batch / self.median

    @property
    def window_images_per_s(self) -> float:
        """Throughput of the back-to-back window (the host may queue work ahead of the device)."""
        return self.batch / self.window

    def figures(self, device: object = None) -> list[Figure]:
        """The measurements as labelled figures for ``npulab.core.provenance.show`` (on the timing's device)."""
        device = self.timing.device if device is None else device
        what = t("pt.train_what", precision=self.precision, batch=self.batch, size=self.image_size)
        rows = [
            measured(t("pt.train_first_step", what=what), round(self.first_step * 1e3, 1), "ms", device,
                     t("pt.train_first_step_note")),
            measured(t("pt.train_median", what=what), round(self.median * 1e3, 1), "ms", device,
                     t("pt.train_median_note", warmup=self.timing.warmup + 1, steps=len(self.timing.times),
                       spread=self.timing.spread)),
            measured(t("pt.train_throughput", what=what), round(self.images_per_s, 1), "img/s", device,
                     t("pt.train_throughput_note")),
        ]
        if self.peak_memory is not None:
            rows.append(measured(t("pt.train_peak_memory", what=what), round(self.peak_memory / 2**20, 1), "MiB", device,
                                 "max_memory_allocated"))
        return rows


def time_training(device: Device, *, precision: Precision = FP32, batch: int | None = None,
                  image_size: int | None = None, steps: int | None = None, warmup: int | None = None,
                  num_classes: int = 1000, model_fn=None, lr: float = 0.01,
                  seed: int = 0, clock: Callable[[], float] = time.perf_counter) -> TrainTiming:
    """Build a fresh model and time its training steps on ``device``.

    Sizes left out come from ``npulab.core.sizes`` (workload ``resnet50_train``) for the device.

    The first step is timed on its own (first-iteration latency); it counts as the first warm-up step.
    ``warmup`` full steps (forward *and* backward) run untimed in total, then ``steps`` steps are timed
    one by one with a device sync before each clock read (median, spread), then ``steps`` more run back
    to back with one sync at the end (``window``). Peak memory covers all of them.
    """
    import torch

    from npulab.core.sizes import problem_size
    from npulab.pytorch.resnet import resnet50

    default = problem_size("resnet50_train", device, show=False)
    batch = default["batch"] if batch is None else batch
    image_size = default["image_size"] if image_size is None else image_size
    steps = default["steps"] if steps is None else steps
    warmup = default["warmup"] if warmup is None else warmup
    if steps < 1 or warmup < 1 or batch < 2 or image_size < 32:  # BatchNorm in train mode needs 2 values per channel
        raise ValueError(t("pt.train_bad_size", steps=steps, warmup=warmup, batch=batch, image_size=image_size))
    torch.manual_seed(seed)
    model = (model_fn or resnet50)(num_classes).to(device.torch).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    images, labels = synthetic_batch(batch, image_size, num_classes, device, seed)
    scaler = make_scaler(device) if precision.scaler else None
    step = make_step(model, optimizer, images, labels, device, precision, scaler)
    reset_peak_memory(device)
    losses = []

    synchronize(device)
    times = time_steps(lambda: losses.append(step()), sync=lambda: synchronize(device), warmup=warmup, repeats=steps,
                       label=t("pt.train_label", precision=precision.name), device=device, clock=clock)
    first, timing = times.first_s, times.steady
    start = clock()
    for _ in range(steps):
        losses.append(step())
    synchronize(device)
    window = (clock() - start) / steps
    return TrainTiming(device.torch, precision.name, batch, image_size, first, timing, window, peak_memory(device),
                       tuple(float(loss) for loss in losses))


# --- gradient scaling made visible ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScalerStep:
    """One step of the GradScaler demo."""

    step: int
    forced_overflow: bool
    scale_before: float
    scale_after: float
    skipped: bool  # the optimizer step did not change the weights


def gradscaler_demo(device: Device, *, steps: int = 8, overflow_at: tuple[int, ...] = (1, 2, 3),
                    init_scale: float = 2.0**16, growth_interval: int = 3) -> list[ScalerStep]:
    """Train a tiny linear model with a GradScaler; at the steps in ``overflow_at`` the loss is multiplied by
    infinity, so every scaled gradient overflows. The scaler must then skip the step and halve the scale;
    after ``growth_interval`` clean steps in a row it doubles it. Deterministic on every device.
    """
    import torch

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1).to(device.torch)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = make_scaler(device, init_scale=init_scale, growth_interval=growth_interval)
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 2.0, -3.0], [0.0, 1.0, -1.0, 2.0]], device=device.torch)
    y = torch.tensor([[1.0], [-1.0], [0.5]], device=device.torch)
    rows = []
    for i in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss = (model(x) - y).square().mean()
        if i in overflow_at:
            loss = loss * float("inf")  # what an FP16 overflow looks like to the scaler: inf/NaN gradients
        before = scaler.get_scale()
        weights = model.weight.detach().clone()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        rows.append(ScalerStep(i, i in overflow_at, before, scaler.get_scale(), torch.equal(weights, model.weight)))
    return rows


# --- FLOPs and model FLOPs utilisation ----------------------------------------------------------------------------


def training_flop_per_image(image_size: int = 224) -> Figure:
    """Derived training FLOP per image of ResNet-50: 3 × forward (backward ≈ 2 × forward)."""
    from npulab.pytorch.resnet import forward_flop_per_image

    forward = forward_flop_per_image(image_size)
    return derive(t("pt.train_flop", size=image_size), "3 * forward_gflop", "GFLOP", note=t("pt.train_flop_note"),
                  forward_gflop=forward / 1e9)


def mfu(images_per_s: Figure | float, flop_per_image: Figure, peak_tflops: Figure, label: str = "") -> Figure:
    """Derived model FLOPs utilisation: images/s × FLOP per image / peak."""
    return derive(label or t("pt.mfu"), "100 * images_per_s * gflop_per_image / 1e3 / peak_tflops", "%",
                  digits=3, note=t("pt.mfu_note"),
                  images_per_s=images_per_s, gflop_per_image=flop_per_image, peak_tflops=peak_tflops)


def profile_table(step: Callable, device: Device, *, steps: int = 2, row_limit: int = 8) -> str:
    """``torch.profiler`` over ``steps`` calls of ``step`` (CPU activity, plus CUDA on a GPU): the top operators.

    Kineto, the profiler's backend, prints "profiler_start/stop" lines on stderr at its default log level;
    ``KINETO_LOG_LEVEL=6`` (set here unless you set it) keeps them out of the notebook.
    """
    import os

    from torch.profiler import ProfilerActivity, profile

    os.environ.setdefault("KINETO_LOG_LEVEL", "6")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.kind == "cuda" else [])
    with profile(activities=activities) as prof:
        for _ in range(steps):
            step()
        synchronize(device)
    sort = "device_time_total" if device.kind == "cuda" else "cpu_time_total"
    return prof.key_averages().table(sort_by=sort, row_limit=row_limit)
