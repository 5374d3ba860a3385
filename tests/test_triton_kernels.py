"""The Triton kernels of npulab.kernels.triton_kernels against torch, run through Triton's interpreter on CPU.

The interpreter executes every program in Python, so sizes stay small and hypothesis runs few examples; awkward
sizes (1, primes, one past a power of two) are what matters, not large ones.
"""

import os

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("triton")

from npulab.kernels import triton_kernels as tk  # noqa: E402

FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DTYPES = st.sampled_from([torch.float32, torch.float16])
TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5), torch.float16: dict(atol=2e-3, rtol=2e-3)}


@FAST
@given(n=st.integers(1, 3000), block=st.sampled_from([16, 128, 1024]), dtype=DTYPES, seed=st.integers(0, 99))
def test_vector_add_matches_torch(n, block, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    x, y = torch.randn(n, generator=g).to(dtype), torch.randn(n, generator=g).to(dtype)
    assert torch.equal(tk.vector_add(x, y, block_size=block), x + y)


@FAST
@given(rows=st.integers(1, 12), cols=st.integers(1, 300), programs=st.one_of(st.none(), st.integers(1, 16)),
       dtype=DTYPES, seed=st.integers(0, 99))
def test_softmax_matches_torch(rows, cols, programs, dtype, seed):
    x = (torch.randn(rows, cols, generator=torch.Generator().manual_seed(seed)) * 4).to(dtype)
    got = tk.triton_softmax(x, programs=programs)
    assert got.dtype == dtype and got.shape == x.shape
    torch.testing.assert_close(got.float(), torch.softmax(x.float(), dim=-1), **TOL[dtype])


@FAST
@given(m=st.integers(1, 70), n=st.integers(1, 70), k=st.integers(1, 70), programs=st.one_of(st.none(), st.integers(1, 7)),
       block=st.sampled_from([(16, 16, 16), (32, 16, 32), (16, 32, 64)]), dtype=DTYPES, seed=st.integers(0, 99))
def test_matmul_matches_torch(m, n, k, programs, block, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(m, k, generator=g).to(dtype), torch.randn(k, n, generator=g).to(dtype)
    bm, bn, bk = block
    got = tk.triton_matmul(a, b, programs=programs, block_m=bm, block_n=bn, block_k=bk)
    assert got.dtype == dtype and got.shape == (m, n)
    tol = dict(atol=1e-4 * k, rtol=1e-4) if dtype == torch.float32 else dict(atol=2e-2 * k ** 0.5, rtol=1e-2)
    torch.testing.assert_close(got.float(), a.float() @ b.float(), **tol)


def test_non_contiguous_inputs_and_edge_shapes():
    a = torch.randn(33, 17).t()  # 17 x 33, column-major strides
    b = torch.randn(40, 33).t()  # 33 x 40
    torch.testing.assert_close(tk.triton_matmul(a, b), a @ b, atol=1e-4, rtol=1e-4)
    x = torch.randn(20, 9)[::2]  # row stride 18
    torch.testing.assert_close(tk.triton_softmax(x), torch.softmax(x, -1))
    xt = torch.randn(5, 8).t()  # column stride 8: copied to a contiguous layout first
    torch.testing.assert_close(tk.triton_softmax(xt), torch.softmax(xt, -1))
    assert tk.triton_matmul(torch.randn(4, 0), torch.randn(0, 3)).eq(0).all()  # K = 0: the empty sum
    assert tk.triton_matmul(torch.randn(0, 5), torch.randn(5, 3)).shape == (0, 3)
    assert tk.triton_softmax(torch.randn(0, 7)).shape == (0, 7)
    assert tk.vector_add(torch.zeros(0), torch.zeros(0)).numel() == 0


def test_softmax_of_a_column_vector_and_huge_values():
    assert torch.equal(tk.triton_softmax(torch.randn(6, 1)), torch.ones(6, 1))
    x = torch.tensor([[1000.0, 1000.0, -1000.0]])  # overflows exp() unless the row max is subtracted
    torch.testing.assert_close(tk.triton_softmax(x), torch.tensor([[0.5, 0.5, 0.0]]))


def test_more_programs_than_work_leaves_nothing_unwritten():
    x = torch.randn(3, 10)
    torch.testing.assert_close(tk.triton_softmax(x, programs=40), torch.softmax(x, -1))
    a, b = torch.randn(20, 20), torch.randn(20, 20)
    torch.testing.assert_close(tk.triton_matmul(a, b, programs=20), a @ b, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("call, error, words", [
    (lambda: tk.triton_softmax(torch.randn(3)), ValueError, "2 维"),
    (lambda: tk.triton_softmax(torch.ones(2, 2, dtype=torch.int32)), TypeError, "数据类型"),
    (lambda: tk.triton_softmax(torch.randn(2, 2).bfloat16()), TypeError, "bfloat16"),
    (lambda: tk.triton_softmax(torch.randn(2, 2), programs=0), ValueError, "programs"),
    (lambda: tk.triton_matmul(torch.randn(2, 3), torch.randn(4, 2)), ValueError, "形状不匹配"),
    (lambda: tk.triton_matmul(torch.randn(2, 3), torch.randn(3, 2).half()), ValueError, "数据类型"),
    (lambda: tk.triton_matmul(torch.randn(2, 3), torch.randn(3, 2), block_k=8), ValueError, "block_k"),
    (lambda: tk.triton_matmul(torch.randn(2, 3), torch.randn(3, 2), block_m=24), ValueError, "block_m"),
    (lambda: tk.vector_add(torch.randn(3), torch.randn(4)), ValueError, "形状"),
    (lambda: tk.vector_add(torch.randn(3), torch.randn(3), block_size=100), ValueError, "2 的幂"),
    (lambda: tk.vector_add(torch.randn(3).bfloat16(), torch.randn(3).bfloat16()), TypeError, "bfloat16"),
    (lambda: tk.kernel("gelu", "cpu"), KeyError, "没有名为"),
])
def test_bad_arguments_get_chinese_errors(call, error, words):
    with pytest.raises(error, match=words):
        call()


# --- TRITON_INTERPRET is read when @triton.jit decorates, and never left on -----------------------------------


def test_interpreter_context_sets_and_restores(monkeypatch):
    monkeypatch.delenv(tk.INTERPRET_ENV, raising=False)
    with tk.interpreter():
        assert os.environ[tk.INTERPRET_ENV] == "1"
    assert tk.INTERPRET_ENV not in os.environ
    monkeypatch.setenv(tk.INTERPRET_ENV, "0")
    with pytest.raises(RuntimeError), tk.interpreter():
        raise RuntimeError("inside")
    assert os.environ[tk.INTERPRET_ENV] == "0"
    with tk.interpreter(False):
        assert os.environ[tk.INTERPRET_ENV] == "0"


def test_decoration_decides_and_launch_does_not(monkeypatch):
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    monkeypatch.delenv(tk.INTERPRET_ENV, raising=False)
    cpu, gpu = tk.jit_for("cpu")(tk.add_kernel), tk.jit_for("cuda")(tk.add_kernel)
    assert isinstance(cpu, tk.CpuKernel) and isinstance(cpu.interpreted, InterpretedFunction)
    assert isinstance(gpu, JITFunction)  # compiled at launch; there is no GPU here, so it is never launched
    assert tk.INTERPRET_ENV not in os.environ
    monkeypatch.setenv(tk.INTERPRET_ENV, "1")  # switching it on later does not turn the compiled kernel into an interpreted one
    assert isinstance(gpu, JITFunction)


def test_launches_leave_no_trace_for_other_lessons(monkeypatch):
    import triton.language as tl

    monkeypatch.delenv(tk.INTERPRET_ENV, raising=False)
    before = {name: getattr(tl, name) for name in ("max", "sum", "cdiv", "zeros")}
    member = tl.tensor.sum
    tk.triton_softmax(torch.randn(2, 5))
    tk.triton_matmul(torch.randn(16, 16), torch.randn(16, 16))
    assert tk.INTERPRET_ENV not in os.environ
    assert {name: getattr(tl, name) for name in before} == before
    assert tl.tensor.sum is member


def test_learner_kernels_may_use_the_triton_library_and_member_functions():
    import triton.language as tl

    @tk.jit_for("cpu")
    def row_sums(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        tl.store(out_ptr + row, x.sum() + tl.max(x, axis=0) * 0 + tl.cdiv(n_cols, n_cols) - 1)

    x = torch.randn(4, 7)
    out = torch.empty(4)
    row_sums[(4,)](x, out, 7, BLOCK=8)
    torch.testing.assert_close(out, x.sum(1))
    assert "解释器" in tk.mode("cpu") and "cuda" in tk.mode("cuda")


def test_the_lesson_defines_the_same_add_kernel_as_npulab():
    """The lesson says its add_kernel "is the same code" as tk.add_kernel; keep that true."""
    import ast
    import inspect

    from npulab.core.notebook_cells import read
    from npulab.core.paths import REPO_ROOT

    def body(source: str, name: str) -> str:
        fn = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.FunctionDef) and n.name == name)
        fn.decorator_list = []
        return ast.dump(fn)

    nb = read(REPO_ROOT / "chapters" / "06_advanced" / "02_triton_kernels.ipynb")
    cell = next(c.source for c in nb.cells if c.cell_type == "code" and "def add_kernel" in c.source)
    assert body(cell, "add_kernel") == body(inspect.getsource(tk.add_kernel), "add_kernel")
