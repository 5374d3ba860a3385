"""Gate NPU-only cells so that "Run All" never crashes on a machine without an Ascend NPU.

Cells that need an NPU carry the tags ``npu`` and ``skip-execution`` (CI and the book build skip
them) and start with the ``%%npu`` cell magic, which runs the cell where an NPU is usable and
otherwise prints, in Chinese, why it was skipped and where its reference result is.
"""

from __future__ import annotations

from npulab.core.device import npu_available, pick_device
from npulab.lint.expected_output import label

# Points only at things every lesson has: the prose around the cell. On the course site the cell also carries a
# badge and, once recorded on real Ascend hardware, the recorded output with its device/CANN stamp.
DEFAULT_REFERENCE = "本单元前后的正文说明；在昇腾主机上运行本笔记本即可得到真实输出"
# The notice uses only characters that the course fonts (Noto Sans/Serif CJK SC) contain: no emoji or media glyphs.
SKIP_LABEL = "【已跳过】"


def skip_message(reference: str = "") -> str:
    """The Chinese notice printed instead of running an NPU-only cell."""
    device = pick_device()
    return (
        f"{SKIP_LABEL}此单元需要昇腾 NPU（Ascend NPU），本机使用的设备是 {device}，因此没有执行。\n"
        + label(reference.strip() or DEFAULT_REFERENCE)
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
