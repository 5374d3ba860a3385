"""lint-npu round 25t (issue 36): what Triton's interpreter skips, Triton's front end judges. After a cell's kernels ran
clean in the interpreter, each launch is lowered to TTIR by Triton's own code generator in the same forked child
(npulab.lint.triton_front_end), so the code generator's checks run: a loop-carried variable that changes type, two
branches that type a variable differently, a non-constexpr global, a chained comparison, a block as an ``if``
condition, a non-constexpr ``tl.static_range`` bound, a launch keyword Triton does not know. Planted cells and twins on
Triton calls no case set uses (``grep -l`` over every ``tests/data/lint_values_*``: ``tl.maximum``, ``tl.abs``,
``tl.sqrt``, ``tl.num_programs``, ``tl.sigmoid``, ``tl.where``, ``tl.static_range``, ``tl.cumsum``, ``num_warp``)."""

from __future__ import annotations

import importlib.util

import pytest
from cell_findings import bound_cell

from npulab.lint import triton_run

pytestmark = pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton is not installed")

HEAD = "import torch\nimport triton\nimport triton.language as tl\n\n"
LAUNCH = '''

x = torch.randn(4, 64, device="npu")
y = torch.empty(4, 64, device="npu")
row_kernel[(4,)](x, y, 64, BLOCK=64)
'''

# (what the front end refuses, the kernel with @@ where the planted and the twin differ, (planted, twin))
CASES = [
    ("a loop-carried variable that starts as a scalar and becomes a block", '''@triton.jit
def row_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    peak = @@
    for step in range(2):
        peak = tl.maximum(peak, tl.load(x_ptr + tl.program_id(0) * n + offs) * step)
    tl.store(y_ptr + tl.program_id(0) * n + offs, peak)
''', ('float("-inf")', 'tl.full((BLOCK,), float("-inf"), tl.float32)')),
    ("two branches that type a variable differently", '''@triton.jit
def row_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if tl.program_id(0) > 1:
        v = tl.abs(tl.load(x_ptr + tl.program_id(0) * n + offs))
    else:
        v = @@
    tl.store(y_ptr + tl.program_id(0) * n + offs, v)
''', ("0.0", "tl.zeros((BLOCK,), dtype=tl.float32)")),
    ("a global that is not a tl.constexpr", '''EPS = @@


@triton.jit
def row_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + tl.program_id(0) * n + offs)
    tl.store(y_ptr + tl.program_id(0) * n + offs, tl.sqrt(v * v + EPS))
''', ("1e-6", "tl.constexpr(1e-6)")),
    ("a chained comparison", '''@triton.jit
def row_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid * n + offs)
    if @@:
        v = v * 2.0
    tl.store(y_ptr + pid * n + offs, v)
''', ("0 < pid < tl.num_programs(0) - 1", "(pid > 0) & (pid < tl.num_programs(0) - 1)")),
    ("a block as the condition of an if", '''@triton.jit
def row_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + tl.program_id(0) * n + offs)
@@
    tl.store(y_ptr + tl.program_id(0) * n + offs, v)
''', ("    if tl.sigmoid(v) > 0.5:\n        v = v * 0.5", "    v = tl.where(tl.sigmoid(v) > 0.5, v * 0.5, v)")),
    ("a tl.static_range bound that is not a constexpr", '''@triton.jit
def row_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + tl.program_id(0) * n + offs)
    for rep in tl.static_range(@@):
        v = tl.cumsum(v, axis=0)
    tl.store(y_ptr + tl.program_id(0) * n + offs, v)
''', ("n // 32", "BLOCK // 32")),
]
IDS = [label.split(" ")[1] + "-" + label.split(" ")[-1] for label, _, _ in CASES]


def _cell(body: str, part: str, launch: str = LAUNCH) -> str:
    return HEAD + body.replace("@@", part) + launch


def _found(code: str) -> list[tuple[int, str, str]]:
    return triton_run.findings(*bound_cell(code), code)


@pytest.mark.parametrize(("label", "body", "parts"), CASES, ids=IDS)
def test_the_front_end_refuses_the_planted_kernel_and_passes_its_twin(label, body, parts):
    planted, twin = _cell(body, parts[0]), _cell(body, parts[1])
    found = _found(planted)
    assert [line for line, _, _ in found] == [planted.count("\n")], (label, found)  # the launch, the cell's last line
    assert "TTIR" in found[0][2], (label, found)  # the front end's refusal, not the interpreter's
    assert _found(twin) == [], label


def test_a_launch_keyword_triton_does_not_know_is_refused_and_ascend_options_are_not():
    """``num_warp`` is neither a kernel argument nor a compile option (Triton's ``JITFunction.run`` refuses it);
    ``multibuffer`` is an option of Triton-Ascend's backend and ``num_warps=3`` a value only the stand-in NVIDIA
    backend refuses: both clean."""
    body, twin = CASES[0][1], CASES[0][2][1]
    planted = _cell(body, twin, LAUNCH.replace("BLOCK=64)", "BLOCK=64, num_warp=4)"))
    assert [line for line, _, _ in _found(planted)] == [planted.count("\n")]
    for clean in ("BLOCK=64, num_warps=4)", "BLOCK=64, multibuffer=False)", "BLOCK=64, num_warps=3)"):
        assert _found(_cell(body, twin, LAUNCH.replace("BLOCK=64)", clean))) == [], clean


def test_a_kernel_the_interpreter_could_not_finish_is_not_lowered():
    """An API upstream Triton lacks (``tl.insert_slice`` is Triton-Ascend's) stops the interpreter: the cell stays
    unknown instead of the front end refusing a name it does not know."""
    body = CASES[0][1].replace("peak = tl.maximum(", "peak = tl.insert_slice(peak, ").replace("@@", "0.0")
    assert _found(_cell(body, "")) == []
