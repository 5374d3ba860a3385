"""Gate NPU-only cells so that "Run All" never crashes on a machine without an Ascend NPU.

Cells that need an NPU carry the tags ``npu`` and ``skip-execution`` (CI and the book build skip
them) and start with the ``%%npu`` cell magic, which runs the cell where an NPU is usable and
otherwise prints, in Chinese, why it was skipped and where its reference result is.
"""

from __future__ import annotations

from npulab.core.device import npu_available, pick_device

DEFAULT_REFERENCE = "本页该单元下方的录制输出（若已在昇腾硬件上录制）与「参考数据」表"


def skip_message(reference: str = "") -> str:
    """The Chinese notice printed instead of running an NPU-only cell."""
    device = pick_device()
    return (
        f"⏭ 此单元需要昇腾 NPU（Ascend NPU），本机使用的设备是 {device}，因此没有执行。\n"
        f"   参考结果：{reference.strip() or DEFAULT_REFERENCE}。"
    )


def npu_cell(line: str, cell: str) -> None:
    """Body of the ``%%npu`` magic: run ``cell`` when an NPU is present, else explain the skip."""
    from IPython import get_ipython

    if npu_available():
        get_ipython().run_cell(cell, store_history=False)
    else:
        print(skip_message(line))


def register_magics(ipython) -> None:
    """Register ``%%npu`` on an IPython shell (called by ``%load_ext npulab``)."""
    ipython.register_magic_function(npu_cell, magic_kind="cell", magic_name="npu")
