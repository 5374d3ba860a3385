"""The chapter 06 kernel lessons (Ascend C, Triton) compute for the learner's chip, and every chip of the table runs.

Static checks of the notebooks (the chip cell, no 910B3-only call after it, the chip passed to every tiling and
launch call) and the model facts the lessons' cells rely on for each chip, so "Run All" cannot crash for any of
them. Fast: no notebook is executed (nbval with NPULAB_CHIP=<chip> does that).
"""

from __future__ import annotations

import ast
import json
import warnings

import pytest

from npulab.core.paths import REPO_ROOT
from npulab.hw.chips import NotApplicable, chips, first_applicable
from npulab.kernels import triton_launch
from npulab.kernels.ascendc import (
    CostModel,
    ReluTiling,
    TilingWarning,
    UBOverflowError,
    for_chip,
    plan_tiling,
)

LESSONS = {
    "ascendc": REPO_ROOT / "chapters" / "06_advanced" / "01_ascend_c_operator.ipynb",
    "triton": REPO_ROOT / "chapters" / "06_advanced" / "02_triton_kernels.ipynb",
}
DEFAULT_ONLY = ("ascend910b3(", "ascend910b3_target(", '"ini.910b3.')


def code_cells(path):
    return [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]


def python_of(cell) -> str:
    """The cell's Python: magic and shell lines replaced by ``pass`` at their indentation."""
    lines = "".join(cell["source"]).splitlines()
    return "\n".join(line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(("%", "!")) else line
                     for line in lines)


def calls(cells, name):
    """Every call ``…name(…)`` in the cells' Python."""
    found = []
    for cell in cells:
        for node in ast.walk(ast.parse(python_of(cell))):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called == name:
                    found.append(node)
    return found


def test_ascendc_lesson_passes_the_platform_to_every_tiling_call():
    cells = code_cells(LESSONS["ascendc"])
    for name in ("plan_tiling", "run_relu"):
        found = calls(cells, name)
        assert found, name
        for node in found:
            assert "platform" in {k.arg for k in node.keywords}, f"{name} without platform= (line {node.lineno})"
    for node in calls(cells, "validate"):
        assert node.args or node.keywords, "validate() without the platform"
    builds = calls(cells, "from_platform_file")
    assert builds and all(node.args for node in builds), "CostModel.from_platform_file() without the chip"
    assert any("first_applicable(for_chip, chip)" in "".join(c["source"]) for c in cells)


def test_triton_lesson_checks_every_launch_against_the_chosen_target():
    cells = code_cells(LESSONS["triton"])
    found = calls(cells, "check_launch")
    assert found and all(len(node.args) == 2 for node in found)
    text = "\n".join("".join(c["source"]) for c in cells)
    assert "first_applicable(triton_launch.target_for, chip)" in text
    assert "programs=40" not in text and "programs=20" not in text  # the grids come from the target


def test_the_build_cell_compiles_for_the_soc_read_from_the_device():
    cell = next(c for c in code_cells(LESSONS["ascendc"]) if "build_and_install.sh" in "".join(c["source"]))
    text = "".join(cell["source"])
    assert text.startswith("%%npu 预期") and "torch.npu.get_device_name(0)" in text
    assert "build_and_install.sh {soc}" in text and "build_and_install.sh Ascend910B3" not in text


@pytest.mark.parametrize("key", list(chips()))
def test_every_chip_runs_the_ascendc_lesson_cells(key):
    """What cells 8, 15 and 24 compute, for each chip: a platform (or the 910B3 fallback), the cost model, the
    UB-overflow and more-blocks-than-cores examples."""
    platform, used = first_applicable(for_chip, key, say=lambda _: None)
    assert used.key == key or used.key == "910B3"
    CostModel.from_platform_file(used)
    fp16_fit = platform.ub_bytes // (2 * 2) // 2
    plan_tiling(1_000_000, "float16", platform=platform, tile_length=fp16_fit)  # the largest tile fits
    with pytest.raises(UBOverflowError):
        plan_tiling(1_000_000, "float16", platform=platform, tile_length=fp16_fit + 16)
    with pytest.raises(UBOverflowError):
        ReluTiling(1 << 20, 1, 1 << 20, 24576, "float16", buffer_num=3).validate(platform)
    over = platform.vector_cores + 8
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ReluTiling(over * 16384, over, 16384, 4096, "float16").validate(platform)
    assert [w.category for w in caught] == [TilingWarning]


def test_coupled_chips_split_vector_kernels_over_their_ai_cores():
    """GetCoreNumAiv returns the AI Cores on a coupled chip (310P3: 8, not its 7 standalone Vector Cores)."""
    assert for_chip("310P3").vector_cores == 8
    assert for_chip("910B3").vector_cores == 40 and for_chip("950").vector_cores == 64
    with pytest.raises(NotApplicable):
        for_chip("910A")


@pytest.mark.parametrize("key", list(chips()))
def test_every_chip_gets_a_triton_target(key):
    target, used = first_applicable(triton_launch.target_for, key, say=lambda _: None)
    assert used.key in triton_launch.TRITON_CHIPS
    report = triton_launch.check_launch(triton_launch.matmul_launch(2048, 2048, 2048, "float16",
                                                                    programs=target.cores_for("cube")), target)
    assert report.rounds == 1 and not report.findings


def test_the_blockdim_warning_names_what_the_cores_are():
    coupled, split = for_chip("310P3"), for_chip("910B3")
    tiling = ReluTiling(64 * 1024, 16, 4096, 1024, "float16")
    assert "8 个 AI Core（耦合架构" in tiling.warnings(coupled)[0]
    assert "40 个 Vector 核（AIV）" in ReluTiling(64 * 4096, 64, 4096, 1024, "float16").warnings(split)[0]
