"""Gate NPU-only cells so that "Run All" never crashes on a machine without an Ascend NPU.

Cells that need an NPU carry the tags ``npu`` and ``skip-execution`` (CI and the book build skip
them) and start with the ``%%npu`` cell magic, which runs the cell where an NPU is usable and
otherwise prints, in Chinese, why it was skipped and where its reference result is.
"""

from __future__ import annotations

from npulab.core.device import npu_available, pick_device
from npulab.core.i18n import language, t
from npulab.lint.expected_output import label

# Points only at things every lesson has: the prose around the cell. On the course site the cell also carries a
# badge and, once recorded on real Ascend hardware, the recorded output with its device/CANN stamp.
DEFAULT_REFERENCE = t("npu.default_reference", "zh")
# The notice uses only characters that the course fonts (Noto Sans/Serif CJK SC) contain: no emoji or media glyphs.
SKIP_LABEL = t("npu.skip_label", "zh")


def skip_message(reference: str = "") -> str:
    """The notice printed instead of running an NPU-only cell, in npulab's language (the ``%%npu`` line's own
    pointer is the code's words, the same in both editions)."""
    device = pick_device()
    lang = language()
    notice = t("npu.skip_label", lang) + t("npu.skip", lang, device=device) + "\n"
    if lang == "zh":
        return notice + label(reference.strip() or DEFAULT_REFERENCE)
    return notice + t("npu.reference", lang, text=(reference.strip() or t("npu.default_reference", lang)).rstrip("。."))


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
