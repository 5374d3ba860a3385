"""Errors of the Ascend C pipeline model: every one says, in Chinese, what the real kernel would do."""

from __future__ import annotations


class AscendCError(ValueError):
    """A setting or a call that the Ascend C programming model does not allow."""


class TilingError(AscendCError):
    """Tiling parameters that no kernel can run with (lengths, core count, buffer count)."""


class UBOverflowError(TilingError):
    """The buffers requested with ``InitBuffer`` do not fit into the Unified Buffer."""


class AlignmentError(TilingError):
    """A length or address that breaks the 32-byte rule of the Unified Buffer and of ``DataCopy``."""


class TilingWarning(UserWarning):
    """A tiling the kernel can run with, but probably slower than intended (e.g. more cores than the chip has)."""


class QueueError(AscendCError):
    """Misuse of a ``TQue``: no free buffer, queue deeper than declared, ``DeQue`` on an empty queue."""


class OutOfBoundsError(AscendCError):
    """A copy that reaches past the Global Memory range a core was given with ``SetGlobalBuffer``."""
