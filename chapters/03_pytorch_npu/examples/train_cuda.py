"""A small image-classification training script written for NVIDIA GPUs, the kind people bring to Ascend.

Chapter 03 migrates it with ``python -m npulab migrate``. It is complete and runs anywhere: synthetic
data with learnable labels, a small CNN, mixed precision with a gradient scaler on the GPU, timing
with CUDA events, optional DDP with NCCL under torchrun, and a CPU fallback.

    python train_cuda.py [--device cuda|cpu] [--steps 30] [--batch-size 64]
    torchrun --nproc_per_node=2 train_cuda.py        # DDP over NCCL
"""

import argparse
import os
import subprocess
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def gpu_summary() -> str:
    """Name and memory of the GPUs, as nvidia-smi reports them ("" when the tool is missing)."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.used,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, check=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


class SmallNet(nn.Module):
    """Two conv-BN-ReLU blocks, global average pooling and a linear classifier."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x).flatten(1))


def make_data(num_samples: int, image_size: int, num_classes: int, seed: int = 0):
    """Noise images tinted with a colour that depends on the label, so that the loss can go down."""
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, num_classes, (num_samples,), generator=generator)
    colours = torch.randn(num_classes, 3, generator=generator)
    images = torch.randn(num_samples, 3, image_size, image_size, generator=generator)
    return images + colours[labels][:, :, None, None], labels


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Train a small CNN on synthetic data.")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--image-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--dist-backend", default="nccl", help="backend of torch.distributed")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    distributed = int(os.environ.get("WORLD_SIZE", "1")) > 1
    if distributed:
        dist.init_process_group(backend=args.dist_backend)
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        args.device = f"cuda:{local_rank}"
    device = torch.device(args.device)
    on_gpu = device.type == "cuda"
    print(f"device: {device}, visible devices: {os.environ.get('CUDA_VISIBLE_DEVICES', 'all')}")
    if on_gpu:
        torch.backends.cudnn.benchmark = True
        print(f"GPU: {torch.cuda.get_device_name(device)}")
        summary = gpu_summary()
        if summary:
            print(f"nvidia-smi: {summary}")

    torch.manual_seed(0)
    images_all, labels_all = make_data(2048, args.image_size, 10)
    model = SmallNet().cuda() if on_gpu else SmallNet().to(device)
    if distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scaler = torch.cuda.amp.GradScaler() if on_gpu else None
    if on_gpu:
        torch.cuda.reset_peak_memory_stats(device)
        start_event, end_event = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    generator = torch.Generator().manual_seed(1)
    losses, warmup, started = [], 5, 0.0
    for step in range(args.steps):
        if step == warmup:  # time the steps after the warm-up, on the device's own clock where there is one
            if on_gpu:
                start_event.record()
            started = time.perf_counter()
        index = torch.randint(0, images_all.shape[0], (args.batch_size,), generator=generator)
        images = images_all[index].to(device, non_blocking=True)
        labels = labels_all[index].to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        if scaler is not None:
            with torch.cuda.amp.autocast():
                loss = F.cross_entropy(model(images), labels)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
        losses.append(loss.detach())

    if on_gpu:
        end_event.record()
        torch.cuda.synchronize()
        seconds = start_event.elapsed_time(end_event) / 1e3
    else:
        seconds = time.perf_counter() - started
    timed = max(args.steps - warmup, 1)
    print(f"loss: first {losses[0].item():.3f}, last {losses[-1].item():.3f} ({args.steps} steps)")
    print(f"throughput: {timed * args.batch_size / seconds:.0f} images/s over the last {timed} steps")
    if on_gpu:
        print(f"peak memory: {torch.cuda.max_memory_allocated(device) / 2**20:.1f} MiB")
    if distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
