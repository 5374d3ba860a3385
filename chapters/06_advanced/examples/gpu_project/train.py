"""A small CUDA training script of the kind chapter 06 assesses for a move to Ascend (not run by the course).

It uses what GPU projects typically use: .cuda(), a CUDA device string, NCCL for data parallelism,
torch.compile, cuDNN autotuning and a custom CUDA kernel built by setup.py (fused_gelu.cu).
"""

import os

import fused_gelu_ext  # built from fused_gelu.cu by setup.py
import torch
import torch.distributed as dist
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.linear = nn.Linear(width, width)

    def forward(self, x):
        return fused_gelu_ext.forward(self.linear(x))


def main() -> None:
    torch.backends.cudnn.benchmark = True
    dist.init_process_group(backend="nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = nn.Sequential(Block(1024), Block(1024), nn.Linear(1024, 10)).cuda()
    model = torch.compile(nn.parallel.DistributedDataParallel(model))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for step in range(100):
        x = torch.randn(64, 1024, device="cuda")
        y = torch.randint(0, 10, (64,), device="cuda")
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if rank == 0 and step % 10 == 0:
            print(step, loss.item(), torch.cuda.max_memory_allocated() / 2**20, "MiB")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
