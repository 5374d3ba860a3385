"""lint-npu round 24t (issue 36): a cell's Triton kernels and their launches run under Triton's own interpreter in a
forked child (npulab.lint.triton_run), so Triton refuses what its compiler refuses. Planted cells and correct twins on
Triton calls no case set plants an error in (``tl.dot``, ``tl.max``, ``tl.zeros``, ``tl.broadcast_to``, ``tl.permute``,
``tl.static_assert``, ``triton.autotune`` with ``triton.Config``); the kernels around them load and store as the
course's kernels do (chapters/06_advanced/02_triton_kernels.ipynb)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from cell_findings import bound_cell
from test_lint_values import lint  # noqa: F401  (the module's fixture: one npu cell through check_notebook)

from npulab.lint import triton_run

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed")

HEAD = "import torch\nimport triton\nimport triton.language as tl\n\n"

# (what Triton refuses, the kernel and its launch with @@ where the planted and the twin differ, (planted, twin))
CASES = [
    ("tl.dot: operands of two dtypes", '''@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm = tl.arange(0, M)
    rn = tl.arange(0, N)
    rk = tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))


a = torch.randn(32, 16, device="npu").half()
b = torch.randn(16, 32, device="npu")@@
c = torch.empty(32, 32, device="npu")
mm_kernel[(1,)](a, b, c, 32, 32, 16)
''', ("", ".half()")),
    ("tl.max: an axis beyond the block's rank", '''@triton.jit
def rowmax_kernel(x_ptr, out_ptr, COLS: tl.constexpr):
    row = tl.program_id(0)
    v = tl.load(x_ptr + row * COLS + tl.arange(0, COLS))
    tl.store(out_ptr + row, tl.max(v, axis=@@))


x = torch.randn(4, 128, device="npu")
out = torch.empty(4, device="npu")
rowmax_kernel[(4,)](x, out, COLS=128)
''', ("1", "0")),
    ("tl.zeros: a shape from an argument that is not a constexpr", '''@triton.jit
def colmax_kernel(x_ptr, out_ptr, rows, ROWS@@, COLS: tl.constexpr):
    acc = tl.zeros((ROWS, COLS), dtype=tl.float32)
    c = tl.arange(0, COLS)
    for r in range(rows):
        acc += tl.load(x_ptr + r * COLS + c)[None, :]
    tl.store(out_ptr + c, tl.max(acc, axis=0))


x = torch.randn(8, 64, device="npu")
out = torch.empty(64, device="npu")
colmax_kernel[(1,)](x, out, 8, 4, 64)
''', ("", ": tl.constexpr")),
    ("tl.broadcast_to: a shape the block cannot grow to", '''@triton.jit
def bias_kernel(x_ptr, b_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    bias = tl.load(b_ptr + tl.arange(0, C))
    tile = tl.load(x_ptr + r * C + c) + tl.broadcast_to(bias@@, (R, C))
    tl.store(x_ptr + r * C + c, tile)


x = torch.randn(16, 32, device="npu")
b = torch.randn(32, device="npu")
bias_kernel[(1,)](x, b, 16, 32)
''', ("[:, None]", "[None, :]")),
    ("tl.permute: dims that are not a permutation", '''@triton.jit
def transpose_kernel(x_ptr, y_ptr, N: tl.constexpr):
    r = tl.arange(0, N)[:, None]
    c = tl.arange(0, N)[None, :]
    tile = tl.load(x_ptr + r * N + c)
    tl.store(y_ptr + r * N + c, tl.permute(tile, @@))


x = torch.randn(16, 16, device="npu")
y = torch.empty_like(x)
transpose_kernel[(1,)](x, y, N=16)
''', ("(1, 2)", "(1, 0)")),
    ("tl.static_assert: the kernel's own compile-time condition", '''@triton.jit
def tile_kernel(x_ptr, TILE: tl.constexpr):
    tl.static_assert(TILE % 32 == 0)
    offs = tl.arange(0, TILE)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)


x = torch.zeros(64, device="npu")
tile_kernel[(1,)](x, TILE=@@)
''', ("16", "32")),
    ("triton.autotune: a meta-parameter both tuned and passed", '''@triton.autotune(configs=[triton.Config({"BLOCK": 64}, num_warps=4),
                        triton.Config({"BLOCK": 128}, num_warps=8)], key=["n"])
@triton.jit
def scale_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


x = torch.randn(256, device="npu")
scale_kernel[(2,)](x, 256@@)
''', (", BLOCK=128", "")),
    ("a launch one kernel argument short", '''@triton.jit
def fill_kernel(x_ptr, value, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.full((BLOCK,), value, tl.float32), mask=offs < n)


x = torch.empty(300, device="npu")
grid = lambda meta: (triton.cdiv(300, meta["BLOCK"]),)
fill_kernel[grid](x, @@300, BLOCK=128)
''', ("", "1.5, ")),
]
IDS = [label.split(":")[0] for label, _, _ in CASES]


def _cell(body: str, part: str) -> str:
    return HEAD + body.replace("@@", part)


@pytest.mark.parametrize(("label", "body", "parts"), CASES, ids=IDS)
def test_triton_refuses_the_planted_kernel_and_passes_its_twin(label, body, parts):
    planted, twin = _cell(body, parts[0]), _cell(body, parts[1])
    found = triton_run.findings(*bound_cell(planted), planted)
    assert [line for line, _, _ in found] == [planted.count("\n")], (label, found)  # the launch, the cell's last line
    assert triton_run.findings(*bound_cell(twin), twin) == [], label


def test_a_planted_kernel_is_a_shape_check_finding_of_lint_npu(lint):  # noqa: F811
    label, body, parts = CASES[0]
    assert [f.kind for f in lint(_cell(body, parts[0]))] == ["shape-check"]
    assert lint(_cell(body, parts[1])) == []


@pytest.mark.parametrize("code", [
    # a launch inside a function or a loop is not run (the course's add() wrapper); the kernel alone neither
    HEAD + CASES[1][1].replace("@@", "1").replace("rowmax_kernel[(4,)]", "def go():\n    rowmax_kernel[(4,)]"),
    HEAD + CASES[1][1].replace("@@", "1").replace("\nrowmax_kernel[(4,)](x, out, COLS=128)", ""),
    # a tensor above the element limit: the run stops quietly
    HEAD + CASES[1][1].replace("@@", "1").replace("torch.randn(4, 128", "torch.randn(4096, 128"),
    # a name the kept statements do not bind (a file read): the launch that needs it is blanked
    HEAD + CASES[1][1].replace("@@", "1").replace('torch.randn(4, 128, device="npu")', 'torch.load("x.pt")'),
])
def test_what_the_child_does_not_run_stays_unknown(code):
    assert triton_run.findings(*bound_cell(code), code) == []


def _program(code: str) -> str | None:
    tree, imported = bound_cell(code)
    return triton_run.program(tree, code, imported)


def test_only_whitelisted_statements_reach_the_child():
    code = HEAD + "import os\n" + CASES[1][1].replace("@@", "0") + "os.system('true')\nprint(open('x').read())\n"
    text = _program(code) or ""
    assert "os.system" not in text and "import os" not in text and "open(" not in text
    assert text.count("\n") == code.count("\n")  # at the cell's own line numbers
    kernel_calls_os = code.replace("row = tl.program_id(0)", "row = tl.program_id(0) + os.getpid()")
    assert _program(kernel_calls_os) is None
    writes = code.replace("tl.store(out_ptr + row", "out_ptr.handle.data.tofile('f')\n    tl.store(out_ptr + row")
    assert _program(writes) is None  # a kernel calls only triton.language and a block's own methods


def test_a_grid_keeps_its_first_programs():
    assert triton_run._first_programs((1000,)) == (triton_run.MAX_PROGRAMS,)
    assert triton_run._first_programs((10, 10, 10)) == (10, 6, 1)
    assert triton_run._first_programs((3, 0)) == (3, 0)


def test_what_triton_ascend_lifts_is_not_reported():
    """Upstream Triton refuses a ``tl.arange`` range of 1000 and a (3, 64) block; Triton-Ascend documents both as
    allowed on Ascend (npulab/data/triton_ascend_lifted.yaml), so the cell is clean."""
    for planted in (CASES[1][1].replace("@@", "0").replace("COLS=128)", "COLS=100)"),
                    CASES[2][1].replace("@@", ": tl.constexpr").replace("8, 4, 64)", "8, 3, 64)")):
        code = HEAD + planted
        assert triton_run.findings(*bound_cell(code), code) == []
    assert triton_run._lifted_on_ascend("arange's range must be a power of 2")
    assert not triton_run._lifted_on_ascend("numel (2097152) exceeds triton maximum tensor numel (1048576)")


def test_lint_leaves_this_process_triton_modules_as_they_were():
    """The interpreted Triton is imported for the children only: whatever Triton this process held before (none, or
    the one the course's kernels imported) is what it holds after (the course's kernels, tests/test_triton_kernels.py,
    may run later in the same process)."""
    def held():
        return {name: module for name, module in sys.modules.items() if name == "triton" or name.startswith("triton.")}

    before = held()
    triton_run._triton.cache_clear()
    children = triton_run._triton()
    after = held()
    assert after.keys() == before.keys() and all(after[name] is before[name] for name in before)
    assert "triton.runtime.interpreter" in children
