"""The Ascend private data formats FRACTAL_NZ and NC1HWC0 (5HD), as executable numpy models.

The Cube unit multiplies 16×16 tiles ("fractals"), so CANN stores matrices tile by tile. The rules
follow torch_npu's storage-shape code (Ascend/pytorch ``torch_npu/csrc/framework/FormatHelper.cpp``,
``InferShapeNDToNZ``):

- FRACTAL_NZ of an ND array ``[..., M, N]``: ``M0 = 16`` rows and ``N0 = 32 / s`` columns per
  fractal, with ``s`` the element size and 4-byte types counted as 2 (so ``N0 = 32`` for 1-byte
  types, 16 otherwise); storage shape ``[..., ceil(N/N0), ceil(M/16), 16, N0]``; element ``(m, n)``
  lands at ``(n // N0, m // 16, m % 16, n % N0)``; padding is zero. Inside a fractal the rows are
  stored one after another ("Z"), and the fractals of a column of tiles come one after another ("N").
- NC1HWC0 of an NCHW array ``[N, C, H, W]``: ``[N, ceil(C/16), H, W, 16]`` (torch_npu uses C0 = 16),
  element ``(n, c, h, w)`` at ``(n, c // 16, h, w, c % 16)``, padding zero.

torch_npu pads 0-D and 1-D tensors to 2-D before the NZ rule; these functions ask for at least two
dimensions instead, so that the caller decides what a vector means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from npulab.core.i18n import t

M0 = 16  # rows of a fractal
C0 = 16  # channels per 5HD block (torch_npu)
FRACTAL_ROW_BYTES = 32  # N0 × element size (torch_npu's BLOCKBYTES; fp32 counted as 2 bytes)
SUPPORTED_DTYPES = ("float16", "bfloat16", "float32", "int8", "uint8")


def _dtype(dtype, what: str | None = None) -> np.dtype:
    """The numpy dtype of ``dtype`` (a name or numpy dtype), checked against SUPPORTED_DTYPES."""
    what = what or t("formats.what_input")
    dtypes = t("cube.list_separator").join(SUPPORTED_DTYPES)
    try:
        dt = _bfloat16() if isinstance(dtype, str) and dtype == "bfloat16" else np.dtype(dtype)
    except TypeError:
        raise ValueError(t("formats.dtype", what=what, dtypes=dtypes, dtype=repr(dtype))) from None
    if dt.name not in SUPPORTED_DTYPES:
        raise ValueError(t("formats.dtype", what=what, dtypes=dtypes, dtype=dt.name))
    return dt


def _bfloat16() -> np.dtype:
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def nz_block(dtype) -> tuple[int, int]:
    """(M0, N0) of a FRACTAL_NZ fractal for ``dtype``: (16, 32) for 1-byte types, (16, 16) otherwise."""
    dt = _dtype(dtype)
    return M0, (FRACTAL_ROW_BYTES if dt.itemsize == 1 else FRACTAL_ROW_BYTES // 2)


def _as_array(x, what: str) -> np.ndarray:
    arr = np.asarray(x)
    _dtype(arr.dtype, what)
    return arr


def _check_shape(shape, min_rank: int, what: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(d) for d in shape)
    except TypeError:
        raise ValueError(t("formats.shape_ints", what=what, shape=repr(shape))) from None
    if len(dims) < min_rank:
        raise ValueError(t("formats.rank", what=what, rank=min_rank, got=len(dims), dims=dims))
    if any(d < 0 for d in dims):
        raise ValueError(t("formats.negative", what=what, dims=dims))
    return dims


def nz_shape(shape, dtype="float16") -> tuple[int, ...]:
    """Storage shape of an ND array of ``shape`` in FRACTAL_NZ: ``[..., ceil(N/N0), ceil(M/16), 16, N0]``.

    >>> nz_shape((8, 100, 30), "float16")
    (8, 2, 7, 16, 16)
    """
    dims = _check_shape(shape, 2, t("formats.what_nd"))
    m0, n0 = nz_block(dtype)
    *batch, m, n = dims
    return (*batch, math.ceil(n / n0), math.ceil(m / m0), m0, n0)


def nz_index(m: int, n: int, dtype="float16") -> tuple[int, int, int, int]:
    """Where ND element ``(m, n)`` lands in the last four NZ axes: ``(n // N0, m // 16, m % 16, n % N0)``."""
    m0, n0 = nz_block(dtype)
    return n // n0, m // m0, m % m0, n % n0


def nd_to_nz(x) -> np.ndarray:
    """ND array ``[..., M, N]`` → FRACTAL_NZ storage array ``[..., ceil(N/N0), ceil(M/16), 16, N0]`` (zero padded)."""
    arr = _as_array(x, t("formats.what_nd_array"))
    dims = _check_shape(arr.shape, 2, t("formats.what_nd"))
    target = nz_shape(dims, arr.dtype)
    *batch, n1, m1, m0, n0 = target
    padded = np.zeros((*batch, m1 * m0, n1 * n0), dtype=arr.dtype)
    padded[..., : dims[-2], : dims[-1]] = arr
    k = len(batch)
    tiles = padded.reshape(*batch, m1, m0, n1, n0)  # axes: batch…, m1, m0, n1, n0
    order = (*range(k), k + 2, k, k + 1, k + 3)  # → batch…, n1, m1, m0, n0
    return np.ascontiguousarray(tiles.transpose(order))


def nz_to_nd(x_nz, shape) -> np.ndarray:
    """FRACTAL_NZ storage array → the ND array of logical ``shape`` (padding dropped)."""
    arr = _as_array(x_nz, t("formats.what_nz_array"))
    dims = _check_shape(shape, 2, t("formats.what_nd_target"))
    expected = nz_shape(dims, arr.dtype)
    if arr.shape != expected:
        raise ValueError(t("formats.nz_storage", dims=dims, dtype=arr.dtype.name, expected=expected, got=arr.shape))
    *batch, n1, m1, m0, n0 = expected
    k = len(batch)
    order = (*range(k), k + 1, k + 2, k, k + 3)  # batch…, n1, m1, m0, n0 → batch…, m1, m0, n1, n0
    full = arr.transpose(order).reshape(*batch, m1 * m0, n1 * n0)
    return np.ascontiguousarray(full[..., : dims[-2], : dims[-1]])


def nz_offsets(m: int, n: int, dtype="float16") -> np.ndarray:
    """An M×N array giving, for every ND element, its position (element offset) in the NZ buffer."""
    _check_shape((m, n), 2, t("formats.what_matrix"))
    storage = nz_shape((m, n), dtype)
    offsets = np.arange(math.prod(storage), dtype=np.int64).reshape(storage)
    # same index algebra as nz_to_nd, applied to positions instead of values
    m1, m0, n1, n0 = storage[1], storage[2], storage[0], storage[3]
    return np.ascontiguousarray(offsets.transpose(1, 2, 0, 3).reshape(m1 * m0, n1 * n0)[:m, :n])


def nc1hwc0_shape(shape) -> tuple[int, int, int, int, int]:
    """Storage shape of an NCHW array in NC1HWC0 (5HD): ``[N, ceil(C/16), H, W, 16]``."""
    dims = _check_shape(shape, 0, t("formats.what_nchw"))
    if len(dims) != 4:
        raise ValueError(t("formats.nchw_rank", got=len(dims), dims=dims))
    n, c, h, w = dims
    return n, math.ceil(c / C0), h, w, C0


def nchw_to_nc1hwc0(x) -> np.ndarray:
    """NCHW array ``[N, C, H, W]`` → NC1HWC0 storage array ``[N, ceil(C/16), H, W, 16]`` (zero padded)."""
    arr = _as_array(x, t("formats.what_nchw"))
    n, c1, h, w, c0 = nc1hwc0_shape(arr.shape)
    padded = np.zeros((n, c1 * c0, h, w), dtype=arr.dtype)
    padded[:, : arr.shape[1]] = arr
    return np.ascontiguousarray(padded.reshape(n, c1, c0, h, w).transpose(0, 1, 3, 4, 2))


def nc1hwc0_to_nchw(x, channels: int) -> np.ndarray:
    """NC1HWC0 storage array ``[N, C1, H, W, 16]`` → NCHW ``[N, channels, H, W]`` (padding dropped)."""
    arr = _as_array(x, t("formats.what_nc1hwc0"))
    if arr.ndim != 5 or arr.shape[-1] != C0:
        raise ValueError(t("formats.nc1hwc0_rank", c0=C0, shape=arr.shape))
    if not isinstance(channels, (int, np.integer)) or isinstance(channels, bool) or channels < 0:
        raise ValueError(t("formats.channels", channels=repr(channels)))
    if math.ceil(channels / C0) != arr.shape[1]:
        raise ValueError(t("formats.c1", channels=channels, c0=C0, need=math.ceil(channels / C0), got=arr.shape[1]))
    n, c1, h, w, c0 = arr.shape
    return np.ascontiguousarray(arr.transpose(0, 1, 4, 2, 3).reshape(n, c1 * c0, h, w)[:, :channels])


@dataclass(frozen=True)
class Padding:
    """Elements of the logical array, elements actually stored, and the overhead between them."""

    logical: int
    stored: int

    @property
    def overhead(self) -> float:
        """Extra storage as a fraction of the logical size: stored / logical − 1 (0 when nothing is padded)."""
        return self.stored / self.logical - 1 if self.logical else 0.0

    @property
    def efficiency(self) -> float:
        """Useful fraction of the stored elements: logical / stored."""
        return self.logical / self.stored if self.stored else 1.0


def nz_padding(shape, dtype="float16") -> Padding:
    """How many elements FRACTAL_NZ stores for an ND array of ``shape`` (padding included)."""
    dims = _check_shape(shape, 2, t("formats.what_nd"))
    return Padding(math.prod(dims), math.prod(nz_shape(dims, dtype)))


def nc1hwc0_padding(shape) -> Padding:
    """How many elements NC1HWC0 stores for an NCHW array of ``shape`` (padding included)."""
    dims = tuple(int(d) for d in shape)
    return Padding(math.prod(dims), math.prod(nc1hwc0_shape(dims)))
