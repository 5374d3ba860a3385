"""Chapter 02 lesson 1 and chapter 03 lesson 2 compute for the learner's chip (issue 25, item 2).

Both take the chip from one cell (``CHIP`` → ``chip_probe.lesson_chip``), and no cell after it computes for the
910B3 by name (``*_910b3()``); the models that may not apply go through ``chips.first_applicable``, and what they
print names the chip actually used. Running them for every chip is the nbval loop with ``NPULAB_CHIP`` (CHIPCTX).
"""

import re

import pytest

from npulab.core.notebook_cells import code_cells, read
from npulab.core.paths import REPO_ROOT
from npulab.hw import chips, cube, roofline

ARCH = REPO_ROOT / "chapters" / "02_ascend_architecture" / "01_davinci_910b3.ipynb"
RESNET = REPO_ROOT / "chapters" / "03_pytorch_npu" / "02_resnet50_amp.ipynb"
BY_NAME = re.compile(r"\b\w+_910b3\s*\(")


def chip_cell_and_after(path):
    """The index of the CHIP cell among the code cells, and the sources of the code cells after it."""
    cells = [cell.source for _, cell in code_cells(read(path))]
    chip_cells = [i for i, src in enumerate(cells) if "chip_probe.lesson_chip(CHIP)" in src]
    assert len(chip_cells) == 1, f"{path.name}：应当恰好有一个 CHIP 单元"
    index = chip_cells[0]
    assert re.search(r"^CHIP = None\s+#", cells[index], flags=re.M), "CHIP 变量带说明、默认 None"
    return index, cells[index + 1:]


def test_architecture_models_fall_back_through_first_applicable_and_name_the_chip_used():
    _, after = chip_cell_and_after(ARCH)
    text = "\n".join(after)
    assert "chips.first_applicable(cube.spec_for, chip)" in text
    assert "chips.first_applicable(roofline.machine_for, chip)" in text
    assert "roofline.machine_for(chip, bandwidth=mine.bandwidth)" in text  # the learner's own chip on an NPU host
    assert "910B3 可达" not in text and "在 910B3 上受带宽限制" not in text
    assert "cores * mhz" not in text  # the ideal time uses the cores and clock of the chip used


@pytest.mark.parametrize("key", list(chips.chips()))
def test_every_chip_gets_a_cube_model_and_a_roofline_or_the_default(key, capsys):
    spec, used = chips.first_applicable(cube.spec_for, key)
    machine, roof = chips.first_applicable(roofline.machine_for, key)
    said = capsys.readouterr().out
    assert spec.m0 == 16 and machine.name == f"Ascend {roof.key}"
    assert used.key in (key, chips.DEFAULT) and roof.key in (key, chips.DEFAULT)
    fell_back = used.key != key or roof.key != key
    assert ("改按 910B3" in said) == fell_back  # a fallback is said, in Chinese; no fallback, nothing said
    # the own-chip roofline of cell 41: any chip's peak with a measured bandwidth
    mine = roofline.measured_machine("npu:0", 2e5, 1200.0, "float16")
    if chips.get_chip(key).preliminary:  # no peak from a pre-release platform file: the cell says so instead
        with pytest.raises(chips.NotApplicable, match=key):
            roofline.machine_for(key, bandwidth=mine.bandwidth)
        return
    assert roofline.machine_for(key, bandwidth=mine.bandwidth).bandwidth.value == 1200.0
