"""MindSpore data-parallel training, launched with msrun (course chapter 06; runs on Ascend NPUs only).

    msrun --worker_num=8 --local_worker_num=8 --master_port=8118 --log_dir=msrun_log --join=True \
          --cluster_time_out=300 ms_data_parallel.py

msrun starts one worker per NPU (the counterpart of torchrun) and a scheduler; `init()` joins the HCCL
communication group. In DATA_PARALLEL mode every worker trains on its own shard, and DistributedGradReducer
averages the gradients across workers before the optimizer step — what DDP does in PyTorch.
"""

import os

os.environ.setdefault("GLOG_v", "4")  # keep MindSpore's C++ log lines quiet

import mindspore as ms
import mindspore.dataset as ds
import numpy as np
from mindspore import nn
from mindspore.communication import get_group_size, get_rank, init


class Regression:
    """The same synthetic data on every worker: y = x·w + noise."""

    def __init__(self, samples: int = 4096, features: int = 256):
        rng = np.random.default_rng(0)
        self.x = rng.standard_normal((samples, features)).astype(np.float32)
        w = (rng.standard_normal((features, 1)) / features**0.5).astype(np.float32)
        self.y = (self.x @ w + 0.1 * rng.standard_normal((samples, 1))).astype(np.float32)

    def __getitem__(self, index):
        return self.x[index], self.y[index]

    def __len__(self):
        return len(self.x)


def main() -> None:
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_device("Ascend")
    init()  # HCCL; rank and group size come from msrun
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    rank, size = get_rank(), get_group_size()

    data = ds.GeneratorDataset(Regression(), column_names=["x", "y"], shuffle=True, num_shards=size, shard_id=rank)
    data = data.batch(64)
    net = nn.SequentialCell(nn.Dense(256, 512), nn.ReLU(), nn.Dense(512, 1))
    loss_fn = nn.MSELoss()
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.01, momentum=0.9)

    def forward(x, y):
        return loss_fn(net(x), y)

    grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
    grad_reducer = nn.DistributedGradReducer(optimizer.parameters)

    @ms.jit
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        optimizer(grad_reducer(grads))
        return loss

    for epoch in range(3):
        for x, y in data.create_tuple_iterator():
            loss = train_step(x, y)
        print(f"rank {rank}/{size}：第 {epoch} 轮结束，loss {loss.asnumpy():.4f}", flush=True)


if __name__ == "__main__":
    main()
