"""Three Triton kernels that run on any machine: vector add, a fused row softmax and a blocked matmul.

The kernel bodies are ordinary Triton: the same source compiles for a CUDA GPU with ``triton`` and for an
Ascend NPU with ``triton-ascend``. On a machine without either, Triton's interpreter executes them with
NumPy on the CPU, program by program.

Triton decides between compiler and interpreter **when ``@triton.jit`` decorates a function**: ``triton.jit``
reads ``triton.knobs.runtime.interpret``, which reads the environment variable ``TRITON_INTERPRET`` at that
moment, and returns either a ``JITFunction`` (compiled at its first launch) or an ``InterpretedFunction``; a
launch does not consult the variable again (``python/triton/runtime/jit.py`` and ``python/triton/knobs.py`` in
triton 3.7.1). Triton's own library functions (``tl.max``, ``tl.sum``, ``tl.cdiv`` …) are ``@jit`` functions too,
decorated once at ``import triton``. So this module never sets the variable for the process: :func:`interpreter`
sets it only around a decoration and restores the previous value; :func:`jit_for` decorates for one device
(interpreted for ``cpu``, compiled otherwise), and a CPU launch temporarily swaps in interpreted twins of the
library functions (:class:`_LibraryTwins`) in case triton was first imported in compiled mode (``torch.compile``
imports it, even on a CPU). Other lessons that use triton are not affected.

The public launchers take torch tensors and pick the kernel variant from the tensors' device:

>>> import torch
>>> x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
>>> bool(torch.allclose(triton_softmax(x), torch.softmax(x, dim=-1)))
True
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator

import torch
import triton
import triton.language as tl

from npulab.core.i18n import t

INTERPRET_ENV = "TRITON_INTERPRET"
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
INTERPRETER_DTYPES = (torch.float16, torch.float32)  # NumPy has no bfloat16: the interpreter gets it wrong


# --------------------------------------------------------------------------------------------------------------
# compiler or interpreter


@contextlib.contextmanager
def interpreter(enabled: bool = True) -> Iterator[None]:
    """Within the block, ``@triton.jit`` builds interpreted kernels (``enabled``) or compiled ones; then restore.

    >>> with interpreter():
    ...     os.environ["TRITON_INTERPRET"]
    '1'
    """
    old = os.environ.get(INTERPRET_ENV)
    os.environ[INTERPRET_ENV] = "1" if enabled else "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(INTERPRET_ENV, None)
        else:
            os.environ[INTERPRET_ENV] = old


def needs_interpreter(device: torch.device | str) -> bool:
    """True for the CPU: Triton has no CPU compiler, so kernels for CPU tensors run in the interpreter."""
    return torch.device(device).type == "cpu"


class _LibraryTwins:
    """Interpreted twins of Triton's own ``@jit`` library functions, swapped in only while a CPU kernel runs.

    ``tl.max``, ``tl.sum``, ``tl.cdiv``, ``tl.zeros`` … are themselves ``@triton.jit`` functions, decorated when
    ``triton.language`` is first imported. If that import happened without ``TRITON_INTERPRET`` (say, because
    ``torch.compile`` imported triton first), they are compiled-mode ``JITFunction`` objects, and an interpreted
    kernel that calls them fails with "Cannot call @triton.jit'd outside of the scope of a kernel". During an
    interpreted launch this context replaces them with interpreted twins and puts the originals back afterwards.
    """

    _cache: dict[int, object] = {}

    @staticmethod
    def _modules():
        import sys

        names = ("triton.language", "triton.language.standard", "triton.language.random")
        return [sys.modules[n] for n in names if n in sys.modules]

    @classmethod
    def _twin(cls, jit_fn):
        from triton.runtime.interpreter import InterpretedFunction

        if id(jit_fn) not in cls._cache:
            cls._cache[id(jit_fn)] = (jit_fn, InterpretedFunction(jit_fn.fn))
        return cls._cache[id(jit_fn)][1]

    @classmethod
    @contextlib.contextmanager
    def active(cls) -> Iterator[None]:
        from triton.runtime.jit import JITFunction, mangle_type

        # the first launch lazily imports modules that expect the originals (triton 3.7.1: triton.experimental.gluon
        # asserts that tl.cdiv is a JITFunction); trigger those imports before anything is swapped
        mangle_type(torch.empty(1))
        changes: list[tuple[object, str, object]] = []
        try:
            for module in cls._modules():
                for name, value in list(vars(module).items()):
                    if isinstance(value, JITFunction):
                        changes.append((module, name, value))
                        setattr(module, name, cls._twin(value))
            for name, value in list(vars(tl.tensor).items()):  # member forms such as x.sum(), x.max(axis=0)
                if isinstance(value, JITFunction):
                    twin = cls._twin(value)
                    changes.append((tl.tensor, name, value))
                    # a plain function, so that x.sum() binds x as the first argument
                    setattr(tl.tensor, name, lambda self, *args, _twin=twin, **kwargs: _twin(self, *args, **kwargs))
            yield
        finally:
            for obj, name, value in reversed(changes):
                setattr(obj, name, value)


class CpuKernel:
    """An interpreted kernel whose launches (``kernel[grid](...)``) see an interpreted Triton library."""

    launches = 0  # launches of any CpuKernel in this process (the lab checks count them)

    def __init__(self, interpreted) -> None:
        self.interpreted = interpreted  # triton's InterpretedFunction
        self.fn = interpreted.fn
        self.__name__ = interpreted.fn.__name__
        self.__doc__ = interpreted.fn.__doc__

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            CpuKernel.launches += 1
            with _LibraryTwins.active():
                return self.interpreted[grid](*args, **kwargs)

        return launch

    def __call__(self, *args, **kwargs):  # a call from inside another interpreted kernel
        return self.interpreted(*args, **kwargs)

    def __repr__(self) -> str:
        return t("triton.cpu_kernel_repr", name=self.__name__)


def jit_for(device: torch.device | str) -> Callable:
    """A decorator like ``@triton.jit``, interpreted when ``device`` is the CPU and compiled otherwise.

    On a GPU or NPU it is exactly ``triton.jit``. On the CPU it decorates with ``TRITON_INTERPRET=1`` set for
    that moment only, and wraps the result so that each launch also runs Triton's library functions in the
    interpreter (see ``_LibraryTwins``). The kernel body is the same source in both cases.
    """
    interpret = needs_interpreter(device)

    def decorate(fn: Callable):
        with interpreter(interpret):
            jitted = triton.jit(fn)
        return CpuKernel(jitted) if interpret else jitted

    return decorate


def mode(device: torch.device | str) -> str:
    """How kernels for tensors on ``device`` run, in words (for printing)."""
    return t("triton.mode_interpreter") if needs_interpreter(device) else t("triton.mode_compiled", device=torch.device(device).type)


# --------------------------------------------------------------------------------------------------------------
# the kernels (plain functions here; _kernel() wraps them with triton.jit for the device at hand)


def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # one program adds one block of BLOCK_SIZE elements; the mask switches off the lanes past the end
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def softmax_kernel(x_ptr, out_ptr, n_rows, n_cols, x_row_stride, out_row_stride, BLOCK_SIZE: tl.constexpr):
    # program pid handles rows pid, pid + P, pid + 2P, ... (P = programs launched): with P = n_rows this is
    # one row per program (the GPU habit); with P = the core count each program loops over many rows
    pid = tl.program_id(axis=0)
    step = tl.num_programs(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    for row in range(pid, n_rows, step):
        # masked lanes read -inf, so they add exp(-inf) = 0 to the sum and never win the max
        x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        y = e / tl.sum(e, axis=0)
        tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):
    # C is cut into BLOCK_M x BLOCK_N tiles numbered row by row; program pid computes tiles pid, pid + P, ...
    pid = tl.program_id(axis=0)
    step = tl.num_programs(axis=0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    n_tiles = tl.cdiv(M, BLOCK_M) * tiles_n
    for tile in range(pid, n_tiles, step):
        rm = (tile // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = (tile % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):  # the K loop: one BLOCK_K slice of A and of B at a time
            kk = k0 + rk
            a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                        mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                        mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
        tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


KERNELS = {"add": add_kernel, "softmax": softmax_kernel, "matmul": matmul_kernel}


@functools.cache
def _kernel(name: str, interpret: bool):
    return jit_for("cpu" if interpret else "cuda")(KERNELS[name])


def kernel(name: str, device: torch.device | str):
    """The jitted kernel ``name`` ("add", "softmax", "matmul") for tensors on ``device``."""
    if name not in KERNELS:
        raise KeyError(t("triton.no_kernel", name=repr(name), choices=t("cube.list_separator").join(KERNELS)))
    return _kernel(name, needs_interpreter(device))


# --------------------------------------------------------------------------------------------------------------
# launchers


def _check_float(name: str, tensor: torch.Tensor, ndim: int) -> None:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(t("triton.not_tensor", name=name, got=type(tensor).__name__))
    if tensor.dim() != ndim:
        raise ValueError(t("triton.ndim", name=name, ndim=ndim, shape=tuple(tensor.shape)))
    if tensor.dtype not in FLOAT_DTYPES:
        raise TypeError(t("triton.float_dtype", name=name, dtype=tensor.dtype))
    if needs_interpreter(tensor.device) and tensor.dtype not in INTERPRETER_DTYPES:
        raise TypeError(t("triton.cpu_bf16", name=name, dtype=tensor.dtype))


def _programs(requested: int | None, work_items: int) -> int:
    if requested is None:
        return max(work_items, 1)
    if int(requested) < 1:
        raise ValueError(t("triton.programs_positive", programs=requested))
    return int(requested)


def vector_add(x: torch.Tensor, y: torch.Tensor, block_size: int = 1024) -> torch.Tensor:
    """``x + y`` for two tensors of the same shape, dtype and device, one block per program."""
    if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
        raise TypeError(t("triton.xy_tensors"))
    if x.shape != y.shape or x.dtype != y.dtype or x.device != y.device:
        raise ValueError(t("triton.xy_same", x=f"{tuple(x.shape)} {x.dtype} {x.device}",
                           y=f"{tuple(y.shape)} {y.dtype} {y.device}"))
    if needs_interpreter(x.device) and x.dtype == torch.bfloat16:
        raise TypeError(t("triton.x_cpu_bf16"))
    if block_size < 1 or block_size & (block_size - 1):
        raise ValueError(t("triton.block_pow2", block=block_size))
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        kernel("add", x.device)[(triton.cdiv(n, block_size),)](x, y, out, n, BLOCK_SIZE=block_size)
    return out


def softmax_block(n_cols: int) -> int:
    """The tile width the softmax kernel uses for rows of ``n_cols``: the next power of two."""
    return triton.next_power_of_2(max(int(n_cols), 1))


def triton_softmax(x: torch.Tensor, programs: int | None = None) -> torch.Tensor:
    """Softmax over the last dimension of a 2-D float tensor; ``programs`` = launch grid (default: one per row)."""
    _check_float("x", x, 2)
    if x.stride(-1) != 1:
        x = x.contiguous()
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    if n_rows and n_cols:
        grid = (_programs(programs, n_rows),)
        kernel("softmax", x.device)[grid](x, out, n_rows, n_cols, x.stride(0), out.stride(0),
                                          BLOCK_SIZE=softmax_block(n_cols))
    return out


def triton_matmul(a: torch.Tensor, b: torch.Tensor, programs: int | None = None,
                  block_m: int = 32, block_n: int = 32, block_k: int = 32) -> torch.Tensor:
    """``a @ b`` for 2-D float tensors of any compatible sizes, accumulated in float32, result in ``a.dtype``.

    ``programs`` is the launch grid (default: one program per output tile); block sizes must be powers of two
    and at least 16 (``tl.dot`` needs tiles of at least 16 in each dimension).
    """
    _check_float("a", a, 2)
    _check_float("b", b, 2)
    if a.dtype != b.dtype or a.device != b.device:
        raise ValueError(t("triton.ab_same", a=f"{a.dtype} {a.device}", b=f"{b.dtype} {b.device}"))
    (M, K), (K2, N) = a.shape, b.shape
    if K != K2:
        raise ValueError(t("triton.shape_mismatch", m=M, k=K, k2=K2, n=N))
    for name, value in (("block_m", block_m), ("block_n", block_n), ("block_k", block_k)):
        if value < 16 or value & (value - 1):
            raise ValueError(t("triton.block_min16", name=name, value=value))
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    if M and N:
        tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
        kernel("matmul", a.device)[(_programs(programs, tiles),)](
            a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
            BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_K=block_k, PRECISION=dot_precision(a.device))
    return c


def dot_precision(device: torch.device | str) -> str | None:
    """``tl.dot``'s input_precision: "ieee" (true float32) on CPU and CUDA, where the default would be TF32;
    None (the backend's default) elsewhere, e.g. on an NPU with triton-ascend."""
    return "ieee" if torch.device(device).type in ("cpu", "cuda") else None


def matmul_tiles(m: int, n: int, block_m: int = 32, block_n: int = 32) -> int:
    """How many output tiles (and so programs, one tile each) a launch of ``triton_matmul`` covers."""
    return triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
