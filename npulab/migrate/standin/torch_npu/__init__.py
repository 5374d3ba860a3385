"""A stand-in for torch_npu on a machine WITHOUT an Ascend NPU. It is not an emulator.

Chapter 03 runs a script that was migrated to the NPU on the learner's own machine. There ``import
torch_npu`` fails (torch_npu is not installed where CANN is not), so ``npulab.migrate.standin.run_script``
puts this folder first on ``PYTHONPATH`` for that one run. It registers exactly what torch_npu reports
on a host without a usable NPU: ``torch.npu.is_available()`` is False and ``device_count()`` is 0. Any
other NPU call raises, as it would on such a host, so the script can only take its own non-NPU branch.
"""

import types

import torch

__version__ = "0+standin"

npu = types.ModuleType("torch_npu.npu")
npu.is_available = lambda: False
npu.device_count = lambda: 0


def _missing(name: str):
    raise RuntimeError(f"torch.npu.{name}：这台机器没有昇腾 NPU（此处只是 npulab 的 torch_npu 替身，不模拟 NPU）")


npu.__getattr__ = _missing
torch.npu = npu
