"""Data-parallel training with torch.distributed on whatever devices are present (course chapter 06).

Launch one process per device:

    torchrun --standalone --nproc_per_node 2 ddp_train.py --steps 30

Each process binds the device of its LOCAL_RANK (npu:i, cuda:i, or the CPU) and joins a process group with
the backend for that device: hccl on Ascend NPUs, nccl on CUDA, gloo on CPU. DistributedSampler gives every
rank a different shard of a synthetic regression data set; DistributedDataParallel all-reduces the gradients
in backward, so that after every step all replicas hold the same weights — checked at the end.
"""

from __future__ import annotations

import argparse
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

from npulab.core.device import pick_device, synchronize
from npulab.env import visible_devices
from npulab.pytorch import distributed


def make_data(samples: int, features: int) -> TensorDataset:
    """The same synthetic data on every rank (fixed seed): y = x·w + noise, with var(x·w) ≈ 1."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(samples, features, generator=generator)
    w = torch.randn(features, 1, generator=generator) / features**0.5
    return TensorDataset(x, x @ w + 0.1 * torch.randn(samples, 1, generator=generator))


def main() -> None:
    parser = argparse.ArgumentParser(description="DDP 训练示例：NPU 用 hccl，CUDA 用 nccl，CPU 用 gloo")
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--batch", type=int, default=64, help="每个 rank 的批大小")
    parser.add_argument("--features", type=int, default=256)
    args = parser.parse_args()

    rank, local_rank, world = distributed.env_rank()
    kind = pick_device().kind  # NPULAB_DEVICE=cpu forces the CPU (e.g. a host with a single accelerator)
    if kind == "cpu":
        torch.set_num_threads(1)  # several processes share the CPU cores
    device = distributed.bind_device(kind, local_rank)
    backend = distributed.backend_for(kind)
    dist.init_process_group(backend=backend)
    where = f"逻辑 ID {visible_devices.from_environ().device_id(local_rank)}" if kind == "npu" else device
    print(f"rank {rank}/{world}：LOCAL_RANK={local_rank}，设备 {device}（{where}），后端 {backend}", flush=True)

    data = make_data(samples=args.batch * world * 8, features=args.features)
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler)
    torch.manual_seed(0)  # the same initial weights everywhere (DDP also broadcasts rank 0's at start)
    model = nn.Sequential(nn.Linear(args.features, 512), nn.ReLU(), nn.Linear(512, 1)).to(device)
    model = DistributedDataParallel(model, device_ids=None if kind == "cpu" else [local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    step, start, losses = 0, time.perf_counter(), []
    while step < args.steps:
        sampler.set_epoch(step)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()  # DDP all-reduces the gradients here
            optimizer.step()
            losses.append(loss.item())
            step += 1
            if step == args.steps:
                break
    synchronize(device)
    seconds = time.perf_counter() - start

    # every replica must hold the same weights: compare a checksum across ranks
    checksum = torch.stack([p.detach().float().sum() for p in model.parameters()]).sum().reshape(1).to(device)
    low, high = checksum.clone(), checksum.clone()
    dist.all_reduce(low, op=dist.ReduceOp.MIN)
    dist.all_reduce(high, op=dist.ReduceOp.MAX)
    print(f"rank {rank}：loss {losses[0]:.3f} → {losses[-1]:.3f}（{args.steps} 步，本 rank 每步 {args.batch} 个样本）", flush=True)
    if rank == 0:
        print(f"{world} 个进程，{args.steps} 步用时 {seconds:.2f} s；各副本权重校验和之差 {(high - low).item():.3g}"
              f"（{'一致' if (high - low).item() == 0 else '不一致'}）", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
